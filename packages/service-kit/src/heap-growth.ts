import v8 from 'node:v8';

/**
 * How far V8 may grow the heap past what the last full GC kept alive, in
 * percent (the heap may reach 1.25× the live data before the next full GC).
 * V8's own factor reaches 4× under steady load: the gateway's heap, about
 * 40 MB live, then grew to 250 MB RSS under the `channels` benchmark; at 50%
 * its peak was 200–206 MB, at 25% 150 MB, with the same throughput (see
 * docs/performance.md). A growth factor, not a cap: a burst of live data
 * still gets the memory it needs.
 */
export const HEAP_GROWING_PERCENT = 25;

/**
 * Applies HEAP_GROWING_PERCENT to this process (call it first in a service's
 * main), unless `node --heap-growing-percent=N` already chose a value.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
