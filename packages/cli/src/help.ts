import type { CliCommand, CliOption } from './command';

/** Options every command takes, besides its own. */
const COMMON_OPTIONS: CliOption[] = [
  { name: 'pretty', help: 'indented JSON, for people (the default is one line, for scripts)' },
  { name: 'help', help: 'this help' },
];

const flagOf = (o: CliOption) => (o.name === 'help' ? '-h, --help' : `--${o.name}${o.value ? ` ${o.value}` : ''}`);

/** Two columns, the second aligned. */
function table(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
}

export function usageLine(command: CliCommand): string {
  const shown = command.options.filter((o) => !o.deprecated);
  const words = shown.map((o) => (o.required ? flagOf(o) : `[${flagOf(o)}]`));
  return ['cowrie', command.name, ...words].join(' ');
}

/** `cowrie --help`: every command, one line each. */
export function toolHelp(commands: CliCommand[]): string {
  return [
    'usage: cowrie <command> [options]',
    '',
    "Cowrie's operator commands. Each prints one JSON object on stdout and exits 0, or",
    '`cowrie: <what is wrong>` on stderr and exits non-zero (2 for a usage mistake).',
    'They read DATABASE_URL and REDIS_URL, as the services do.',
    '',
    'commands:',
    ...table(commands.map((c) => [c.name, c.summary])),
    '',
    'options:',
    ...table([
      ['--pretty', 'indented JSON, for people (every command)'],
      ['-h, --help', 'this help; `cowrie <command> --help` for a command and its options'],
      ['--version', "the CLI's version"],
    ]),
  ].join('\n');
}

/** `cowrie <command> --help`: its usage and every option. */
export function commandHelp(command: CliCommand): string {
  const options = [...command.options, ...COMMON_OPTIONS];
  return [
    `usage: ${usageLine(command)}`,
    '',
    `${command.summary}.`,
    ...(command.details ? ['', command.details] : []),
    '',
    'options:',
    ...table(options.map((o) => [flagOf(o), `${o.help}${o.required ? ' (required)' : ''}`])),
  ].join('\n');
}

/** `cowrie sandbox --help`: the commands that start with that word. */
export function groupHelp(word: string, commands: CliCommand[]): string {
  return [
    ...commands.map((c) => `usage: ${usageLine(c)}`),
    '',
    'commands:',
    ...table(commands.map((c) => [c.name, c.summary])),
    '',
    `\`cowrie ${word} <command> --help\` for a command and its options.`,
  ].join('\n');
}
