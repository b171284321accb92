// Risk: a dashboard password that only the command line can carry (visible in
// `ps` and shell history), a password read wrongly from a pipe (a trailing
// newline kept, so the user cannot sign in), echoed on a terminal or printed,
// a command that hangs on a pipe waiting for a prompt nobody sees, or the
// deprecated --password breaking the scripts that still use it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { checkDashboardCredentials } from '@cowrie/accounts';
import { rememberSecret, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { runCli, type CliIo } from '../src';

let env: TestEnv;
let cliEnv: Record<string, string>;
let workspaceId: string;
beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, NODE_ENV: 'test' };
  workspaceId = String(JSON.parse((await runCli(['workspace', 'create', '--name', 'Passwords'], cliEnv)).stdout).id);
});
afterAll(() => env.cleanup());

const PASSWORD = 'a long passphrase with spaces ';
rememberSecret(PASSWORD);
const BIN = path.resolve(__dirname, '../bin/cowrie.js');
let n = 0;
const nextEmail = () => `ops-${++n}@example.com`;
const piped = (text: string): CliIo['stdin'] => Readable.from([Buffer.from(text)]);
const create = (email: string, extra: string[], io?: Partial<CliIo>) =>
  runCli(['user', 'create', '--workspace', workspaceId, '--email', email, ...extra], cliEnv, io);
const signsIn = async (email: string, password: string) => (await checkDashboardCredentials(env.db, email, password)) !== null;

test('--password-stdin reads the password from stdin, less one trailing newline; the user signs in with it', async () => {
  const email = nextEmail();
  const out = await create(email, ['--password-stdin'], { stdin: piped(`${PASSWORD}\n`) });
  expect(out).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(out.stdout)).toMatchObject({ id: expect.any(Number), email, workspace_id: Number(workspaceId) });
  expect(out.stdout).not.toContain(PASSWORD.trim());
  expect(await signsIn(email, PASSWORD)).toBe(true);
  expect(await signsIn(email, `${PASSWORD}\n`)).toBe(false);
});

test('the installed bin: the password comes through a pipe, never argv', async () => {
  const email = nextEmail();
  const argv = [BIN, 'user', 'create', '--workspace', workspaceId, '--email', email, '--password-stdin'];
  const out = spawnSync(process.execPath, argv, { env: { ...process.env, ...cliEnv }, input: PASSWORD, encoding: 'utf8' });
  expect(out.status).toBe(0);
  expect(argv.join(' ')).not.toContain(PASSWORD.trim());
  expect(JSON.parse(out.stdout.trim())).toMatchObject({ email });
  expect(out.stdout + out.stderr).not.toContain(PASSWORD.trim());
  expect(await signsIn(email, PASSWORD)).toBe(true);
});

test('--password still works for old scripts: the same JSON on stdout, a deprecation warning on stderr', async () => {
  const email = nextEmail();
  const out = await create(email, ['--password', PASSWORD]);
  expect(out.code).toBe(0);
  expect(JSON.parse(out.stdout)).toMatchObject({ id: expect.any(Number), email, workspace_id: Number(workspaceId) });
  expect(out.stderr).toMatch(/^cowrie: warning: --password is deprecated.*--password-stdin/);
  expect(out.stderr).not.toContain(PASSWORD.trim());
  expect(await signsIn(email, PASSWORD)).toBe(true);
});

test('no password flag and stdin not a terminal: a clear error at once, no prompt, no user', async () => {
  const email = nextEmail();
  const prompt = collect();
  const out = await create(email, [], { stdin: piped(PASSWORD), prompt: prompt.stream });
  expect(out).toMatchObject({ code: 2, stdout: '' });
  expect(out.stderr).toMatch(/no password: pipe it with --password-stdin/);
  expect(prompt.text()).toBe('');
  expect(await env.db.dashboardUser.count({ where: { email } })).toBe(0);

  const bin = spawnSync(process.execPath, [BIN, 'user', 'create', '--workspace', workspaceId, '--email', email], {
    env: { ...process.env, ...cliEnv },
    input: '',
    encoding: 'utf8',
  });
  expect(bin.status).toBe(2);
  expect(bin.stderr).toMatch(/--password-stdin/);
});

test.each([
  [['--password-stdin'], '', /stdin was empty/, 2],
  [['--password-stdin'], 'elevenchars\n', /password must be at least 12 characters/, 1],
  [['--password-stdin'], 'qwerty123456\n', /password is too common/, 1],
  [['--password-stdin', '--password', 'another long one'], PASSWORD, /give one/, 2],
])('%j with stdin %j fails clearly', async (extra, stdin, message, code) => {
  const email = nextEmail();
  const out = await create(email, extra, { stdin: piped(stdin) });
  expect(out).toMatchObject({ code, stdout: '' });
  expect(out.stderr).toMatch(message);
  expect(await env.db.dashboardUser.count({ where: { email } })).toBe(0);
});

test('on a terminal the password is asked twice without echo; the prompt goes to stderr, never the password', async () => {
  const email = nextEmail();
  const terminal = terminalStandIn([PASSWORD, PASSWORD]);
  const out = await create(email, [], terminal.io);
  expect(out).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(out.stdout)).toMatchObject({ email });
  expect(terminal.shown()).toBe('Password: \nPassword again: \n');
  expect(await signsIn(email, PASSWORD)).toBe(true);
  expect(terminal.rawModes).toEqual([true, false]);
});

test('two different answers at the prompt: no user', async () => {
  const email = nextEmail();
  const out = await create(email, [], terminalStandIn([PASSWORD, `${PASSWORD}x`]).io);
  expect(out).toMatchObject({ code: 2, stdout: '' });
  expect(out.stderr).toMatch(/the two passwords differ/);
  expect(await env.db.dashboardUser.count({ where: { email } })).toBe(0);
});

function collect() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * A terminal: stdin that says it is a TTY and takes raw mode, and a screen
 * that types the next answer (and Enter) when a prompt appears on it.
 */
function terminalStandIn(answers: string[]) {
  const rawModes: boolean[] = [];
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (raw: boolean) => rawModes.push(raw),
  });
  let shown = '';
  const screen = new Writable({
    write(chunk, _encoding, done) {
      const text = String(chunk);
      shown += text;
      if (text.startsWith('Password') && answers.length) stdin.write(`${answers.shift()}\r`);
      done();
    },
  });
  return { io: { stdin, prompt: screen }, shown: () => shown, rawModes };
}
