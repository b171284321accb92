// Risk: the compose `monitoring` profile watching nothing: a dashboard panel or
// alert rule on a metric no service exports (renamed, or never made), a
// service Prometheus does not scrape, an alert an operator pages on missing, or
// the profile's services starting with a plain `docker compose up`. (No Docker
// engine here: the files are read and checked against the metrics registry;
// dclint checks the compose file in deployment.test.ts.)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { createMetrics } from '@cowrie/metrics';

const ROOT = path.join(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Compose {
  services: Record<string, { profiles?: string[]; environment?: Record<string, string>; volumes?: string[]; secrets?: string[] }>;
  secrets?: Record<string, { environment?: string }>;
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
const prometheus = parse(read('deploy/monitoring/prometheus.yml')) as {
  rule_files: string[];
  scrape_configs: Array<{
    job_name: string;
    authorization?: { credentials_file: string };
    static_configs?: Array<{ targets: string[] }>;
    dns_sd_configs?: Array<{ names: string[]; type: string; port: number }>;
  }>;
};
const alerts = parse(read('deploy/monitoring/alerts.yml')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> };
const dashboard = JSON.parse(read('deploy/monitoring/grafana/dashboards/cowrie.json')) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};
const rules = alerts.groups.flatMap((g) => g.rules);

/** Every family a Cowrie service exports, with the process and Node.js defaults. */
async function exportedFamilies(): Promise<Set<string>> {
  const text = await createMetrics({ service: 'gateway' }).registry.metrics();
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
}

/** The Cowrie, process and Node.js metrics an expression reads, by family (a histogram's _bucket, _count, _sum are its family). */
const familiesIn = (expr: string) => [...expr.matchAll(/\b((?:cowrie|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''));

test('every metric a dashboard panel or alert rule reads is one the services export', async () => {
  const families = await exportedFamilies();
  const read = [...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...rules.map((r) => r.expr)].flatMap(familiesIn);
  expect(read.length).toBeGreaterThan(10);
  expect(read.filter((f) => !families.has(f))).toEqual([]);
});

test('the dashboard has the panels an operator needs, and the rules the alerts they page on', () => {
  const titles = dashboard.panels.map((p) => p.title);
  for (const title of [
    'Requests by route',
    'Latency by route (p95)',
    'Payouts by outcome',
    'Oldest processing payout',
    'Queue depth',
    'Webhook success by endpoint',
    'Verification conversion',
  ]) {
    expect(titles).toContain(title);
  }
  const names = rules.map((r) => r.alert);
  for (const alert of [
    'CowriePayoutProcessingPastGrace',
    'CowrieWebhookEndpointFailing',
    'CowrieQueueBacklog',
    'CowrieServiceDown',
    'CowriePostgresDown',
    'CowrieRedisDown',
    'CowrieLedgerAuditViolations',
    'CowrieLedgerAuditorFailing',
    'CowriePayoutFoundLate',
    'CowriePayoutLostByRail',
  ]) {
    expect(names).toContain(alert);
  }
  expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
});

test('Prometheus scrapes every replica of every Cowrie service on the port compose gives it, with the metrics token', () => {
  const cowrie = prometheus.scrape_configs.find((s) => s.job_name === 'cowrie')!;
  const targets = cowrie.dns_sd_configs!.flatMap((c) => c.names.map((name) => `${name}:${c.port}`));
  expect(cowrie.dns_sd_configs!.every((c) => c.type === 'A')).toBe(true);
  expect(targets).toContain(`gateway:${compose.services.gateway!.environment!.PORT}`);
  for (const worker of ['payout-worker', 'verification-dispatcher', 'webhook-sender']) {
    const env = compose.services[worker]!.environment!;
    const port = Object.entries(env).find(([k]) => k.endsWith('_METRICS_PORT'))![1];
    expect(targets).toContain(`${worker}:${port}`);
  }
  expect(cowrie.authorization!.credentials_file).toBe('/run/secrets/metrics_token');
  expect(compose.services.prometheus!.secrets).toContain('metrics_token');
  expect(compose.secrets!.metrics_token!.environment).toBe('METRICS_TOKEN');
  // The dependencies are scraped through their exporters, which the profile runs.
  for (const job of ['postgres', 'redis']) {
    const host = prometheus.scrape_configs.find((s) => s.job_name === job)!.static_configs![0]!.targets[0]!.split(':')[0]!;
    expect(compose.services[host]?.profiles).toEqual(['monitoring']);
  }
});

test('the monitoring services start only with --profile monitoring, and mount files that exist', () => {
  const monitoring = ['otel-collector', 'jaeger', 'prometheus', 'postgres-exporter', 'redis-exporter', 'grafana'];
  for (const name of monitoring) expect(compose.services[name]?.profiles).toEqual(['monitoring']);
  for (const [name, service] of Object.entries(compose.services)) {
    if (!monitoring.includes(name)) expect(service.profiles).toBeUndefined();
    for (const volume of service.volumes ?? []) {
      const source = volume.split(':')[0]!;
      if (source.startsWith('./')) expect(existsSync(path.join(ROOT, source))).toBe(true);
    }
  }
  // The services send their spans to the collector when OTEL_EXPORTER_OTLP_ENDPOINT points at it; off by default.
  expect(read('deploy/monitoring/otel-collector.yaml')).toMatch(/endpoint: 0\.0\.0\.0:4318/);
  expect(compose.services.gateway!.environment!.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT:-}');
});
