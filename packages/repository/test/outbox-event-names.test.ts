// Risk: a statement that writes outbox rows in SQL (the plain-pg hot paths)
// names its event with a literal that is not in the webhook events' catalog
// (@cowrie/events), so the event is delivered under a name the API document,
// GET /webhook-event-types and the endpoints' subscriptions do not know. The
// statements take the name as a parameter (typed by `EmittedEvent`, or a
// catalog constant) or from their input rows; a literal must be in the catalog.
// Their column list is OUTBOX_EVENT_COLUMNS (@cowrie/db), read here as its text.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { OUTBOX_EVENT_COLUMNS } from '@cowrie/db';
import { isWebhookEventName } from '@cowrie/events';

const ROOT = path.join(__dirname, '../../..');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const file = path.join(dir, entry);
    if (entry === 'node_modules' || entry === 'generated' || entry === 'dist') return [];
    if (statSync(file).isDirectory()) return sourcesUnder(file);
    return file.endsWith('.ts') && !file.endsWith('.test.ts') ? [file] : [];
  });
}

const roots = ['packages', 'services'].flatMap((top) => readdirSync(path.join(ROOT, top)).map((name) => path.join(ROOT, top, name, 'src')));
const sources = roots.flatMap((dir) => {
  try {
    return sourcesUnder(dir);
  } catch {
    return [];
  }
});

/** The expressions of a SELECT or VALUES list, split at the commas outside parentheses. */
function expressions(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of list) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
    } else current += ch;
  }
  out.push(current.trim());
  return out;
}

test('every outbox row a SQL statement inserts is named by a parameter, a column, or a literal of the catalog', () => {
  const inserts: { file: string; event: string }[] = [];
  for (const file of sources) {
    const text = readFileSync(file, 'utf8').replaceAll('${OUTBOX_EVENT_COLUMNS}', OUTBOX_EVENT_COLUMNS);
    for (const m of text.matchAll(/INSERT INTO "OutboxEvent"\s*\(([^)]*)\)\s*(?:SELECT|VALUES\s*\()\s*([\s\S]*?)(?:\sFROM\s|\)\s*$|`)/gm)) {
      const columns = m[1]!.split(',').map((c) => c.trim().replace(/"/g, ''));
      const values = expressions(m[2]!);
      inserts.push({ file: path.relative(ROOT, file), event: values[columns.indexOf('event')] ?? '' });
    }
  }
  // The ledger's close and reversal, the verification checks, the sender's endpoint switch-off.
  expect(inserts.length).toBeGreaterThanOrEqual(5);
  const wrong = inserts.filter(({ event }) => {
    const literal = /^'([^']*)'$/.exec(event);
    if (literal) return !isWebhookEventName(literal[1]!);
    return !/^\$\{p\.\w+\}$/.test(event) && !/^(\w+\.)?"event"$/.test(event);
  });
  expect(wrong).toEqual([]);
});
