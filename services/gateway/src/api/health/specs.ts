import type { AnyRouteSpec } from '../../http/route-registry';
import { ZHealth, ZReadiness } from './schemas';

/** Liveness and readiness, without authentication: keyed by their operationId, in the order they are mounted. */
export const healthSpecs = {
  health: {
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'Liveness: the process is up',
    tag: 'Operations',
    auth: { kind: 'none' },
    responses: { 200: { description: 'Up', data: ZHealth } },
  },
  readiness: {
    method: 'get',
    path: '/readyz',
    operationId: 'readiness',
    summary: 'Readiness: Postgres and Redis answer (and Redis will not evict BullMQ keys)',
    tag: 'Operations',
    auth: { kind: 'none' },
    responses: {
      200: { description: 'Ready', data: ZReadiness },
      503: { description: 'not_ready: a dependency is not answering, or the process is stopping (details.checks)' },
    },
  },
} satisfies Record<string, AnyRouteSpec>;
