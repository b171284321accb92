// `npm run bench` runs every scenario; `npm run bench -- <scenario>` runs one.
// Each starts the processes it measures on a fresh database, prints its
// figures, and writes them to bench/results/<scenario>.json.
import { writeResult, type ScenarioResult } from './lib';
import { channels } from './scenarios/channels';
import { scaleOut } from './scenarios/scale-out';
import { transfers } from './scenarios/transfers';
import { verificationCheck } from './scenarios/verification-check';
import { verificationStart } from './scenarios/verification-start';
import { webhookFanout } from './scenarios/webhook-fanout';

const SCENARIOS: Record<string, () => Promise<ScenarioResult>> = {
  channels,
  transfers,
  verification_start: verificationStart,
  verification_check: verificationCheck,
  webhook_fanout: webhookFanout,
  scale_out: scaleOut,
};

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !SCENARIOS[w]);
  if (unknown.length) {
    console.error(`unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    process.exit(2);
  }
  const names = wanted.length ? wanted : Object.keys(SCENARIOS);
  for (const name of names) {
    console.log(`\n▶ ${name}`);
    const result = await SCENARIOS[name]!();
    writeResult(result);
    const unit = typeof result.unit === 'string' ? result.unit : 'req/s';
    console.log(
      `${name}: ${result.rps} ${unit}, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, ` +
        `${result.baseline} ${result.baseline_rps} ${unit}, ratio ${result.ratio}, peak RSS ${result.peak_rss_mb} MB`,
    );
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
