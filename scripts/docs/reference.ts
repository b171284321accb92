// The references made from the code (`npm run docs:generate` writes them;
// packages/repository/test/docs-reference.test.ts fails when a file differs from
// what this makes):
//
// - docs/reference/configuration.md: every variable of @cowrie/core's config
//   schema, in its order, with its default, what production asks of it (its
//   production default and the words of each CONFIG_RULES rule naming it) and
//   the comment above it there; then the variables read outside the schema
//   (OTHER_VARIABLES: tracing, the image's scripts, the tooling).
// - docs/reference/errors.md: every error code of @cowrie/core's catalog with
//   its status, when it is sent and what the client does, and every `details.reason` the sources
//   give an AppError.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { CONFIG_RULES, ERROR_CATALOG, SECRET_CONFIG_KEYS, ZConfig, configDefaults } from '@cowrie/core';

export const ROOT = path.resolve(__dirname, '../..');
const CONFIG_SOURCE = 'packages/core/src/config.ts';

/** A variable read outside the config schema; `production` says what production asks of it. */
interface OtherVariable {
  name: string;
  default: string;
  production: string;
  meaning: string;
}

/**
 * The variables read outside the config schema, by section: the test of
 * docs-reference.test.ts fails when a source reads one that no section lists.
 */
export const OTHER_VARIABLES: ReadonlyArray<{ heading: string; intro: string; variables: readonly OtherVariable[] }> = [
  {
    heading: 'Tracing (OpenTelemetry)',
    intro:
      "Read by every service before it starts (`packages/service-kit/src/tracing.ts`, `packages/core/src/queues/telemetry.ts`); OpenTelemetry's Node SDK reads the other standard `OTEL_*` variables itself (headers, sampler, resource attributes).",
    variables: [
      {
        name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
        default: 'none',
        production: 'optional; tracing is off without it',
        meaning:
          'where the services send their spans, OTLP over HTTP (the compose `monitoring` profile: http://otel-collector:4318); unset, tracing is off and no OpenTelemetry package is loaded',
      },
      {
        name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
        default: '`http/protobuf`',
        production: 'as elsewhere',
        meaning: 'read by the SDK: `http/protobuf` or `http/json`',
      },
      { name: 'OTEL_SDK_DISABLED', default: 'none', production: 'as elsewhere', meaning: '`true` turns tracing off even with an endpoint set' },
      {
        name: 'OTEL_SERVICE_NAME',
        default: "the service's own name",
        production: 'as elsewhere',
        meaning: '`service.name` of the spans: gateway, payout-worker, verification-dispatcher or webhook-sender unless this names another',
      },
      {
        name: 'OTEL_METRICS_EXPORTER',
        default: '`none`',
        production: 'as elsewhere',
        meaning: 'set to `none` when unset: metrics stay on Prometheus (`/metrics`), not exported over OTLP',
      },
      {
        name: 'OTEL_LOGS_EXPORTER',
        default: '`none`',
        production: 'as elsewhere',
        meaning: 'set to `none` when unset: logs stay on stdout, with `trace_id` and `span_id` on every line written in a span',
      },
    ],
  },
  {
    heading: 'Read by the image and the `cowrie` command',
    intro: "The container's own scripts (`scripts/container`) and the operator CLI read these.",
    variables: [
      {
        name: 'HEALTHCHECK_PORT',
        default: 'PORT, else 3000',
        production: 'as elsewhere',
        meaning: "the port the image's HEALTHCHECK asks for /healthz (a worker's metrics port; the gateway's PORT)",
      },
      {
        name: 'COWRIE_SECRETS_FILE',
        default: 'none',
        production: 'as elsewhere',
        meaning:
          'a file of KEY=value lines loaded into the environment before a service or the `cowrie` command starts (variables already set win); docker-compose.sandbox.yml keeps its generated JWT_SECRET and ENCRYPTION_KEY there',
      },
      {
        name: 'USER',
        default: "the process's user",
        production: 'as elsewhere',
        meaning: "the operator the `cowrie` command's audit trail names (`user@host`) when the process's user has no passwd entry (a container user)",
      },
    ],
  },
  {
    heading: 'Development and tests only',
    intro: "The repository's own tooling (`scripts/`, `@cowrie/testing`); no service reads these.",
    variables: [
      {
        name: 'JEST_MAX_WORKERS',
        default: '`1` under `npm test`',
        production: 'not read by the services',
        meaning: 'Jest workers per package under `npm test`',
      },
      { name: 'SOAK_SEED', default: '`1`', production: 'not read by the services', meaning: 'the seed of the short soaks `npm test` runs' },
      {
        name: 'COWRIE_TEST_TEMPLATE_URL',
        default: "set by the tests' global setup",
        production: 'not read by the services',
        meaning: 'the migrated template database each test file copies',
      },
      {
        name: 'PRISMA_SCHEMA_ENGINE_BINARY',
        default: 'the Node.js executable',
        production: 'not read by the services',
        meaning: "`npm install`'s offline `prisma generate`: any executable stops the Prisma CLI downloading a schema engine it does not need",
      },
    ],
  },
];

interface ZodInternals {
  _zod: { def: { type: string; in?: ZodInternals; innerType?: ZodInternals; defaultValue?: unknown; entries?: Record<string, string> } };
}

/** The object schema inside ZConfig (its transform and checks wrap it). */
function configShape(): Record<string, ZodInternals> {
  let schema = ZConfig as unknown as ZodInternals & { _zod: { def: { shape?: Record<string, ZodInternals> } } };
  while (schema._zod.def.type !== 'object') {
    const inner = schema._zod.def.in;
    if (!inner) throw new Error(`ZConfig: expected an object schema inside, found ${schema._zod.def.type}`);
    schema = inner as typeof schema;
  }
  return schema._zod.def.shape!;
}

/** A variable's default as it would be written in the environment, or null. */
function defaultOf(schema: ZodInternals): string | null {
  const def = schema._zod.def;
  if (def.type === 'default') {
    const value = def.defaultValue;
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
  if (def.type === 'pipe' && def.in) return defaultOf(def.in);
  return null;
}

/** The values an enum variable takes, or null. */
function choicesOf(schema: ZodInternals): string[] | null {
  const def = schema._zod.def;
  if (def.type === 'enum' && def.entries) return Object.values(def.entries);
  const inner = def.type === 'pipe' ? def.in : def.innerType;
  return inner ? choicesOf(inner) : null;
}

/** The comment lines directly above each property of the `z.object({...})` in config.ts, by variable name. */
export function configComments(source = readFileSync(path.join(ROOT, CONFIG_SOURCE), 'utf8')): Map<string, string> {
  const file = ts.createSourceFile(CONFIG_SOURCE, source, ts.ScriptTarget.Latest, true);
  let shape: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (shape) return;
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'object' &&
      node.expression.expression.getText(file) === 'z' &&
      node.arguments[0] &&
      ts.isObjectLiteralExpression(node.arguments[0]) &&
      node.arguments[0].properties.some((p) => p.name?.getText(file) === 'DATABASE_URL')
    ) {
      shape = node.arguments[0];
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!shape) throw new Error(`${CONFIG_SOURCE}: the config schema's z.object({...}) was not found`);
  const comments = new Map<string, string>();
  for (const property of shape.properties) {
    const name = property.name?.getText(file);
    if (!name) continue;
    const ranges = ts.getLeadingCommentRanges(source, property.getFullStart()) ?? [];
    const text = ranges
      .map((r) => source.slice(r.pos, r.end))
      .map((c) =>
        c
          .replace(/^\/\*\*?|\*\/$/g, '')
          .split('\n')
          .map((line) => line.replace(/^\s*(\/\/|\*)\s?/, '').trim())
          .join(' '),
      )
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (text) comments.set(name, text);
  }
  return comments;
}

export interface ConfigVariable {
  name: string;
  default: string | null;
  choices: string[] | null;
  secret: boolean;
  meaning: string | undefined;
  /** What production asks of it: its production default where that differs, and the words of every rule of CONFIG_RULES that names it. */
  production: string[];
}

/** A default as the environment would spell it. */
const spelled = (value: unknown) => (typeof value === 'string' ? value : Array.isArray(value) ? value.join(',') : JSON.stringify(value));

/** What production asks of a variable: its default there where it differs from development's, then each rule that names it, in CONFIG_RULES's order. */
function productionRules(name: string, development: Readonly<Record<string, unknown>>, production: Readonly<Record<string, unknown>>): string[] {
  const rules: string[] = [];
  if (JSON.stringify(development[name]) !== JSON.stringify(production[name]))
    rules.push(production[name] === undefined || production[name] === '' ? 'no default' : `default \`${spelled(production[name])}\``);
  for (const rule of CONFIG_RULES)
    if (rule.variables.includes(name)) rules.push(rule.applies === 'everywhere' ? `everywhere: ${rule.production}` : rule.production);
  // A rule that reads this variable to judge others: named, so the reader finds it.
  const mentioned = new RegExp(`\\b${name}\\b`);
  const judged = CONFIG_RULES.filter((rule) => !rule.variables.includes(name) && mentioned.test(rule.production)).flatMap((rule) => rule.variables);
  if (judged.length) rules.push(`decides the rule of ${[...new Set(judged)].map((v) => `\`${v}\``).join(', ')}`);
  return rules;
}

/** Every variable of the config schema, in its order. */
export function configVariables(): ConfigVariable[] {
  const comments = configComments();
  const secrets = new Set<string>(SECRET_CONFIG_KEYS);
  const [development, production] = [configDefaults('development'), configDefaults('production')];
  return Object.entries(configShape()).map(([name, schema]) => ({
    name,
    default: defaultOf(schema),
    choices: choicesOf(schema),
    secret: secrets.has(name),
    meaning: comments.get(name),
    production: productionRules(name, development, production),
  }));
}

const cell = (text: string) => text.replace(/\|/g, '\\|');
/** A comment as a sentence: its full stop added when it ends without one. */
const sentence = (text: string) => (/[.!?…]$/.test(text) ? text : `${text}.`);
const code = (text: string) => (text === '' ? '(empty)' : `\`${text}\``);

function configurationReference(): string {
  const variables = configVariables();
  const undescribed = variables.filter((v) => !v.meaning).map((v) => v.name);
  if (undescribed.length) throw new Error(`${CONFIG_SOURCE}: give each of these variables its own comment above it: ${undescribed.join(', ')}`);
  const rows = variables.map((v) => {
    const meaning = [sentence(v.meaning!), v.choices ? `One of ${v.choices.map(code).join(', ')}.` : '', v.secret ? 'A secret: never logged.' : '']
      .filter(Boolean)
      .join(' ');
    // NODE_ENV is the switch itself: its `production` is what turns this column on.
    const production = v.name === 'NODE_ENV' ? '`production` turns on every rule of this column' : v.production.join('; ') || 'as elsewhere';
    return `| \`${v.name}\` | ${v.default === null ? 'none' : code(v.default)} | ${cell(production)} | ${cell(meaning)} |`;
  });
  const others = OTHER_VARIABLES.flatMap((section) => [
    '',
    `## ${section.heading}`,
    '',
    section.intro,
    '',
    '| variable | default | in production | meaning |',
    '|---|---|---|---|',
    ...section.variables.map((v) => `| \`${v.name}\` | ${v.default} | ${cell(v.production)} | ${cell(sentence(v.meaning))} |`),
  ]);
  return [
    '<!-- Made by `npm run docs:generate` from packages/core/src/config.ts: edit the comments there, not this file. -->',
    '',
    '# Configuration reference',
    '',
    'Every environment variable Cowrie reads. The gateway, the workers and the CLI parse',
    `${variables.length} of them with one schema (\`packages/core/src/config.ts\`), listed first in its order, each with its default and the comment written above it there; the sections after it list the few read elsewhere. A bad value stops the`,
    'process at start with a message naming the variable; an empty value counts as unset. "In production" is what production',
    "(`NODE_ENV=production`) asks of the variable: its default there where it differs, and each rule of the schema's checks",
    '(`CONFIG_RULES`) that names it, marked "everywhere:" where the rule holds outside production too; "as elsewhere" where none does.',
    'What to set for a real deployment, and why: [configuration.md](../configuration.md) and [going-live.md](../going-live.md).',
    '',
    '| variable | default | in production | meaning |',
    '|---|---|---|---|',
    ...rows,
    ...others,
    '',
  ].join('\n');
}

interface ReasonUse {
  code: string;
  reason: string;
  status: number | null;
  files: Set<string>;
}

/** TypeScript sources of the packages and services, tests and generated code left out. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'dist', 'generated', 'test'].includes(entry.name)) walk(full);
      } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) files.push(full);
    }
  };
  for (const group of ['apps', 'packages', 'services']) {
    for (const name of readdirSync(path.join(ROOT, group))) {
      const src = path.join(ROOT, group, name, 'src');
      try {
        walk(src);
      } catch {
        // a workspace without src/
      }
    }
  }
  return files.sort();
}

function objectProperty(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const p of object.properties) if (ts.isPropertyAssignment(p) && p.name.getText() === name) return p.initializer;
  return undefined;
}

/** Every `new AppError(code, message, { details: { reason }, status? })` of the sources whose code is written out (a reason that is not is shown as its expression). */
export function errorReasons(): ReasonUse[] {
  const uses = new Map<string, ReasonUse>();
  for (const full of sourceFiles()) {
    const text = readFileSync(full, 'utf8');
    if (!text.includes('AppError(')) continue;
    const relative = path.relative(ROOT, full).split(path.sep).join('/');
    const file = ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText(file) === 'AppError' && node.arguments?.[0] && ts.isStringLiteral(node.arguments[0])) {
        const options = node.arguments[2];
        if (options && ts.isObjectLiteralExpression(options)) {
          const details = objectProperty(options, 'details');
          const reason = details && ts.isObjectLiteralExpression(details) ? objectProperty(details, 'reason') : undefined;
          if (reason) {
            const status = objectProperty(options, 'status');
            const use = {
              code: node.arguments[0].text,
              reason: ts.isStringLiteralLike(reason) ? reason.text : `computed: ${reason.getText(file)}`,
              status: status && ts.isNumericLiteral(status) ? Number(status.text) : null,
            };
            const key = `${use.code} ${use.reason} ${use.status}`;
            const known = uses.get(key) ?? { ...use, files: new Set<string>() };
            known.files.add(relative);
            uses.set(key, known);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return [...uses.values()].sort((a, b) => a.code.localeCompare(b.code) || a.reason.localeCompare(b.reason) || (a.status ?? 0) - (b.status ?? 0));
}

function errorsReference(): string {
  const catalog: Record<string, { status: number; otherStatuses?: readonly number[]; when: string; clientAction: string }> = ERROR_CATALOG;
  const codes = Object.entries(catalog).map(
    ([name, entry]) => `| \`${name}\` | ${[entry.status, ...(entry.otherStatuses ?? [])].join(', ')} | ${cell(entry.when)} | ${cell(entry.clientAction)} |`,
  );
  const reasons = errorReasons().map((r) => {
    const status = r.status ?? catalog[r.code]!.status;
    const reason = r.reason.startsWith('computed: ') ? `(${r.reason.replace(/: (.*)$/, ': `$1`')}, see the source)` : `\`${r.reason}\``;
    return `| \`${r.code}\` | ${status} | ${reason} | ${[...r.files].map((f) => `\`${f}\``).join(', ')} |`;
  });
  return [
    '<!-- Made by `npm run docs:generate` from packages/core/src/errors.ts and the sources: edit those, not this file. -->',
    '',
    '# Errors reference',
    '',
    'Every error answer has one shape, `{"error": {"code", "message", "details"?}, "request_id"}`, and a `code` from a closed',
    'set (`ERROR_CATALOG` in `packages/core/src/errors.ts`): a client branches on the code (and on `details.reason` where',
    'there is one), never on the message, which is for people and may be reworded. Bad input is always a 4xx; a 500 is a bug.',
    '',
    '| code | HTTP status | when it is sent | what the client does |',
    '|---|---|---|---|',
    ...codes,
    '',
    '## `details.reason`',
    '',
    'Where one code covers several situations a client handles differently, `error.details.reason` says which. Every',
    'reason the sources write out, with the code and status it comes with and where it is raised:',
    '',
    '| code | status | `details.reason` | raised in |',
    '|---|---|---|---|',
    ...reasons,
    '',
    'Other `details` keys: `field` (the request field a 400 is about), `retry_after_seconds` (a 429, with the',
    '`Retry-After` header), `limit` (the limit a 429 met: the request budget, or the one its `details.reason` names), and',
    '`reference` (a verification whose code could not be delivered).',
    '',
  ].join('\n');
}

/** Each generated Markdown file, by its path from the repository's root. */
export const MARKDOWN_REFERENCES: ReadonlyArray<{ file: string; make: () => string }> = [
  { file: 'docs/reference/configuration.md', make: configurationReference },
  { file: 'docs/reference/errors.md', make: errorsReference },
];

/** The static API reference: Redocly's page of the API document. */
export const API_REFERENCE = {
  file: 'docs/api/index.html',
  command: (output: string) => [
    path.join(ROOT, 'node_modules/.bin/redocly'),
    'build-docs',
    'packages/sdk/openapi.json',
    '--config',
    'redocly.yaml',
    '--title',
    'Cowrie API reference',
    '-o',
    output,
  ],
};
