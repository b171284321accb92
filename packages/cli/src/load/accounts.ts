// Loaded with import() by the commands that need it, never at start. esbuild keeps
// every export of a module loaded with import(), so each such module is this short
// list rather than a package's whole index (which would load its other dependencies).
export {
  API_KEY_CACHE_MAX_AGE_MS,
  announceApiKeyChange,
  apiKeyIdentity,
  createApiKey,
  insertDashboardUser,
  prepareDashboardUser,
  createWorkspace,
  dashboardUserIdentity,
  disableDashboardUser,
  parseScopes,
  recordOperatorAction,
  revokeApiKey,
  workspaceForMode,
} from '@cowrie/accounts';
