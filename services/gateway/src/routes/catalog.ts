import type { Router } from 'express';
import { AppError } from '@cowrie/core';
import { capabilityMap } from '@cowrie/catalog';
import type { GatewayDeps } from '../deps';
import { requireScope } from '../http/api-auth';
import { sendData } from '../http/respond';

export function registerCatalogRoutes(v1: Router, deps: GatewayDeps) {
  v1.get('/channels', requireScope('read'), (req, res) => sendData(req, res, 200, deps.channels));
  v1.get('/capabilities', requireScope('read'), (req, res) => sendData(req, res, 200, capabilityMap(deps.channels)));
  // Any valid key may ask; the answer is the same for everyone.
  v1.post('/cards', () => {
    throw new AppError('coming_soon', 'Cards are not available yet.');
  });
}
