// Risk: the trial or the production deployment does not start, or starts
// unsafely, and the docs say otherwise: a compose file the compose spec
// refuses, a service or healthcheck missing from one file, a sandbox that
// needs something set first or ships a secret in the repository, a
// production file that accepts weak secrets or sandbox rails, an .env.example
// that misses a variable compose reads. (No Docker engine here: the files are
// parsed and linted, and the environment each gives the services is handed to
// the real configuration parser; the scripts the containers run are run.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { runCli } from '@cowrie/cli';
import { loadConfig, weakSecretReason } from '@cowrie/core';

const ROOT = path.join(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  user?: string;
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
  profiles?: string[];
  secrets?: string[];
}
const compose = (file: string) =>
  parse(read(file), { merge: true }) as {
    name: string;
    services: Record<string, Service>;
    volumes: Record<string, unknown>;
    secrets?: Record<string, { environment?: string }>;
  };
const PRODUCTION = compose('docker-compose.yml');
const SANDBOX = compose('docker-compose.sandbox.yml');
const SERVICES = ['gateway', 'payout-worker', 'verification-dispatcher', 'webhook-sender'];

/** The rows of the Markdown table in docs/docker.md whose header starts with `firstHeader`. */
function docTable(firstHeader: string): string[][] {
  const lines = read('docs/docker.md').split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${firstHeader} |`));
  expect(start).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim()),
    );
  }
  return rows;
}
const unquote = (cell: string) => cell.replace(/^`|`$/g, '');

function dclint(file: string) {
  const bin = path.join(ROOT, 'node_modules/.bin/dclint');
  return spawnSync(bin, [file, '--max-warnings', '0', '--color', 'false', '--config', path.join(ROOT, '.dclintrc.yml')], { cwd: ROOT, encoding: 'utf8' });
}

/** A service's environment as compose would pass it, `${VAR:-default}` and `${VAR:?message}` read from `given`; null when compose would refuse. */
function interpolated(environment: Record<string, string>, given: Record<string, string>): { env: Record<string, string>; refused: string[] } {
  const refused: string[] = [];
  const env = Object.fromEntries(
    Object.entries(environment).map(([key, value]) => [
      key,
      String(value).replace(/\$\{([A-Z_0-9]+)(?::([-?])([^}]*))?\}/g, (_all, name: string, kind?: string, rest?: string) => {
        const set = given[name];
        if (set) return set;
        if (kind === '?') refused.push(name);
        return kind === '-' ? (rest ?? '') : '';
      }),
    ]),
  );
  return { env, refused };
}

/** Runs the sandbox's real secrets script into a fresh directory; the file it wrote. */
function makeSandboxSecrets(): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'sandbox-secrets-')), 'secrets.env');
  const made = spawnSync(process.execPath, [path.join(ROOT, 'scripts/container/sandbox-secrets.mjs'), file], { encoding: 'utf8' });
  expect(made.status).toBe(0);
  return file;
}
const secretsOf = (file: string) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.split('=', 2) as [string, string]),
  );

describe('both compose files', () => {
  test.each(['docker-compose.yml', 'docker-compose.sandbox.yml'])('%s passes the compose-spec schema and dclint with no warning', (file) => {
    const result = dclint(path.join(ROOT, file));
    expect((result.stdout + result.stderr).trim()).toBe('');
    expect(result.status).toBe(0);
  });

  test('run the services, one-shots and healthchecks docs/docker.md lists, in separate projects', () => {
    expect(PRODUCTION.name).toBe('cowrie');
    expect(SANDBOX.name).toBe('cowrie-sandbox');
    const rows = docTable('service');
    for (const [file, parsed, column] of [
      ['docker-compose.yml', PRODUCTION, 3],
      ['docker-compose.sandbox.yml', SANDBOX, 4],
    ] as const) {
      const documented = rows.filter((r) => r[column] === 'yes').map((r) => unquote(r[0]!));
      expect({ file, services: Object.keys(parsed.services).sort() }).toEqual({ file, services: documented.sort() });
      for (const row of rows.filter((r) => r[column] === 'yes')) {
        const service = parsed.services[unquote(row[0]!)]!;
        const healthcheck = row[2]!;
        if (healthcheck === 'none (one-shot)') {
          expect(service.healthcheck).toEqual({ disable: true });
          // Nothing restarts a one-shot; the services wait for it to succeed.
          for (const name of SERVICES) expect(parsed.services[name]!.depends_on?.[unquote(row[0]!)]).toEqual({ condition: 'service_completed_successfully' });
        } else if (healthcheck === 'none') {
          // The monitoring profile's third-party images: started only with --profile monitoring.
          expect(service.healthcheck).toBeUndefined();
          expect(service.profiles).toEqual(['monitoring']);
        } else if (healthcheck.startsWith("the image's")) {
          // The Dockerfile's HEALTHCHECK: /healthz on HEALTHCHECK_PORT, else PORT.
          expect(service.healthcheck).toBeUndefined();
          expect(service.build).toBe('.');
          const port = /\((\d+)\)/.exec(healthcheck)![1];
          const env = service.environment!;
          expect(healthcheck.includes('HEALTHCHECK_PORT') ? env.HEALTHCHECK_PORT : env.PORT).toBe(port);
        } else {
          const command = unquote(healthcheck);
          expect(service.healthcheck?.test?.join(' ')).toContain(command);
        }
      }
    }
  });

  test('run the same compiled services; the sandbox through the launcher that loads its secrets', () => {
    for (const name of SERVICES) {
      expect(PRODUCTION.services[name]!.command).toEqual(['node', `services/${name}/dist/main.js`]);
      expect(SANDBOX.services[name]!.command).toEqual(['node', 'scripts/container/run.mjs', `services/${name}/dist/main.js`]);
      expect(SANDBOX.services[name]!.volumes).toEqual(['secrets:/var/lib/cowrie-sandbox:ro']);
      expect(SANDBOX.services[name]!.depends_on?.secrets).toEqual({ condition: 'service_completed_successfully' });
    }
    expect(SANDBOX.services.migrate!.command).toEqual(PRODUCTION.services.migrate!.command);
    expect(SANDBOX.services.secrets!.command).toEqual(['node', 'scripts/container/sandbox-secrets.mjs', '/var/lib/cowrie-sandbox/secrets.env']);
    expect(SANDBOX.services.gateway!.ports).toEqual(PRODUCTION.services.gateway!.ports);
  });

  test('set the variables docs/docker.md lists, and otherwise the same', () => {
    const rows = docTable('variable');
    for (const name of SERVICES) {
      const sandbox = SANDBOX.services[name]!.environment!;
      const production = PRODUCTION.services[name]!.environment!;
      for (const [variable, sandboxValue, productionText] of rows.map(([v, s, p]) => [unquote(v!), unquote(s!), p!])) {
        expect({ name, variable, value: sandbox[variable!] }).toEqual({ name, variable, value: sandboxValue });
        if (productionText!.startsWith('not set')) expect(production[variable!]).toBeUndefined();
        else if (productionText!.startsWith('from `.env`')) {
          const fallback = /default `([^`]+)`/.exec(productionText!)![1];
          expect(production[variable!]).toBe(`\${${variable}:-${fallback}}`);
        } else expect(production[variable!]).toBe(unquote(productionText!));
      }
      // Every other variable the sandbox sets, production sets alike.
      const documented = new Set(rows.map((r) => unquote(r[0]!)));
      for (const [variable, value] of Object.entries(sandbox)) {
        if (!documented.has(variable)) expect({ name, variable, value: production[variable] }).toEqual({ name, variable, value });
      }
    }
  });
});

describe('docker-compose.sandbox.yml', () => {
  test('needs nothing set and holds no secret: it reads no variable, and its services start on the secrets its first start makes', () => {
    expect(read('docker-compose.sandbox.yml')).not.toMatch(/\$\{/);
    expect(read('docker-compose.sandbox.yml')).not.toMatch(/JWT_SECRET:|ENCRYPTION_KEY:/);
    const file = makeSandboxSecrets();
    const secrets = secretsOf(file);
    expect(Object.keys(secrets).sort()).toEqual(['ENCRYPTION_KEY', 'JWT_SECRET']);
    for (const value of Object.values(secrets)) expect(weakSecretReason(value)).toBeNull();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const name of SERVICES) {
      const env = SANDBOX.services[name]!.environment!;
      // What run.mjs does before the service starts: the file's values under the environment's.
      const config = loadConfig({ ...secrets, ...env, COWRIE_SECRETS_FILE: file });
      expect(config).toMatchObject({ NODE_ENV: 'production', PAYOUT_RAIL: 'sandbox', COLLECTION_RAIL: 'sandbox', ALLOW_SANDBOX_IN_PRODUCTION: true });
      expect(config.JWT_SECRET).toBe(secrets.JWT_SECRET);
    }
  });

  test('keeps the secrets of its first start on every later start', () => {
    const file = makeSandboxSecrets();
    const first = readFileSync(file, 'utf8');
    const again = spawnSync(process.execPath, [path.join(ROOT, 'scripts/container/sandbox-secrets.mjs'), file], { encoding: 'utf8' });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/kept/);
    expect(readFileSync(file, 'utf8')).toBe(first);
    // A second sandbox makes its own.
    expect(secretsOf(makeSandboxSecrets()).JWT_SECRET).not.toBe(secretsOf(file).JWT_SECRET);
  });

  test("the launcher and the image's `cowrie` load the file under the environment, and stop clearly without it", () => {
    const file = makeSandboxSecrets();
    const dir = path.dirname(file);
    const probe = path.join(dir, 'probe.js');
    writeFileSync(probe, 'console.log(JSON.stringify({ argv: process.argv.slice(2), jwt: process.env.JWT_SECRET, key: process.env.ENCRYPTION_KEY }))');
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [path.join(ROOT, 'scripts/container/run.mjs'), probe, 'a', 'b'], {
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8',
      });
    const loaded = run({ COWRIE_SECRETS_FILE: file, ENCRYPTION_KEY: 'f'.repeat(64) });
    expect(JSON.parse(loaded.stdout)).toEqual({ argv: ['a', 'b'], jwt: secretsOf(file).JWT_SECRET, key: 'f'.repeat(64) });
    const missing = run({ COWRIE_SECRETS_FILE: path.join(dir, 'absent.env') });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/COWRIE_SECRETS_FILE: cannot read .*absent\.env/);
    const cowrie = spawnSync(process.execPath, [path.join(ROOT, 'scripts/container/cowrie.mjs'), '--version'], {
      env: { PATH: process.env.PATH, COWRIE_SECRETS_FILE: file },
      encoding: 'utf8',
    });
    expect(cowrie.status).toBe(0);
    expect(cowrie.stdout.trim()).toBe(JSON.parse(read('packages/cli/package.json')).version);
    expect(read('Dockerfile')).toMatch(/^RUN ln -s \/app\/scripts\/container\/cowrie\.mjs \/usr\/local\/bin\/cowrie$/m);
    expect(statSync(path.join(ROOT, 'scripts/container/cowrie.mjs')).mode & 0o111).not.toBe(0);
  });
});

describe('docker-compose.yml', () => {
  const strong = {
    JWT_SECRET: 'a3f9c2e8b7d14f6a9e0c5b8d2f7a1c4e6b9d0f3a5c8e1b4d7f0a2c5e8b1d4f7a',
    ENCRYPTION_KEY: '9c4e7a1f3b6d8e0a2c5f7b9d1e3a6c8f0b2d4e7a9c1f3b5d8e0a2c4f6b9d1e3a',
  };

  test('reads exactly the variables of .env.example, each with a comment above it', () => {
    const read_ = new Set([...read('docker-compose.yml').matchAll(/\$\{([A-Z_0-9]+)/g)].map((m) => m[1]!));
    const lines = read('.env.example').split('\n');
    const listed = lines.flatMap((line, i) => {
      const m = /^([A-Z_0-9]+)=/.exec(line);
      if (!m) return [];
      expect({ variable: m[1], commented: lines[i - 1]!.startsWith('# ') }).toEqual({ variable: m[1], commented: true });
      return [m[1]!];
    });
    expect(listed.sort()).toEqual([...read_].sort());
    // .env.example holds no secret value.
    expect(read('.env.example')).toMatch(/^JWT_SECRET=$/m);
    expect(read('.env.example')).toMatch(/^ENCRYPTION_KEY=$/m);
  });

  test('its monitoring profile reads the variables docs/docker.md lists for it, with the defaults it gives', () => {
    const rows = docTable('monitoring variable');
    const text = read('docker-compose.yml');
    // The profile's variables: what its services read, the secrets they mount, and the services' own METRICS_* and
    // OTEL_* (what the profile scrapes and where spans go).
    const profile = Object.values(PRODUCTION.services).filter((s) => s.profiles?.includes('monitoring'));
    const variables = new Set<string>();
    for (const service of profile) {
      for (const value of Object.values(service.environment ?? {})) for (const m of String(value).matchAll(/\$\{([A-Z_0-9]+)/g)) variables.add(m[1]!);
      for (const secret of service.secrets ?? []) variables.add(PRODUCTION.secrets![secret]!.environment!);
    }
    for (const name of SERVICES)
      for (const variable of Object.keys(PRODUCTION.services[name]!.environment!)) if (/^(METRICS|OTEL)_/.test(variable)) variables.add(variable);
    expect(variables).toContain('GRAFANA_ADMIN_PASSWORD');
    expect(variables).toContain('METRICS_TOKEN');
    expect(rows.map((r) => unquote(r[0]!)).sort()).toEqual([...variables].sort());
    for (const [cell, productionText] of rows) {
      const variable = unquote(cell!);
      // Every place compose reads it gives the default the table says ("no default": empty).
      const fallbacks = [...text.matchAll(new RegExp(`\\$\\{${variable}(?::-([^}]*))?\\}`, 'g'))].map((m) => m[1] ?? '');
      expect({ variable, read: fallbacks.length > 0 }).toEqual({ variable, read: true });
      expect(productionText).toMatch(/^from `\.env`, (default `[^`]+`|no default)/);
      const documented = /default `([^`]+)`/.exec(productionText!)?.[1] ?? '';
      for (const fallback of fallbacks) expect({ variable, fallback }).toEqual({ variable, fallback: documented });
    }
  });

  test('is refused by compose without JWT_SECRET or ENCRYPTION_KEY', () => {
    for (const name of SERVICES) {
      const { refused } = interpolated(PRODUCTION.services[name]!.environment!, {});
      expect(refused.sort()).toEqual(['ENCRYPTION_KEY', 'JWT_SECRET']);
    }
  });

  test('stops before anything starts when the configuration is one the services would refuse: its config-check one-shot', async () => {
    const check = PRODUCTION.services['config-check']!;
    expect(check.command).toEqual(['node', 'scripts/container/cowrie.mjs', 'config', 'check']);
    // The environment every service shares.
    expect(check.environment).toEqual(PRODUCTION.services.migrate!.environment);
    for (const name of ['migrate', ...SERVICES])
      expect(PRODUCTION.services[name]!.depends_on?.['config-check']).toEqual({ condition: 'service_completed_successfully' });
    const refused = await runCli(['config', 'check'], interpolated(check.environment!, strong).env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/PAYOUT_RAIL: is sandbox[\s\S]*COLLECTION_RAIL: is sandbox/);
    const weak = await runCli(
      ['config', 'check'],
      interpolated(check.environment!, { ...strong, ALLOW_SANDBOX_IN_PRODUCTION: 'true', ENCRYPTION_KEY: '0'.repeat(63) + '1' }).env,
    );
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/ENCRYPTION_KEY: is a value published/);
    const staging = await runCli(['config', 'check'], interpolated(check.environment!, { ...strong, ALLOW_SANDBOX_IN_PRODUCTION: 'true' }).env);
    expect(staging).toEqual({ code: 0, stdout: '{"ok":true,"node_env":"production"}', stderr: '' });
  });

  test('gives the services an environment they refuse with weak secrets, or with the sandbox rails unless the staging flag says so', () => {
    for (const name of SERVICES) {
      const environment = PRODUCTION.services[name]!.environment!;
      const weak = interpolated(environment, { JWT_SECRET: 'change-me-to-a-long-random-secret-of-32-chars-or-more', ENCRYPTION_KEY: strong.ENCRYPTION_KEY });
      expect(() => loadConfig(weak.env)).toThrow(/JWT_SECRET: is a value published/);
      // .env.example's defaults left as they are: sandbox rails, no flag.
      const sandboxRails = interpolated(environment, strong);
      expect(() => loadConfig(sandboxRails.env)).toThrow(/PAYOUT_RAIL: is sandbox[\s\S]*COLLECTION_RAIL: is sandbox/);
      const staging = interpolated(environment, { ...strong, ALLOW_SANDBOX_IN_PRODUCTION: 'true' });
      expect(loadConfig(staging.env)).toMatchObject({ NODE_ENV: 'production', PAYOUT_RAIL: 'sandbox' });
      // One Paystack key for both rails.
      const liveVariables = {
        ...strong,
        PAYOUT_RAIL: 'paystack',
        COLLECTION_RAIL: 'paystack',
        PAYSTACK_SECRET_KEY: 'sk_live_0123456789abcdef',
        VERIFY_SMS_PROVIDER: 'termii',
        VERIFY_TERMII_API_KEY: 'termii-key',
        VERIFY_EMAIL_PROVIDER: 'smtp',
        VERIFY_SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      };
      const live = interpolated(environment, liveVariables);
      expect(loadConfig(live.env)).toMatchObject({ PAYOUT_RAIL: 'paystack', COLLECTION_RAIL: 'paystack', ALLOW_SANDBOX_IN_PRODUCTION: false });
      // A separate Paystack business for payouts reaches the services too.
      const separate = interpolated(environment, { ...liveVariables, PAYOUT_PAYSTACK_SECRET_KEY: 'sk_live_payouts_fedcba9876543210' });
      expect(loadConfig(separate.env)).toMatchObject({
        PAYOUT_PAYSTACK_SECRET_KEY: 'sk_live_payouts_fedcba9876543210',
        PAYSTACK_SECRET_KEY: 'sk_live_0123456789abcdef',
      });
    }
  });
});
