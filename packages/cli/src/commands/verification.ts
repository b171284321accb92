import { normaliseEmail, normalisePhone, readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { UsageError, type CliCommand } from '../command';

export const verificationCommands: CliCommand[] = [
  {
    name: 'sandbox messages',
    usage: 'cowrie sandbox messages --destination PHONE_OR_EMAIL',
    options: ['destination'],
    required: ['destination'],
    // What the sandbox provider "sent" to a destination, newest first: how a
    // developer reads a code locally without a real phone or mailbox. In
    // production only test mode's messages are shown.
    run: async (args, ctx) => {
      const raw = args.destination!;
      const normalised = raw.includes('@') ? normaliseEmail(raw) : normalisePhone(raw);
      if (normalised.kind === 'invalid') throw new UsageError(`--destination ${normalised.message}`);
      const messages = await readSandboxMessages(
        sandboxOutbox(ctx.redis(), ctx.config),
        normalised.destination,
        ctx.config.NODE_ENV === 'production' ? 'test' : undefined,
      );
      return { destination: normalised.destination, messages };
    },
  },
];
