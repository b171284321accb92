import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WALLET_CURRENCIES } from '@cowrie/core';
import { DEFAULT_CHANNELS, loadChannelCatalog } from '../src/channels';
import { WALLET_CATALOG } from '../src/currencies';

test('no override gives the shipped defaults', () => {
  expect(loadChannelCatalog({})).toEqual(DEFAULT_CHANNELS);
});

test('a file override applies, and the env override wins over it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'channels-'));
  const file = path.join(dir, 'channels.json');
  writeFileSync(file, JSON.stringify({ card: { status: 'live' }, open_banking: { status: 'live' } }));
  const catalog = loadChannelCatalog({ CHANNELS_FILE: file, CHANNELS_OVERRIDE: '{"card":{"status":"coming_soon"}}' });
  expect(catalog.find((c) => c.id === 'card')!.status).toBe('coming_soon');
  expect(catalog.find((c) => c.id === 'open_banking')!.status).toBe('live');
});

test.each([
  ['an unknown channel', '{"crypto":{"status":"live"}}'],
  ['an unknown status', '{"card":{"status":"beta"}}'],
  ['an unknown field', '{"card":{"enabled":true}}'],
  // Money paid into a channel in a currency no wallet holds could never be credited.
  ['a currency not in the wallet catalog', '{"collection_va":{"currencies":["NGN","GHS"]}}'],
])('%s stops start-up', (_name, override) => {
  expect(() => loadChannelCatalog({ CHANNELS_OVERRIDE: override })).toThrow(/CHANNELS_OVERRIDE/);
});

test('a channel file the gateway cannot read stops start-up, naming the variable', () => {
  expect(() => loadChannelCatalog({ CHANNELS_FILE: '/nonexistent/channels.json' })).toThrow(/CHANNELS_FILE: cannot be read \(ENOENT/);
});

test('the override is checked against the wallet catalog itself, and every shipped channel takes wallet currencies', () => {
  expect(WALLET_CATALOG.map((c) => c.currency)).toEqual([...WALLET_CURRENCIES]);
  for (const channel of DEFAULT_CHANNELS) for (const currency of channel.currencies) expect(WALLET_CURRENCIES).toContain(currency);
  const eur = loadChannelCatalog({ CHANNELS_OVERRIDE: '{"reserved_va":{"currencies":["ngn","eur"]}}' });
  expect(eur.find((c) => c.id === 'reserved_va')!.currencies).toEqual(['NGN', 'EUR']);
});
