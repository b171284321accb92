// Risk: a service's heap grows to several times its live data under steady
// load (the gateway reached 250 MB RSS on 40 MB live), or an operator's own
// --heap-growing-percent is silently overridden.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const HEAP_GROWTH = path.join(__dirname, '../src/heap-growth.ts');

/** The largest heapTotal (MB) of a child process that keeps ~20 MB alive and churns short-lived garbage. */
function peakHeapMb(opts: { bound: boolean; nodeArgs?: string[] }): number {
  const script = `
    ${opts.bound ? `require(${JSON.stringify(HEAP_GROWTH)}).boundHeapGrowth();` : ''}
    const live = []; for (let i = 0; i < 200000; i++) live.push({ i, s: 'x' + i });
    let churn = []; let peak = 0;
    for (let round = 0; round < 300; round++) {
      for (let i = 0; i < 20000; i++) churn.push({ a: [i, i + 1], b: 'y' + i });
      if (churn.length > 100000) churn = [];
      peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    process.stdout.write(String(Math.round(peak / 1048576) + live.length * 0));
  `;
  const result = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', '-e', script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return Number(result.stdout);
}

test('bounds how far the heap grows past its live data', () => {
  const unbounded = peakHeapMb({ bound: false });
  const bounded = peakHeapMb({ bound: true });
  expect(bounded).toBeLessThan(unbounded * 0.8);
});

test("leaves an operator's --heap-growing-percent in force", () => {
  const bounded = peakHeapMb({ bound: true });
  const operatorChoice = peakHeapMb({ bound: true, nodeArgs: ['--heap-growing-percent=300'] });
  expect(operatorChoice).toBeGreaterThan(bounded * 1.25);
});
