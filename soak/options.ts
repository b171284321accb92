// The soak's command-line options, in one place: `npm run soak` (run.ts) reads
// them, and `npm run soak:many` (many.ts) accepts the same ones and passes on
// those given, so an option the soak gains is one soak:many takes too.
export const SOAK_OPTIONS = {
  seed: { type: 'string', default: String(Date.now() % 100000) },
  minutes: { type: 'string', default: '3' },
  replicas: { type: 'string', default: '2' },
  lanes: { type: 'string', default: '6' },
  redis: { type: 'string', default: 'single' },
  // The payout rails, in order (PAYOUT_RAILS): paystack, or paystack,flutterwave.
  rails: { type: 'string', default: 'paystack' },
  'keep-database': { type: 'boolean', default: false },
  // Where to write the JSON report too (soak/many.ts reads it).
  report: { type: 'string' },
} as const;
