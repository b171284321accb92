import type { CliCommand } from '../command';
import { accountCommands } from './accounts';
import { verificationCommands } from './verification';
import { depositCommands } from './deposits';

/** Every `cowrie` command; each domain adds its own list here. */
export const COMMANDS: CliCommand[] = [...accountCommands, ...verificationCommands, ...depositCommands];
