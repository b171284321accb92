// Risk: the signature check docs/receive-webhooks.md gives Python receivers
// does not accept what Cowrie sends, or accepts what it should refuse (a
// changed body, a stale timestamp, another secret). The Python block of the
// page is run with python3 against bodies signed by Cowrie's own signing code
// (what the webhook-sender uses), including a secret roll's two signatures.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { webhookSignatureHeader, ZRollWebhookSecretRequest } from '@cowrie/webhooks';

const ROOT = path.join(__dirname, '../../..');
const page = readFileSync(path.join(ROOT, 'docs/receive-webhooks.md'), 'utf8');

function block(marker: string, language: string): string {
  const match = new RegExp(`<!-- ${marker}[^>]*-->\\n\\n\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(page);
  if (!match) throw new Error(`docs/receive-webhooks.md has no ${language} block after <!-- ${marker} -->`);
  return match[1]!;
}

const SECRET = '3f1b9c0e7a2d4f6b8c1e3a5d7f9b2c4e6a8d0f1b3c5e7a9d2f4b6c8e0a1d3f5b';
const NEW_SECRET = 'c7e9a1b3d5f70819a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f3a5b7c9d1e3f5';
const BODY =
  '{"id":"5b0e6f1c-9d6a-4f0e-8d7e-1c2b3a4d5e6f","event":"transfer.completed","created_at":"2026-11-27T03:00:00.000Z","data":{"amount":"1500.000000","narration":"Naïra ✓"},"livemode":true}';
const T = 1795000000;

test('the Python receiver verifies what Cowrie signs and refuses everything else', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docs-webhooks-'));
  const script = path.join(dir, 'verify.py');
  // The page's function, then a driver reading each case as JSON lines.
  writeFileSync(
    script,
    `${block('docs-webhook-python', 'python')}
import json, sys
for line in sys.stdin:
    case = json.loads(line)
    print(json.dumps(verify_cowrie_signature(case["body"].encode("utf-8"), case["header"], case["secret"], 300, case["now"])))
`,
  );
  const cases = [
    { name: 'one secret', body: BODY, header: webhookSignatureHeader(SECRET, T, BODY), secret: SECRET, now: T + 10, expected: true },
    { name: 'a roll: the new secret', body: BODY, header: webhookSignatureHeader([NEW_SECRET, SECRET], T, BODY), secret: NEW_SECRET, now: T, expected: true },
    { name: 'a roll: the old secret', body: BODY, header: webhookSignatureHeader([NEW_SECRET, SECRET], T, BODY), secret: SECRET, now: T, expected: true },
    { name: 'another secret', body: BODY, header: webhookSignatureHeader(SECRET, T, BODY), secret: NEW_SECRET, now: T, expected: false },
    { name: 'a changed body', body: BODY.replace('1500', '9500'), header: webhookSignatureHeader(SECRET, T, BODY), secret: SECRET, now: T, expected: false },
    {
      name: 're-serialised JSON',
      body: JSON.stringify(JSON.parse(BODY), null, 1),
      header: webhookSignatureHeader(SECRET, T, BODY),
      secret: SECRET,
      now: T,
      expected: false,
    },
    { name: 'five minutes old', body: BODY, header: webhookSignatureHeader(SECRET, T, BODY), secret: SECRET, now: T + 300, expected: true },
    { name: 'older than five minutes', body: BODY, header: webhookSignatureHeader(SECRET, T, BODY), secret: SECRET, now: T + 301, expected: false },
    { name: 'from the future', body: BODY, header: webhookSignatureHeader(SECRET, T, BODY), secret: SECRET, now: T - 301, expected: false },
    { name: 'no timestamp', body: BODY, header: webhookSignatureHeader(SECRET, T, BODY).replace(/^t=\d+,/, ''), secret: SECRET, now: T, expected: false },
    { name: 'no digest', body: BODY, header: `t=${T}`, secret: SECRET, now: T, expected: false },
    { name: 'garbage', body: BODY, header: 'nonsense', secret: SECRET, now: T, expected: false },
  ];
  const result = spawnSync('python3', [script], { input: cases.map((c) => JSON.stringify(c)).join('\n') + '\n', encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const answers = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as boolean);
  expect(cases.map((c, i) => ({ case: c.name, verified: answers[i] }))).toEqual(cases.map((c) => ({ case: c.name, verified: c.expected })));
});

test('the page signs what the sender signs: the 64-hex secret as text over "<t>.<raw body>"', () => {
  // The Go block is not run here (no Go toolchain on the CI machines); it must at least use the same construction.
  const go = block('docs-webhook-go', 'go');
  expect(go).toMatch(/hmac\.New\(sha256\.New, \[\]byte\(secret\)\)/);
  expect(go).toMatch(/strconv\.FormatInt\(timestamp, 10\) \+ "\."/);
  expect(go).toMatch(/hmac\.Equal/);
  expect(page).toContain('`t=<unix seconds>,v1=<hex HMAC-SHA256>`');
});

test("the page gives a secret roll's grace period as the API does: its default, its limit, and 0", () => {
  const { grace_seconds: byDefault } = ZRollWebhookSecretRequest.parse({});
  const words: Record<number, string> = { 3600: 'an hour', [24 * 3600]: 'a day', [7 * 24 * 3600]: 'a week' };
  expect(words[byDefault]).toBeDefined();
  const roll = /Rolling the secret[\s\S]*?\n\n/.exec(page)?.[0].replace(/\s+/g, ' ');
  expect(roll).toContain(`for \`grace_seconds\` (default ${words[byDefault]}`);
  expect(ZRollWebhookSecretRequest.safeParse({ grace_seconds: 7 * 24 * 3600 + 1 }).success).toBe(false);
  expect(roll).toContain(`at most ${words[7 * 24 * 3600]}`);
  expect(roll).toContain('`0`');
});
