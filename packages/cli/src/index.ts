export { runCli, type CliResult } from './run-cli';
export type { CliCommand, CliContext, CliIo } from './command';
