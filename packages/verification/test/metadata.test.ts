// Risk: a verification's `metadata` given as a number the gateway's exact JSON
// reading keeps as a JsonNumberText (`1e400`, 20 digits) taken for an object
// and stored, where `123` is refused; or an object refused.
import { JsonNumberText } from '@cowrie/core';
import { METADATA_MAX_KEYS, metadataProblem } from '../src/metadata';

test('a number, exact (JsonNumberText) or not, a string, an array or a boolean is not an object', () => {
  for (const value of [123, new JsonNumberText('1e400'), new JsonNumberText('12345678901234567890'), 'x', [1, 2], true]) {
    expect([value, metadataProblem(value)]).toEqual([value, 'must be an object']);
  }
});

test('an object is fine up to its limits, whatever its prototype says', () => {
  expect(metadataProblem({ order: 'A-1', nested: { n: 1 } })).toBeNull();
  expect(metadataProblem(Object.assign(Object.create(null) as object, { order: 'A-1' }))).toBeNull();
  expect(metadataProblem(JSON.parse('{"__proto__":{"x":1}}'))).toBeNull();
  expect(metadataProblem(Object.fromEntries(Array.from({ length: METADATA_MAX_KEYS + 1 }, (_, i) => [`k${i}`, i])))).toBe(
    `must have at most ${METADATA_MAX_KEYS} keys`,
  );
});
