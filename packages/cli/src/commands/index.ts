import type { CliCommand } from '../command';
import { accountCommands } from './accounts';
import { walletCommands } from './wallets';

/** Every `cowrie` command; each domain adds its own list here. */
export const COMMANDS: CliCommand[] = [...accountCommands, ...walletCommands];
