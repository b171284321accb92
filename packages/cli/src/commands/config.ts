import type { CliCommand } from '../command';

export const configCommands: CliCommand[] = [
  {
    name: 'config check',
    summary: 'checks the configuration the services would start with; exits 1 naming each bad variable',
    details: [
      'Reads the environment exactly as the gateway and the workers do (weak or published secrets and',
      "sandbox rails refused in production, each variable's own rules) and touches no database and no",
      'Redis. docker-compose.yml runs it before the migrations, so a bad configuration stops',
      '`docker compose up` once, naming the variables, instead of the services restarting in a loop.',
      'A deprecated variable that is set (PAYOUT_PAYSTACK_BASE_URL, ...) is named in a warning on stderr, as the',
      'services log it at start-up; it still works, and the check passes.',
    ].join('\n'),
    options: [],
    // The configuration was parsed before the command ran: reaching here means it is valid.
    run: async (_args, ctx) => {
      const { configDeprecations } = await import('../load/config');
      for (const deprecation of configDeprecations(ctx.config)) ctx.warn(deprecation.message);
      return { ok: true, node_env: ctx.config.NODE_ENV };
    },
  },
];
