// Risk: the benchmark reports figures it did not earn: latencies from a run
// whose load generator fell behind its schedule (it then measured itself),
// a CPU per operation that counts the bare express yardstick as the
// operation's, a ratio against the wrong figure, or a stall window that
// shows the wrong seconds. The bench's own arithmetic, on made-up inputs.
import os from 'node:os';
import { asGenerator, atRateFields, cpuAround, cpuFields, GENERATOR_MAX_P99_SEND_LAG_MS, yardstickOf } from '../../../bench/lib';

const run = (p99SendLag: number) => ({
  rate_rps: 200,
  achieved_rps: 199,
  p50_ms: 9,
  p99_ms: 33,
  max_ms: 612,
  max_at_offset_s: 4.2,
  max_at: '2026-11-27T06:00:04.200Z',
  requests: 2000,
  non2xx: 0,
  p99_send_lag_ms: p99SendLag,
  max_send_lag_ms: p99SendLag + 1,
});

test('a run whose generator kept its schedule reports its latencies, and when the slowest request was sent', () => {
  const fields = atRateFields(run(GENERATOR_MAX_P99_SEND_LAG_MS), 'bare_express', { p50_ms: 1, p99_ms: 4 });
  expect(fields).toMatchObject({
    generator_ok: true,
    p50_at_rate_ms: 9,
    p99_at_rate_ms: 33,
    max_at_rate_ms: 612,
    max_at_rate_offset_s: 4.2,
    max_at_rate_at: '2026-11-27T06:00:04.200Z',
    baseline_p99_at_rate_ms: 4,
  });
  expect(fields).not.toHaveProperty('invalid_at_rate');
});

test('a run whose generator fell behind (p99 send lag over 5 ms) has no latency results, only the raw figures marked invalid', () => {
  const fields = atRateFields(run(GENERATOR_MAX_P99_SEND_LAG_MS + 0.01), 'bare_express', { p50_ms: 1, p99_ms: 4 });
  expect(fields).toMatchObject({ generator_ok: false, p50_at_rate_ms: null, p99_at_rate_ms: null, max_at_rate_ms: null });
  expect(fields).toHaveProperty('invalid_at_rate', {
    p50_at_rate_ms: 9,
    p99_at_rate_ms: 33,
    max_at_rate_ms: 612,
    max_at_rate_offset_s: 4.2,
    max_at_rate_at: '2026-11-27T06:00:04.200Z',
  });
});

test('the yardstick is the median of its readings, so one outlying reading does not move the ratio', () => {
  expect(yardstickOf([0.356, 0.208, 0.25]).cpuMsPerRequest).toBe(0.25);
  expect(yardstickOf([0.25, 0.26, 0.9]).cpuMsPerRequest).toBe(0.26);
  expect(yardstickOf([0.3, 0.2]).cpuMsPerRequest).toBe(0.2);
});

test('CPU per operation sums every process but the bare express yardstick, and cpu_ratio divides by the yardstick', () => {
  const fields = cpuFields({ gateway: 1.5, 'payout-worker': 1, postgres: 1.75, 'redis-server': 0.25, 'baseline-server': 0.9 }, yardstickOf([0.35, 0.2, 0.18]));
  expect(fields).toEqual({
    cpu_ms_per_request_at_rate: { gateway: 1.5, 'payout-worker': 1, postgres: 1.75, 'redis-server': 0.25 },
    cpu_ms_per_op: 4.5,
    bare_express_cpu_ms_per_request: 0.2,
    bare_express_cpu_ms_per_request_readings: [0.35, 0.2, 0.18],
    bare_express_rate_rps: 1000,
    cpu_ratio: 22.5,
  });
  expect(cpuFields({ gateway: 1 }, yardstickOf([0])).cpu_ratio).toBeNull();
});

test('the CPU around the slowest request: each step’s use per process, from a second before it to a second after', () => {
  const centre = Date.parse('2026-11-27T06:00:10.000Z');
  // Cumulative CPU every 100 ms from 3 s before to 3 s after; the gateway busy (100 ms a step) only in the step ending at the centre.
  const timeline = Array.from({ length: 61 }, (_, i) => {
    const at = centre - 3000 + i * 100;
    return { at, used: { gateway: 10 * i + (at >= centre ? 90 : 0), postgres: 5 * i } };
  });
  const steps = cpuAround(timeline, '2026-11-27T06:00:10.000Z');
  expect(steps.map((s) => s.offset_ms)).toEqual(Array.from({ length: 20 }, (_, i) => -900 + i * 100));
  expect(steps.find((s) => s.offset_ms === 0)).toEqual({ offset_ms: 0, gateway: 100, postgres: 5 });
  expect(steps.filter((s) => s.offset_ms !== 0).every((s) => s.gateway === 10 && s.postgres === 5)).toBe(true);
  expect(cpuAround(timeline, null)).toEqual([]);
});

test('the generator runs at a higher priority than the services while it drives a run (where the process may raise it), and at its own after', async () => {
  const before = os.getPriority();
  let canRaise = true;
  try {
    os.setPriority(before - 1);
    os.setPriority(before);
  } catch {
    canRaise = false;
  }
  let during = before;
  const fields = await asGenerator(async () => {
    during = os.getPriority();
    return atRateFields(run(1), 'bare_express', { p50_ms: 1, p99_ms: 4 });
  });
  expect(os.getPriority()).toBe(before);
  if (canRaise) {
    expect(during).toBe(-10);
    expect(fields.generator_nice).toBe(-10);
  } else {
    expect(during).toBe(before);
    expect(fields.generator_nice).toBe(before);
  }
  // Back even when the run fails.
  await expect(asGenerator(() => Promise.reject(new Error('the run failed')))).rejects.toThrow('the run failed');
  expect(os.getPriority()).toBe(before);
});
