import type { AnyRouteSpec, RegisteredRoute } from '../http/route-registry';
import { auditDashboardSpecs } from './audit/specs';
import { authDashboardSpecs } from './auth/specs';
import { catalogApiSpecs } from './catalog/specs';
import { depositApiSpecs, depositDashboardSpecs } from './deposits/specs';
import { docsSpecs } from './docs/specs';
import { healthSpecs } from './health/specs';
import { apiKeyDashboardSpecs } from './keys/specs';
import { ledgerDashboardSpecs } from './ledger/specs';
import { payoutApiSpecs, payoutDashboardSpecs } from './payouts/specs';
import { teamDashboardSpecs } from './team/specs';
import { testHelperApiSpecs } from './test-helpers/specs';
import { verificationDashboardSpecs, verificationSpecs } from './verifications/specs';
import { webhookSpecs } from './webhooks/specs';

/**
 * Every route of the API as data, one entry per domain and surface, in the
 * order createApp mounts them: '/v1' for the API-key routes, '' for the
 * dashboard session's and the operator's. The OpenAPI document (and so the
 * SDK) is built from this list alone, with nothing started; the gateway's
 * test holds it equal to what the app registers, route by route.
 */
export const API_MOUNTS: ReadonlyArray<{ prefix: '' | '/v1'; specs: Record<string, AnyRouteSpec> }> = [
  { prefix: '', specs: docsSpecs },
  { prefix: '/v1', specs: catalogApiSpecs },
  { prefix: '/v1', specs: verificationSpecs },
  { prefix: '/v1', specs: depositApiSpecs },
  { prefix: '/v1', specs: payoutApiSpecs },
  { prefix: '/v1', specs: testHelperApiSpecs },
  { prefix: '', specs: healthSpecs },
  { prefix: '', specs: authDashboardSpecs },
  { prefix: '', specs: webhookSpecs },
  { prefix: '', specs: apiKeyDashboardSpecs },
  { prefix: '', specs: ledgerDashboardSpecs },
  { prefix: '', specs: verificationDashboardSpecs },
  { prefix: '', specs: depositDashboardSpecs },
  { prefix: '', specs: payoutDashboardSpecs },
  { prefix: '', specs: teamDashboardSpecs },
  { prefix: '', specs: auditDashboardSpecs },
];

/** The routes of API_MOUNTS as the registry records them (the document's input). */
export function apiRoutes(): RegisteredRoute[] {
  return API_MOUNTS.flatMap(({ prefix, specs }) => Object.values(specs).map((spec) => ({ ...spec, fullPath: `${prefix}${spec.path}` }) as RegisteredRoute));
}
