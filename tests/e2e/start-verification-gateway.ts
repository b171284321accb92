import { startVerificationWorker } from '@cowrie/verification-dispatcher';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { startTestGateway } from '@cowrie/gateway/testing';

/** A test gateway plus the verification-dispatcher consuming its queue in-process. */
export async function startVerificationGateway(envOverrides: Record<string, string> = {}) {
  const gw = await startTestGateway(envOverrides);
  const dispatcher = await startVerificationWorker(gw.env.config, gw.env.logger);
  return {
    ...gw,
    dispatcher,
    /** Messages the sandbox provider "sent" to a normalised destination, newest first. */
    sandboxMessages: (destination: string) => readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), destination),
    async close() {
      await dispatcher.stop();
      await gw.close();
    },
  };
}
