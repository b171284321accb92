// Risk: a deployment that does not start, or starts unsafely: a compose file
// the compose spec refuses, an image that runs the sources or runs as root,
// a service with no healthcheck, a healthcheck that says healthy when the
// service does not answer. (No Docker engine here: the files are checked, and
// the pieces they run are run.)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

function dclint(file: string) {
  const bin = path.join(ROOT, 'node_modules/.bin/dclint');
  return spawnSync(bin, [file, '--max-warnings', '0', '--color', 'false', '--config', path.join(ROOT, '.dclintrc.yml')], { cwd: ROOT, encoding: 'utf8' });
}

describe('docker-compose.yml', () => {
  test('passes the compose-spec schema and dclint with no error or warning', () => {
    const result = dclint(path.join(ROOT, 'docker-compose.yml'));
    expect((result.stdout + result.stderr).trim()).toBe('');
    expect(result.status).toBe(0);
  });

  test('the check does refuse what the compose spec refuses', () => {
    const broken = path.join(mkdtempSync(path.join(os.tmpdir(), 'compose-')), 'docker-compose.yml');
    writeFileSync(broken, read('docker-compose.yml').replace('  redis:\n', '  redis:\n    restart_policy: sometimes\n'));
    const result = dclint(broken);
    expect(result.status).not.toBe(0);
    expect(result.stdout).toMatch(/invalid-schema/);
    expect(result.stdout).toMatch(/instancePath=\\?"\/services\/redis\\?"/);
  });

  test('every service runs compiled output with a healthcheck, after the one-shot migration', () => {
    const compose = read('docker-compose.yml');
    expect(compose).not.toMatch(/tsx|src\/main\.ts/);
    for (const service of ['gateway', 'payout-worker', 'verification-dispatcher', 'webhook-sender']) {
      expect(compose).toContain(`command: ['node', 'services/${service}/dist/main.js']`);
    }
    // Workers answer /healthz on their metrics port; HEALTHCHECK_PORT points the image's check at it.
    for (const [setting, port] of [
      ['PAYOUT_WORKER_METRICS_PORT', '9101'],
      ['VERIFICATION_WORKER_METRICS_PORT', '9102'],
      ['WEBHOOK_WORKER_METRICS_PORT', '9103'],
    ]) {
      expect(compose).toContain(`${setting}: '${port}'\n      HEALTHCHECK_PORT: '${port}'`);
    }
    expect(compose).toMatch(
      /migrate:\n(.*\n)*?\s+command: \['node', '--experimental-wasm-modules', '--no-warnings', 'packages\/db\/migrate\/cli\.mjs', 'apply'\]/,
    );
    expect(compose.match(/condition: service_completed_successfully/g)?.length).toBeGreaterThanOrEqual(2);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;

  test('builds in one stage and runs in another that holds only the production tree', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]).toMatch(/npm run build/);
    expect(stages[0]).toMatch(/node scripts\/build\/production-tree\.mjs \/app/);
    expect(runtime).toMatch(/^COPY --from=build \/app \/app$/m);
    expect(runtime.match(/^COPY /gm)).toHaveLength(1);
    expect(runtime).not.toMatch(/npm (install|ci)|tsx/);
  });

  test('runs a maintained Node LTS as the unprivileged node user, with a HEALTHCHECK and the compiled gateway', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(dockerfile);
    // Even majors are the LTS lines; 22 and 24 are maintained in 2026 (20 left support in April 2026).
    expect(Number(image?.[1])).toBeGreaterThanOrEqual(22);
    expect(Number(image?.[1]) % 2).toBe(0);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*CMD \["node", "scripts\/container\/healthcheck\.mjs"\]$/m);
    expect(runtime).toMatch(/^CMD \["node", "services\/gateway\/dist\/main\.js"\]$/m);
  });
});

describe('the container healthcheck', () => {
  // Asynchronous: the server it asks lives in this process.
  const healthcheck = (env: Record<string, string>) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'scripts/container/healthcheck.mjs')], {
        env: { PATH: process.env.PATH, ...env },
        stdio: 'ignore',
      });
      child.on('exit', (code) => resolve(code));
    });

  test('is healthy only while /healthz answers 200 on the named port', async () => {
    let status = 200;
    const server = http.createServer((req, res) => {
      res.writeHead(req.url === '/healthz' ? status : 404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = String((server.address() as AddressInfo).port);
    try {
      expect(await healthcheck({ HEALTHCHECK_PORT: port })).toBe(0);
      expect(await healthcheck({ PORT: port })).toBe(0);
      status = 503;
      expect(await healthcheck({ HEALTHCHECK_PORT: port })).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // Nothing listening any more.
    expect(await healthcheck({ HEALTHCHECK_PORT: port })).toBe(1);
  });
});
