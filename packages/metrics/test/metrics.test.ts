// Risk: process and Node.js metrics under names the community's dashboards do
// not know (a `cowrie_` prefix), or Cowrie's own families losing theirs.
import { createMetrics } from '../src/metrics';

test('process and Node.js metrics keep their standard names; Cowrie’s own families keep the cowrie_ prefix', async () => {
  const metrics = createMetrics({ service: 'gateway' });
  const text = await metrics.registry.metrics();
  const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  for (const name of [
    'process_cpu_user_seconds_total',
    'process_resident_memory_bytes',
    'process_start_time_seconds',
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
    'nodejs_gc_duration_seconds',
  ]) {
    expect(families).toContain(name);
  }
  expect([...families].filter((f) => /^cowrie_(process|nodejs)_/.test(f))).toEqual([]);
  expect(families).toContain('cowrie_http_requests_total');
  expect([...families].filter((f) => !/^(process|nodejs)_/.test(f)).every((f) => f.startsWith('cowrie_'))).toBe(true);
  expect(text).toMatch(/^process_cpu_user_seconds_total\{service="gateway"\} /m);
});
