// `npm run bench` runs every scenario; `npm run bench -- <scenario>` runs one.
// Each starts the processes it measures on a fresh database, prints its
// figures, and writes them to bench/results/<scenario>.json, with the peak RSS
// of every process it measured.
import { dropBenchDatabases, startBenchRedis, stopBenchRedis, takePeakRss, writeResult, type ScenarioResult } from './lib';
import { channels } from './scenarios/channels';
import { footprint, type FootprintResult } from './scenarios/footprint';
import { queueFloor, type QueueFloorResult } from './scenarios/queue-floor';
import { scaleOut } from './scenarios/scale-out';
import { transfers } from './scenarios/transfers';
import { verificationCheck } from './scenarios/verification-check';
import { verificationStart } from './scenarios/verification-start';
import { webhookFanout } from './scenarios/webhook-fanout';

const SCENARIOS: Record<string, () => Promise<ScenarioResult | FootprintResult>> = {
  footprint,
  channels,
  transfers,
  verification_start: verificationStart,
  verification_check: verificationCheck,
  webhook_fanout: webhookFanout,
  scale_out: scaleOut,
  queue_floor: queueFloor,
};

const isFootprint = (result: ScenarioResult | FootprintResult): result is FootprintResult => result.scenario === 'footprint';
const isQueueFloor = (result: ScenarioResult): result is QueueFloorResult => result.scenario === 'queue_floor';

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !SCENARIOS[w]);
  if (unknown.length) {
    console.error(`unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    process.exit(2);
  }
  const names = wanted.length ? wanted : Object.keys(SCENARIOS);
  // One private redis-server for the run: the Redis CPU each scenario reports is its own.
  await startBenchRedis();
  for (const name of names) {
    console.log(`\n▶ ${name}`);
    // A scenario's databases go once it is done, whether it succeeded or not.
    const result = await SCENARIOS[name]!().finally(dropBenchDatabases);
    const peak_rss_mb_by_process = takePeakRss();
    writeResult({ ...result, peak_rss_mb_by_process });
    if (isFootprint(result)) {
      const { cli_wall_ms: cli, idle_rss_mb: idle, production_tree_mb: tree } = result;
      console.log(`footprint: cowrie workspace create ${cli.npx_compiled} ms (npx), ${cli.node_compiled} ms (node), ${cli.tsx_sources} ms (tsx, sources)`);
      console.log(
        `footprint: idle RSS ${Object.entries(idle)
          .map(([process, rss]) => `${process} ${rss} MB`)
          .join(', ')}`,
      );
      console.log(`footprint: production tree ${tree.total} MB (node_modules ${tree.node_modules} MB, build output ${tree.build_output} MB)`);
      continue;
    }
    if (isQueueFloor(result)) {
      for (const floor of Object.values(result.floors)) {
        console.log(
          `queue_floor: at ${floor.rate_rps} req/s: CPU per request ${floor.cpu_ms_per_op} ms ${JSON.stringify(floor.cpu_ms_per_request_at_rate)}, ` +
            `bare express ${floor.bare_express_cpu_ms_per_request} ms per request, cpu_ratio ${String(floor.cpu_ratio)}; p50 ${floor.p50_at_rate_ms} ms, p99 ${floor.p99_at_rate_ms} ms`,
        );
      }
      continue;
    }
    const unit = typeof result.unit === 'string' ? result.unit : 'req/s';
    console.log(
      `${name}: ${result.rps} ${unit}, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, ` +
        `${result.baseline} ${result.baseline_rps} ${unit}, ratio ${result.ratio}, peak RSS ${result.peak_rss_mb} MB`,
    );
    if (typeof result.rate_rps === 'number') {
      console.log(
        `${name}: at ${result.rate_rps} ${unit} offered (open loop): ${String(result.achieved_rate_rps)} achieved, ` +
          `p50 ${String(result.p50_at_rate_ms)} ms, p99 ${String(result.p99_at_rate_ms)} ms, ${String(result.baseline_at_rate)} p99 ${String(result.baseline_p99_at_rate_ms)} ms at the same rate` +
          `; slowest ${String(result.max_at_rate_ms)} ms at ${String(result.max_at_rate_offset_s)} s; generator ${result.generator_ok ? 'kept its schedule' : 'fell behind: latencies invalid'}`,
      );
    }
    if (typeof result.cpu_ms_per_op === 'number') {
      console.log(
        `${name}: CPU per ${name === 'webhook_fanout' ? 'delivery' : 'operation'} ${result.cpu_ms_per_op} ms ${JSON.stringify(result.cpu_ms_per_request_at_rate)}, ` +
          `bare express ${String(result.bare_express_cpu_ms_per_request)} ms per request, cpu_ratio ${String(result.cpu_ratio)}`,
      );
    }
    console.log(
      `${name}: peak RSS by process ${Object.entries(peak_rss_mb_by_process)
        .map(([process, rss]) => `${process} ${rss} MB`)
        .join(', ')}`,
    );
  }
  await stopBenchRedis();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  void stopBenchRedis().finally(() => process.exit(1));
});
