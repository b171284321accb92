import { runCli } from './run-cli';

runCli(process.argv.slice(2)).then(
  ({ code, stdout, stderr }) => {
    if (stdout) process.stdout.write(`${stdout}\n`);
    if (stderr) process.stderr.write(`${stderr}\n`);
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`cowrie: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
