// Risk: an operator asking for help and getting an error, help on stderr or a
// non-zero exit (scripts and `| less` lose it), a command missing from the
// help or its options undocumented, help that needs a database, a wrong
// --version, or an unknown command that looks like success.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { runCli } from '../src';
import { COMMANDS } from '../src/commands';
import { version } from '../package.json';

// No database and no Redis are reachable here: help and --version touch neither.
const NOTHING = { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' };
const cli = (...argv: string[]) => runCli(argv, NOTHING);
const BIN = path.resolve(__dirname, '../bin/cowrie.js');

test.each([['--help'], ['-h'], ['help']])('`cowrie %s` lists every command with one line each, on stdout, exit 0', async (flag) => {
  const out = await cli(flag);
  expect(out).toMatchObject({ code: 0, stderr: '' });
  for (const command of COMMANDS) expect(out.stdout).toMatch(new RegExp(`^  ${command.name} +\\S.*$`, 'm'));
  expect(out.stdout).toMatch(/--pretty/);
  expect(out.stdout).toMatch(/--version/);
});

describe.each(COMMANDS.map((c) => [c.name, c] as const))('cowrie %s', (name, command) => {
  test.each([['--help'], ['-h']])('%s prints its usage and every option on stdout, exit 0, without a database', async (flag) => {
    const out = await cli(...name.split(' '), flag);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout.startsWith(`usage: cowrie ${name}`)).toBe(true);
    for (const option of command.options) expect(out.stdout).toContain(`--${option.name}`);
    for (const required of command.options.filter((o) => o.required)) expect(out.stdout.split('\n')[0]).toContain(`--${required.name} `);
    expect(out.stdout).toMatch(/--pretty/);
  });

  test('--help wins over missing or unknown options, and `cowrie help <command>` says the same', async () => {
    const usage = (await cli(...name.split(' '), '--help')).stdout;
    expect(await cli(...name.split(' '), '--no-such-option', '--help')).toMatchObject({ code: 0, stdout: usage });
    expect(await cli('help', ...name.split(' '))).toMatchObject({ code: 0, stdout: usage });
  });
});

test('a group word with --help lists its commands (cowrie sandbox --help); alone it is a usage mistake', async () => {
  const help = await cli('sandbox', '--help');
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('sandbox transfer-in');
  expect(help.stdout).toContain('sandbox messages');
  expect(await cli('help', 'sandbox')).toEqual(help);
  const alone = await cli('sandbox');
  expect(alone).toMatchObject({ code: 2, stdout: '' });
  expect(alone.stderr).toMatch(/"sandbox" needs one of: .*sandbox transfer-in/);
});

test('--version prints the package version', async () => {
  expect(await cli('--version')).toEqual({ code: 0, stdout: version, stderr: '' });
});

test.each([[['nonsense']], [['workspace', 'delete']], [['help', 'nonsense']], [['--verbose']]])(
  '%j is an unknown command: stderr, exit 2, nothing on stdout',
  async (argv) => {
    const out = await cli(...argv);
    expect(out).toMatchObject({ code: 2, stdout: '' });
    expect(out.stderr).toMatch(/^cowrie: unknown command/);
  },
);

test('no command at all is a usage mistake: the list on stderr, exit 2', async () => {
  const out = await cli();
  expect(out).toMatchObject({ code: 2, stdout: '' });
  expect(out.stderr).toMatch(/workspace create/);
});

test('the installed bin: --help, -h, <command> --help and --version on stdout with exit 0; an unknown command exits 2', () => {
  const run = (...argv: string[]) => spawnSync(process.execPath, [BIN, ...argv], { env: { ...process.env, ...NOTHING }, encoding: 'utf8' });
  for (const argv of [['--help'], ['-h'], ['ledger', 'audit', '--help'], ['sandbox', 'transfer-in', '-h']]) {
    const out = run(...argv);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^usage: cowrie /);
  }
  const v = run('--version');
  expect(v.status).toBe(0);
  expect(v.stdout.trim()).toBe(version);
  const bad = run('nonsense');
  expect(bad.status).toBe(2);
  expect(bad.stdout).toBe('');
  expect(bad.stderr).toMatch(/unknown command "nonsense"/);
});
