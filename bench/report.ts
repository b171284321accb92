// `npm run bench:report`: the table of the last full run (bench/results/*.json)
// as the README and docs/performance.md show it: CPU per operation against the
// bare express route's in the same run, the p99 at the fixed rate against its
// baseline's, the slowest request and when, and whether the generator kept its
// schedule (a run in which it did not has no latency results).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface Target {
  /** The highest cpu_ratio (cpu_ms_per_op ÷ bare express CPU per request) the scenario may have. */
  cpuRatio: number;
  /** The p99 at the fixed rate: within `times` the baseline's p99, or under `ms`. */
  p99: { times: number } | { ms: number } | null;
  /** What one operation is. */
  op: string;
}

const TARGETS: Record<string, Target> = {
  channels: { cpuRatio: 1.5, p99: { times: 3 }, op: 'request' },
  verification_check: { cpuRatio: 3, p99: { times: 3 }, op: 'check' },
  verification_start: { cpuRatio: 5, p99: null, op: 'verification' },
  transfers: { cpuRatio: 12, p99: { ms: 60 }, op: 'transfer' },
  webhook_fanout: { cpuRatio: 4, p99: { ms: 100 }, op: 'delivery' },
};

interface Result {
  scenario: string;
  measured_at?: string;
  rate_rps: number;
  unit?: string;
  p99_at_rate_ms: number | null;
  max_at_rate_ms: number | null;
  max_at_rate_offset_s?: number;
  baseline_at_rate: string;
  baseline_p99_at_rate_ms: number;
  generator_ok?: boolean;
  generator_p99_send_lag_ms: number;
  cpu_ms_per_request_at_rate?: Record<string, number>;
  cpu_ms_per_op?: number;
  bare_express_cpu_ms_per_request?: number;
  cpu_ratio?: number | null;
}

const mark = (ok: boolean) => (ok ? '✓' : '✗');

/** `gateway 0.2, postgres 0.1`: CPU per operation by process. */
const byProcessText = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(([process, ms]) => `${process} ${ms}`)
    .join(', ');

function row(name: string, target: Target): string {
  const r = JSON.parse(readFileSync(path.join(__dirname, 'results', `${name}.json`), 'utf8')) as Result;
  if (r.cpu_ms_per_op === undefined || r.cpu_ratio === undefined || r.cpu_ratio === null)
    return `| \`${name}\` | not measured by this bench's version | | | | | |`;
  const byProcess = byProcessText(r.cpu_ms_per_request_at_rate ?? {});
  const unit = r.unit ?? 'req/s';
  const cpu = `**${r.cpu_ms_per_op} ms** (${byProcess})`;
  const ratio = `**${r.cpu_ratio}** ${mark(r.cpu_ratio <= target.cpuRatio)} (≤ ${target.cpuRatio})`;
  let latency: string;
  if (r.generator_ok === false || r.p99_at_rate_ms === null) latency = `no result: the generator fell behind (p99 send lag ${r.generator_p99_send_lag_ms} ms)`;
  else {
    const p99 = r.p99_at_rate_ms;
    const goal = target.p99 === null ? null : 'ms' in target.p99 ? target.p99.ms : target.p99.times * r.baseline_p99_at_rate_ms;
    const goalText = target.p99 === null ? '' : ` ${mark(p99 <= goal!)} (${'ms' in target.p99! ? `< ${goal} ms` : `≤ ${target.p99!.times}× baseline`})`;
    latency = `**${p99} ms**${goalText}; ${r.baseline_at_rate} ${r.baseline_p99_at_rate_ms} ms; slowest ${r.max_at_rate_ms} ms at ${r.max_at_rate_offset_s ?? '?'} s`;
  }
  return `| \`${name}\` | ${r.rate_rps} ${unit} | ${cpu} | ${r.bare_express_cpu_ms_per_request} ms | ${ratio} | ${latency} | ${r.generator_ok === false ? 'no' : 'yes'} |`;
}

console.log(
  '| scenario | offered rate | CPU per operation, by process | bare express CPU per request at 1,000/s, same run | `cpu_ratio` (target) | p99 at the rate (target); its baseline; the slowest and when | generator kept its schedule |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [name, target] of Object.entries(TARGETS)) console.log(row(name, target));

/** The floor (scenario `queue_floor`): one queue hop with its reply and nothing else, at the rates of the scenarios that wait for a worker. */
interface FloorResult {
  floors?: Record<
    string,
    {
      rate_rps: number;
      cpu_ms_per_op: number;
      cpu_ms_per_request_at_rate: Record<string, number>;
      bare_express_cpu_ms_per_request: number;
      cpu_ratio: number | null;
    }
  >;
}

const floorFile = path.join(__dirname, 'results', 'queue_floor.json');
if (existsSync(floorFile)) {
  const { floors = {} } = JSON.parse(readFileSync(floorFile, 'utf8')) as FloorResult;
  const waiting: Record<string, string> = { '300': 'verification_start', '200': 'transfers' };
  console.log('');
  for (const floor of Object.values(floors).sort((a, b) => b.rate_rps - a.rate_rps)) {
    const scenario = waiting[String(floor.rate_rps)];
    const target = scenario ? TARGETS[scenario]?.cpuRatio : undefined;
    const byProcess = byProcessText(floor.cpu_ms_per_request_at_rate);
    console.log(
      `The floor at ${floor.rate_rps} req/s (\`queue_floor\`: express, a JSON body, one queue hop and its reply, nothing else): ` +
        `**${floor.cpu_ms_per_op} ms** (${byProcess}) against bare express's ${floor.bare_express_cpu_ms_per_request} ms: **${String(floor.cpu_ratio)}**` +
        (scenario && target !== undefined ? `, beside \`${scenario}\`'s target of ${target}.` : '.'),
    );
  }
}
