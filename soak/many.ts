// `npm run soak:many -- --seeds 1-20 --minutes 10 [--redis single|cluster] [any other soak option]`:
// the long run. One soak per seed, one after another (each owns the machine),
// each printing as it goes; then a table of every seed's figures. Exits 1 if
// any seed found a violation or failed, naming the seeds to replay.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SOAK_OPTIONS } from './options';

// Every soak option but the two each run is given (its seed and its report file).
const { seed: _seed, report: _report, ...passedOn } = SOAK_OPTIONS;
const { values, tokens } = parseArgs({
  options: { ...passedOn, seeds: { type: 'string', default: '1-20' } },
  tokens: true,
});
const range = /^(\d+)-(\d+)$/.exec(String(values.seeds));
if (!range || Number(range[1]) > Number(range[2])) {
  console.error(
    'usage: npm run soak:many -- --seeds <first>-<last> [--minutes M] [--redis single|cluster] [--replicas R] [--lanes L] [--rails paystack[,flutterwave]] [--keep-database]',
  );
  process.exit(2);
}
// Every other option goes to each soak as given.
const passOn = tokens
  .filter((t) => t.kind === 'option' && t.name !== 'seeds')
  .flatMap((t) => (t.kind === 'option' ? [t.rawName, ...(t.value === undefined ? [] : [t.value])] : []));

interface Report {
  seed: number;
  operations: number;
  faults: Record<string, number>;
  payouts: Record<string, number>;
  inboundCredits: number;
  events: number;
  deliveries: number;
  violations: unknown[];
}

const dir = mkdtempSync(path.join(tmpdir(), 'cowrie-soak-many-'));
const rows: Array<Record<string, number | string>> = [];
const failed: number[] = [];
const started = Date.now();
for (let seed = Number(range[1]); seed <= Number(range[2]); seed++) {
  const reportFile = path.join(dir, `${seed}.json`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'run.ts'), '--seed', String(seed), '--report', reportFile, ...passOn], {
    stdio: 'inherit',
  });
  let report: Report | null = null;
  try {
    report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
  } catch {
    report = null;
  }
  if (run.status !== 0 || !report) failed.push(seed);
  rows.push({
    seed,
    operations: report?.operations ?? '-',
    faults: report ? Object.values(report.faults).reduce((a, b) => a + b, 0) : '-',
    payouts: report ? Object.values(report.payouts).reduce((a, b) => a + b, 0) : '-',
    'inbound credits': report?.inboundCredits ?? '-',
    deliveries: report?.deliveries ?? '-',
    violations: report ? report.violations.length : 'soak failed',
  });
}
rmSync(dir, { recursive: true, force: true });
const sum = (key: string) => rows.reduce((n, r) => n + (typeof r[key] === 'number' ? (r[key] as number) : 0), 0);
console.table(rows);
console.log(
  `${rows.length} seeds in ${((Date.now() - started) / 60_000).toFixed(1)} min: ${sum('operations')} operations, ${sum('faults')} faults, ` +
    `${sum('payouts')} payouts, ${sum('inbound credits')} inbound credits, ${sum('violations')} violations` +
    (failed.length ? `; replay seeds ${failed.join(', ')}` : ''),
);
process.exit(failed.length ? 1 : 0);
