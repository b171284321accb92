import { UsageError, type CliCommand } from '../command';

export const verificationCommands: CliCommand[] = [
  {
    name: 'sandbox messages',
    summary:
      'the last codes (and, to an email, dashboard password reset and invitation links) the sandbox "sent" to a phone or email, newest first (in production test mode\'s only)',
    // What the sandbox provider "sent" to a destination, newest first: how a
    // developer reads a code locally without a real phone or mailbox. In
    // production only test mode's messages are shown.
    options: [{ name: 'destination', value: 'PHONE_OR_EMAIL', help: 'a phone number (+234…) or an email', required: true }],
    run: async (args, ctx) => {
      const { normaliseEmail, normalisePhone, readSandboxMessages, sandboxOutbox } = await import('../load/verification');
      const raw = args.destination!;
      const normalised = raw.includes('@') ? normaliseEmail(raw) : normalisePhone(raw);
      if (normalised.kind === 'invalid') throw new UsageError(`--destination ${normalised.message}`);
      const messages = await readSandboxMessages(
        sandboxOutbox(await ctx.redis(), ctx.config),
        normalised.destination,
        ctx.config.NODE_ENV === 'production' ? 'test' : undefined,
      );
      return { destination: normalised.destination, messages };
    },
  },
];
