// The references made from the code (`npm run docs:generate` writes them;
// packages/repository/test/docs-reference.test.ts fails when a file differs from
// what this makes):
//
// - docs/reference/configuration.md: every variable of @cowrie/core's config
//   schema, in its order, with its default and the comment above it there,
//   and the few variables the image's own scripts read.
// - docs/reference/errors.md: every error code of @cowrie/core's catalog with
//   its status, when it is sent and what the client does, and every `details.reason` the sources
//   give an AppError.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ERROR_CATALOG, SECRET_CONFIG_KEYS, ZConfig } from '@cowrie/core';

export const ROOT = path.resolve(__dirname, '../..');
const CONFIG_SOURCE = 'packages/core/src/config.ts';

/** Variables read outside the config schema, by the image's own scripts (scripts/container). */
const CONTAINER_VARIABLES: ReadonlyArray<{ name: string; default: string; meaning: string }> = [
  {
    name: 'HEALTHCHECK_PORT',
    default: 'PORT, else 3000',
    meaning: "the port the image's HEALTHCHECK asks for /healthz (a worker's metrics port; the gateway's PORT)",
  },
  {
    name: 'COWRIE_SECRETS_FILE',
    default: 'none',
    meaning:
      'a file of KEY=value lines loaded into the environment before a service or the `cowrie` command starts (variables already set win); docker-compose.sandbox.yml keeps its generated JWT_SECRET and ENCRYPTION_KEY there',
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
}

/** Every variable of the config schema, in its order. */
export function configVariables(): ConfigVariable[] {
  const comments = configComments();
  const secrets = new Set<string>(SECRET_CONFIG_KEYS);
  return Object.entries(configShape()).map(([name, schema]) => ({
    name,
    default: defaultOf(schema),
    choices: choicesOf(schema),
    secret: secrets.has(name),
    meaning: comments.get(name),
  }));
}

const cell = (text: string) => text.replace(/\|/g, '\\|');
const code = (text: string) => (text === '' ? '(empty)' : `\`${text}\``);

function configurationReference(): string {
  const variables = configVariables();
  const undescribed = variables.filter((v) => !v.meaning).map((v) => v.name);
  if (undescribed.length) throw new Error(`${CONFIG_SOURCE}: give each of these variables its own comment above it: ${undescribed.join(', ')}`);
  const rows = variables.map((v) => {
    const meaning = [v.meaning!, v.choices ? `One of ${v.choices.map(code).join(', ')}.` : '', v.secret ? 'A secret: never logged.' : '']
      .filter(Boolean)
      .join(' ');
    return `| \`${v.name}\` | ${v.default === null ? 'none' : code(v.default)} | ${cell(meaning)} |`;
  });
  const container = CONTAINER_VARIABLES.map((v) => `| \`${v.name}\` | ${v.default} | ${cell(v.meaning)} |`);
  return [
    '<!-- Made by `npm run docs:generate` from packages/core/src/config.ts: edit the comments there, not this file. -->',
    '',
    '# Configuration reference',
    '',
    `Every environment variable the gateway, the workers and the CLI read (${variables.length} of them), in the order of`,
    'the one schema that parses them (`packages/core/src/config.ts`), with its default and the comment written above it there. A bad value stops the',
    'process at start with a message naming the variable; an empty value counts as unset. What to set for a real deployment,',
    'and why: [configuration.md](../configuration.md) and [going-live.md](../going-live.md).',
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
    ...rows,
    '',
    '## Read by the image',
    '',
    "Not part of the schema: the container's own scripts (`scripts/container`) read these.",
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
    ...container,
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
    '`Retry-After` header), `limit` (the request budget), and `reference` (a verification whose code could not be delivered).',
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
