// Risk: a crafted `cursor` whose id Postgres cannot hold (an int4 id above
// 2147483647, a negative one) reaching a list's query and answered as a 500,
// where every other bad cursor is a 400; or the audit trail, whose ids are
// bigint, refusing its own cursors once its ids pass int4.
import { AppError } from '../src/errors';
import { decodePageCursor, encodePageCursor } from '../src/page-cursor';

const INT4_MAX = 2_147_483_647;
const crafted = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('not refused');
};

test('a cursor this endpoint gave reads back as its position', () => {
  const position = { createdAt: new Date('2025-03-04T05:06:07.089Z'), id: 42 };
  expect(decodePageCursor(encodePageCursor(position))).toEqual(position);
  expect(decodePageCursor(encodePageCursor({ ...position, id: INT4_MAX }))).toEqual({ ...position, id: INT4_MAX });
});

test.each([
  ['an int4 id one past the largest', [1795841345524, INT4_MAX + 1]],
  ['a huge safe id', [1795841345524, Number.MAX_SAFE_INTEGER]],
  ['a negative id', [1795841345524, -1]],
  ['an id below int4', [1795841345524, -2_147_483_649]],
  ['a fractional id', [1795841345524, 1.5]],
  ['not a list', { id: 1 }],
  ['not JSON', 'not-a-cursor'],
])('%s is 400 invalid_request on the cursor field', (_, value) => {
  const cursor = typeof value === 'string' ? value : crafted(value);
  const error = refusal(() => decodePageCursor(cursor));
  expect(error).toBeInstanceOf(AppError);
  expect(error).toMatchObject({ code: 'invalid_request', details: { field: 'cursor' } });
});

test('a list of bigint ids (the audit trail) allows ids past int4 up to its own maximum, never negative ones', () => {
  const bigId = { maxId: Number.MAX_SAFE_INTEGER };
  expect(decodePageCursor(crafted([1795841345524, INT4_MAX + 1]), bigId)).toEqual({ createdAt: new Date(1795841345524), id: INT4_MAX + 1 });
  expect(decodePageCursor(crafted([1795841345524, Number.MAX_SAFE_INTEGER]), bigId).id).toBe(Number.MAX_SAFE_INTEGER);
  expect(refusal(() => decodePageCursor(crafted([1795841345524, -1]), bigId))).toMatchObject({ code: 'invalid_request', details: { field: 'cursor' } });
  expect(refusal(() => decodePageCursor(crafted([1795841345524, 2 ** 53]), bigId))).toMatchObject({ code: 'invalid_request' });
});
