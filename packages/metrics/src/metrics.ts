import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What queue depth needs of a BullMQ Queue. */
export interface DepthSource {
  readonly name: string;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
}

/** The states that make up a queue's depth (completed jobs are history, not depth). */
export const QUEUE_DEPTH_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized', 'waiting-children'] as const;
/** A scrape never waits longer than this for Redis; a slow Redis shows as missing samples. */
const DEPTH_TIMEOUT_MS = 2000;

/** The payout rails' breaker states, read on each scrape. */
export type RailStateSource = () => Promise<ReadonlyArray<{ rail: string; state: string }>>;
const RAIL_STATES = ['closed', 'open', 'half_open'] as const;

/** Seconds; from a cached GET to a rail call that waits out its timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Jobs run longer than requests: a webhook delivery with its retries takes up to ~32 s. */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export interface CreateMetricsOptions {
  /** The `service` label on every sample (gateway, payout-worker, ...). */
  service: string;
  /**
   * Process metrics (CPU, memory, event loop lag, GC) under prom-client's standard names
   * (`process_*`, `nodejs_*`, no prefix), which community dashboards expect. Default true; tests turn them off.
   */
  processMetrics?: boolean;
}

/**
 * The metric families of one service, on a registry of its own (several
 * services can run in one test process without clashing). Every family exists
 * in every service so dashboards can be built once; a service fills the ones
 * it owns.
 */
export function createMetrics(options: CreateMetricsOptions) {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const depthSources = new Set<DepthSource>();
  const railHealthSources = new Set<RailStateSource>();

  return {
    registry,
    /** Requests by route template (never the raw path: ids would explode cardinality). */
    httpRequests: new Counter({
      name: 'cowrie_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'cowrie_http_request_duration_seconds',
      help: 'HTTP request latency from arrival to the last byte written, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    /** Read from Redis on each scrape, for the queues given to watchQueues. */
    queueJobs: new Gauge({
      name: 'cowrie_queue_jobs',
      help: 'Jobs in a queue by state (waiting, active, delayed, failed, prioritized, waiting-children)',
      labelNames: ['queue', 'state'] as const,
      registers,
      async collect() {
        this.reset();
        await Promise.all(
          [...depthSources].map(async (queue) => {
            let timer: NodeJS.Timeout | undefined;
            const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), DEPTH_TIMEOUT_MS)));
            const counts = await Promise.race([queue.getJobCounts(...QUEUE_DEPTH_STATES).catch(() => null), timeout]).finally(() => clearTimeout(timer));
            if (!counts) return;
            for (const state of QUEUE_DEPTH_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
          }),
        );
      },
    }),
    jobDuration: new Histogram({
      name: 'cowrie_job_duration_seconds',
      help: 'Time a worker spent on one job attempt, by queue, job name and outcome (completed or failed)',
      labelNames: ['queue', 'job', 'outcome'] as const,
      buckets: JOB_BUCKETS,
      registers,
    }),
    jobFailures: new Counter({
      name: 'cowrie_job_failures_total',
      help: 'Job attempts that threw, by queue and job name (final: no attempt left)',
      labelNames: ['queue', 'job', 'final'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'cowrie_webhook_deliveries_total',
      help: 'Webhook dispatches by final outcome (delivered, failed, skipped)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    /** One series per endpoint: bounded by the endpoints that exist (WEBHOOK_ENDPOINTS_MAX per workspace). */
    webhookEndpointDeliveries: new Counter({
      name: 'cowrie_webhook_endpoint_deliveries_total',
      help: 'Finished webhook dispatches by endpoint id and outcome (delivered, failed)',
      labelNames: ['endpoint', 'outcome'] as const,
      registers,
    }),
    payouts: new Counter({
      name: 'cowrie_payouts_total',
      help: "Payout jobs by the payout's outcome: completed, failed, reversed, provider_error, unknown (the rail could not say), pending (the rail has it, unsettled), skipped (nothing to do)",
      labelNames: ['outcome'] as const,
      registers,
    }),
    payoutsProcessingOldest: new Gauge({
      name: 'cowrie_payouts_processing_oldest_seconds',
      help: 'Age of the oldest payout still processing (0 when none), as the payout reconciler last saw it',
      registers,
    }),
    payoutsLostByRail: new Counter({
      name: 'cowrie_payouts_lost_by_rail_total',
      help: 'Checks of a processing payout whose rail had acknowledged its transfer (pending, or its own reference) and now does not find it: kept processing with its hold (a changed rail key or URL?), by rail',
      labelNames: ['rail'] as const,
      registers,
    }),
    ledgerAuditViolations: new Gauge({
      name: 'cowrie_ledger_audit_violations',
      help: 'Violations the last ledger audit of this payout worker found (0: the ledger holds); it audits every LEDGER_AUDIT_EVERY_MS',
      registers,
    }),
    ledgerAuditLastSuccess: new Gauge({
      name: 'cowrie_ledger_audit_last_success_timestamp_seconds',
      help: 'When the last ledger audit that ran to the end finished (Unix seconds; 0: none yet)',
      registers,
    }),
    ledgerAuditFailures: new Counter({
      name: 'cowrie_ledger_audit_failures_total',
      help: 'Ledger audits that could not run to the end (an error, not a violation)',
      registers,
    }),
    webhookAttempts: new Histogram({
      name: 'cowrie_webhook_delivery_attempts',
      help: 'HTTP attempts a finished webhook dispatch took (1 to 3)',
      labelNames: ['outcome'] as const,
      buckets: [1, 2, 3],
      registers,
    }),
    railCallDuration: new Histogram({
      name: 'cowrie_rail_call_duration_seconds',
      help: 'Latency of calls to external rails and providers, by rail, operation and outcome (ok or error)',
      labelNames: ['rail', 'operation', 'outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    railCallErrors: new Counter({
      name: 'cowrie_rail_call_errors_total',
      help: 'Calls to external rails and providers that threw, by rail, operation and error name',
      labelNames: ['rail', 'operation', 'error'] as const,
      registers,
    }),
    verificationOutcomes: new Counter({
      name: 'cowrie_verification_outcomes_total',
      help: 'Verification outcomes by stage: start (started, delivery_failed, rate_limited, fraud_guard), delivery (sent, failed, skipped), check (verified, invalid_code, expired, not_found, failed, too_many_attempts)',
      labelNames: ['stage', 'outcome'] as const,
      registers,
    }),
    /**
     * Verification starts, verified checks and fraud-guard refusals by channel
     * and destination prefix (`+234803 1`; `none` for email). A prefix is the
     * country code and four digits: at most 10,000 values per channel.
     */
    verificationConversion: new Counter({
      name: 'cowrie_verification_conversion_total',
      help: 'Verification starts (started), checks that verified (verified) and starts the fraud guard refused (refused) or, in monitor mode, would have refused (would_refuse), by channel and destination prefix',
      labelNames: ['channel', 'prefix', 'outcome'] as const,
      registers,
    }),
    /** Delivery reports from providers (Termii delivery reports, WhatsApp status callbacks). */
    verificationDeliveryReports: new Counter({
      name: 'cowrie_verification_delivery_reports_total',
      help: 'Delivery reports received, by provider and status (delivered, undelivered, unknown_message, ignored)',
      labelNames: ['provider', 'status'] as const,
      registers,
    }),
    /** Every transfer a collection rail reported: credited, or held for an operator (unmatched) with its reason. */
    inboundPayments: new Counter({
      name: 'cowrie_inbound_payments_total',
      help: 'Inbound transfers reported by collection rails, by provider and status (credited, unmatched) and, when unmatched, reason (ambiguous_account, unknown_account, amount_mismatch, ...)',
      labelNames: ['provider', 'status', 'reason'] as const,
      registers,
    }),
    payoutFoundAfterMove: new Counter({
      name: 'cowrie_payout_found_after_move_total',
      help: 'Payout attempts whose rail showed the transfer after the payout moved on to another rail, counted once per attempt (it may be paid twice; kept on the attempt as found_after_move for an operator), by rail',
      labelNames: ['rail'] as const,
      registers,
    }),
    payoutFoundAfterFail: new Counter({
      name: 'cowrie_payout_found_after_fail_total',
      help: 'Payouts failed because their rail never knew them within the grace window whose rail showed the transfer after all, counted once per attempt (it may be paid while the wallet got the money back; kept on the attempt as found_after_fail for an operator), by rail',
      labelNames: ['rail'] as const,
      registers,
    }),
    /** Read from Redis on each scrape, for the rails given to watchRailHealth (several payout rails only). */
    payoutRailState: new Gauge({
      name: 'cowrie_payout_rail_state',
      help: "1 for the state each payout rail's breaker is in (closed: used; open: passed over after failing on its own; half_open: one probe payout may try it), 0 for the others",
      labelNames: ['rail', 'state'] as const,
      registers,
      async collect() {
        this.reset();
        await Promise.all(
          [...railHealthSources].map(async (source) => {
            let timer: NodeJS.Timeout | undefined;
            const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), DEPTH_TIMEOUT_MS)));
            const states = await Promise.race([source().catch(() => null), timeout]).finally(() => clearTimeout(timer));
            for (const { rail, state } of states ?? []) for (const each of RAIL_STATES) this.set({ rail, state: each }, each === state ? 1 : 0);
          }),
        );
      },
    }),
    /** Report the breaker state of the payout rails on every scrape. */
    watchRailHealth(source: RailStateSource) {
      railHealthSources.add(source);
    },
    /** Report the depth of these queues on every scrape. */
    watchQueues(queues: Iterable<DepthSource>) {
      for (const queue of queues) depthSources.add(queue);
    },
  };
}

export type CowrieMetrics = ReturnType<typeof createMetrics>;

/** The exposition text and its content type, for any HTTP framework. */
export async function renderMetrics(metrics: CowrieMetrics): Promise<{ contentType: string; body: string }> {
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}

/** Counts rails' answers kept for an operator (found_after_move / found_after_fail on the payout's attempt), by rail. */
export function countFoundLate(metrics: CowrieMetrics, found: Iterable<{ rail: string; outcome: string }>): void {
  for (const { rail, outcome } of found) (outcome === 'found_after_move' ? metrics.payoutFoundAfterMove : metrics.payoutFoundAfterFail).inc({ rail });
}

/**
 * Puts each payout rail's series of the counters an alert reads at 0 from the
 * start: a series that first appears at 1 shows Prometheus no increase, so
 * the first late answer or lost transfer would not alert.
 */
export function primePayoutRailCounters(metrics: CowrieMetrics, rails: readonly string[]): void {
  for (const rail of rails) {
    metrics.payoutFoundAfterMove.labels({ rail }).inc(0);
    metrics.payoutFoundAfterFail.labels({ rail }).inc(0);
    metrics.payoutsLostByRail.labels({ rail }).inc(0);
  }
}
