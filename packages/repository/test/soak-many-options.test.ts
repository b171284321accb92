// Risk: `npm run soak:many` refusing an option the soak itself takes (it did
// with `--rails`: "Unknown option"), so the long run of the failover rails, or
// of any option added to the soak later, cannot be run at all.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { SOAK_OPTIONS } from '../../../soak/options';

const ROOT = path.join(__dirname, '../../..');

/** soak:many with `args` and an empty seed range: it parses every option, then stops at the range before running any soak. */
function soakManyParsing(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'soak/many.ts', '--seeds', '2-1', ...args], { cwd: ROOT, encoding: 'utf8' });
}

test('soak:many takes every option of the soak but the two it sets per seed (--seed, --report)', () => {
  const given = Object.entries(SOAK_OPTIONS)
    .filter(([name]) => name !== 'seed' && name !== 'report')
    .flatMap(([name, option]) => (option.type === 'boolean' ? [`--${name}`] : [`--${name}`, name === 'rails' ? 'paystack,flutterwave' : '1']));
  expect(given).toEqual(expect.arrayContaining(['--rails', 'paystack,flutterwave', '--keep-database']));
  const out = soakManyParsing(given);
  expect(out.stderr).not.toMatch(/ERR_PARSE_ARGS|Unknown option/);
  expect(out.stderr).toMatch(/^usage: npm run soak:many -- --seeds <first>-<last> .*--rails/m);
  expect(out.status).toBe(2);
});

test('soak:many still refuses an option the soak does not have', () => {
  const out = soakManyParsing(['--rials', 'paystack']);
  expect(out.stderr).toMatch(/Unknown option '--rials'/);
  expect(out.status).not.toBe(0);
});
