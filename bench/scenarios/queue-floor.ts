// Scenario `queue_floor`: what a synchronous answer that a worker gives costs
// in this architecture before any business work. A bare express route with a
// JSON body that queues one job and waits for its outcome on its reply
// channel (enqueueAndWait, as the gateway waits for a payout or a code's
// delivery), and a worker on the services' template (startQueueWorker) whose
// handler does nothing; the payouts queue's job options; no database, no key
// check. Measured open loop at the rates of `verification_start` (300/s) and
// `transfers` (200/s), CPU per request of the server, the worker and Redis
// against the same yardstick as every scenario: its `cpu_ratio` is the least
// those scenarios' ratios can be while the design's queue hop stands (docs/
// performance.md, "The floor"). Not a target of its own.
import { bareExpressYardstick, cpuFields, cpuPerRequest, loadAtRate, startBenchStack, waitForHttp, type HttpRequest, type ScenarioResult } from '../lib';

const DURATION_S = 10;
const WARMUP_S = 5;
/** The at-rate runs of the scenarios that wait for a worker: verification_start's rate first, then transfers'. */
const RATES = [300, 200] as const;

/** One rate's figures. */
export interface FloorAtRate {
  rate_rps: number;
  achieved_rate_rps: number;
  p50_at_rate_ms: number;
  p99_at_rate_ms: number;
  generator_p99_send_lag_ms: number;
  cpu_ms_per_request_at_rate: Record<string, number>;
  cpu_ms_per_op: number;
  bare_express_cpu_ms_per_request: number;
  cpu_ratio: number | null;
  [extra: string]: unknown;
}

export interface QueueFloorResult extends ScenarioResult {
  scenario: 'queue_floor';
  /** By rate (req/s). */
  floors: Record<string, FloorAtRate>;
}

const HOP: HttpRequest = { method: 'POST', path: '/hop', headers: { 'content-type': 'application/json' }, body: '{"amount":"100.00"}' };

export async function queueFloor(): Promise<QueueFloorResult> {
  const stack = await startBenchStack({
    name: 'cowrie_bench_queue_floor',
    services: [{ service: 'bench/floor/queue-floor-server.ts', listens: true, readyPath: '/ready' }, { service: 'bench/floor/queue-floor-worker.ts' }],
  });
  const origin = stack.replicas[0]!.url!;
  try {
    await waitForHttp(`${origin}/ready`);
    // The worker is up once a hop completes.
    const deadline = Date.now() + 30_000;
    while ((await fetch(`${origin}/hop`, { method: 'POST', headers: HOP.headers, body: HOP.body })).status !== 201) {
      if (Date.now() > deadline) throw new Error('the floor worker did not complete a hop within 30 s');
      await new Promise((r) => setTimeout(r, 250));
    }
    const yardstick = await bareExpressYardstick();
    // JIT, pools and Redis's scripts warm before either rate is measured.
    await loadAtRate({ origin, rate: RATES[0], durationSeconds: WARMUP_S, warmupSeconds: 0, next: () => HOP });
    const floors: Record<string, FloorAtRate> = {};
    for (const rate of RATES) {
      const {
        result: run,
        cpuMsPerRequest,
        redisCallsPerRequest,
      } = await cpuPerRequest(
        () => loadAtRate({ origin, rate, durationSeconds: DURATION_S, warmupSeconds: 2, next: () => HOP }),
        (r) => r.sent,
      );
      if (run.non2xx > 0) throw new Error(`queue_floor at ${rate}/s: ${run.non2xx} of ${run.requests} hops were not answered 201`);
      floors[String(rate)] = {
        rate_rps: rate,
        achieved_rate_rps: run.achieved_rps,
        p50_at_rate_ms: run.p50_ms,
        p99_at_rate_ms: run.p99_ms,
        generator_p99_send_lag_ms: run.p99_send_lag_ms,
        ...cpuFields(cpuMsPerRequest, yardstick),
        redis_calls_per_request_at_rate: redisCallsPerRequest,
      };
    }
    const first = floors[String(RATES[0])]!;
    return {
      scenario: 'queue_floor',
      // Open loop only: no saturation run, so its figures are the first rate's.
      rps: first.achieved_rate_rps,
      p50_ms: first.p50_at_rate_ms,
      p99_ms: first.p99_at_rate_ms,
      baseline: 'bare_express',
      baseline_rps: 0,
      ratio: 0,
      peak_rss_mb: stack.replicas[0]!.process!.peakRssMb(),
      ...first,
      floors,
    };
  } finally {
    await stack.close();
  }
}
