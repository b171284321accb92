import { Writable } from 'node:stream';
import { UsageError, type CliContext, type CliIo } from './command';

/**
 * A new password for `user create`, never from argv: `--password-stdin` reads
 * it from stdin, otherwise a terminal is asked for it twice without echo.
 * `--password P` still works for the scripts that use it, with a warning:
 * argv is visible to every user of the machine (ps, /proc) and kept in
 * shell history.
 */
export async function readNewPassword(args: Record<string, string>, ctx: Pick<CliContext, 'io' | 'warn'>): Promise<string> {
  const fromStdin = args['password-stdin'] !== undefined;
  if (args.password !== undefined) {
    if (fromStdin) throw new UsageError('--password and --password-stdin: give one');
    ctx.warn('--password is deprecated (the password shows in the process list and shell history); use --password-stdin or the prompt');
    return args.password;
  }
  if (fromStdin) {
    const password = await readAll(ctx.io.stdin);
    if (!password) throw new UsageError('--password-stdin: stdin was empty');
    return password;
  }
  if (!ctx.io.stdin.isTTY) {
    throw new UsageError('no password: pipe it with --password-stdin (stdin is not a terminal, so there is no prompt)');
  }
  const [password, again] = await promptHidden(ctx.io, ['Password: ', 'Password again: ']);
  if (!password) throw new UsageError('no password given');
  if (again !== password) throw new UsageError('the two passwords differ');
  return password;
}

/** Everything on the stream, less one trailing newline (`echo` and most files end with one). */
async function readAll(stream: CliIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * Lines typed on a terminal, one per label, not echoed: readline reads the
 * keys in raw mode (line editing, Ctrl-C) and echoes them to a stream that
 * drops them. Lines typed ahead of a prompt wait for it.
 */
async function promptHidden(io: CliIo, labels: string[]): Promise<string[]> {
  const { createInterface } = await import('node:readline');
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: io.stdin, output: discard, terminal: true });
  let cancelled = false;
  rl.on('SIGINT', () => {
    cancelled = true;
    rl.close();
  });
  const lines = rl[Symbol.asyncIterator]();
  const answers: string[] = [];
  try {
    for (const label of labels) {
      io.prompt.write(label);
      const line = await lines.next();
      io.prompt.write('\n');
      if (line.done) throw new UsageError(cancelled ? 'cancelled at the password prompt' : 'no password given (end of input)');
      answers.push(line.value);
    }
    return answers;
  } finally {
    rl.close();
  }
}
