import { CliFinding, positiveIntArg, type CliCommand } from '../command';

export const secretCommands: CliCommand[] = [
  {
    name: 'secrets reseal',
    summary: 'after an ENCRYPTION_KEY rotation, re-encrypts every sealed value in Postgres under the new key',
    details: [
      'Run with ENCRYPTION_KEY (the new key) and ENCRYPTION_KEY_PREVIOUS (the old one) once every service',
      'runs with both. What the previous key sealed (webhook endpoint secrets, TOTP secrets, stored',
      'answers that hold a secret) is sealed again under ENCRYPTION_KEY; counts per column. Each row is',
      'its own write: stop it at any point and run it again (done rows count as current). Exits 1 while',
      'any value is unreadable (opened by neither key): keep the previous key until none is.',
    ].join('\n'),
    options: [{ name: 'batch', value: 'N', help: 'rows read per query (default 200)' }],
    run: async (args, ctx) => {
      const batchSize = args.batch === undefined ? 200 : positiveIntArg(args, 'batch');
      const { resealSecrets } = await import('../load/db');
      const columns = await resealSecrets(await ctx.db(), { encryptionKey: ctx.config.ENCRYPTION_KEY, batchSize });
      const total = { resealed: 0, current: 0, unreadable: 0, changed: 0 };
      for (const counts of Object.values(columns)) {
        for (const key of Object.keys(total) as Array<keyof typeof total>) total[key] += counts[key];
      }
      const output = { previous_key: ctx.config.ENCRYPTION_KEY_PREVIOUS !== undefined, ...total, columns };
      return total.unreadable > 0 ? new CliFinding(output, 1) : output;
    },
  },
];
