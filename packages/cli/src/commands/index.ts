import type { CliCommand } from '../command';
import { accountCommands } from './accounts';
import { verificationCommands } from './verification';
import { depositCommands } from './deposits';
import { walletCommands } from './wallets';
import { configCommands } from './config';
import { secretCommands } from './secrets';
import { railCommands } from './rails';

/** Every `cowrie` command; each domain adds its own list here. */
export const COMMANDS: CliCommand[] = [
  ...accountCommands,
  ...walletCommands,
  ...verificationCommands,
  ...depositCommands,
  ...configCommands,
  ...secretCommands,
  ...railCommands,
];
