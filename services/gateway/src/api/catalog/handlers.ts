import { AppError } from '@cowrie/core';
import { capabilityMap } from '@cowrie/catalog';
import { VERIFICATION_CHANNELS, verificationChannelStatuses } from '@cowrie/verification';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { sendData } from '../../http/respond';
import type { catalogApiSpecs } from './specs';

const VERIFICATION_CHANNEL_LABELS: Record<(typeof VERIFICATION_CHANNELS)[number], string> = {
  sms: 'Codes by SMS',
  voice: 'Codes read out in a voice call',
  email: 'Codes by email',
  whatsapp: 'Codes on WhatsApp',
};

/** One handler per catalog route (catalogApiSpecs): the deployment's channels and capabilities, read from its config once. */
export function createCatalogApiHandlers(deps: GatewayDeps): HandlersOf<typeof catalogApiSpecs> {
  const verificationStatuses = verificationChannelStatuses(deps.config);
  const verificationChannels = VERIFICATION_CHANNELS.map((id) => ({ id, label: VERIFICATION_CHANNEL_LABELS[id], status: verificationStatuses[id] }));
  return {
    listChannels(_input, req, res) {
      res.status(200).json({ data: deps.channels, meta: { request_id: req.id, verification_channels: verificationChannels } });
    },
    getCapabilities(_input, req, res) {
      sendData(req, res, 200, capabilityMap(deps.channels, verificationStatuses));
    },
    createCard() {
      throw new AppError('coming_soon', 'Cards are not available yet.');
    },
  };
}
