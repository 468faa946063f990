// A row store must read as the plain rows it stands for: sequences of the joins an outline update
// makes (the rows before a point, new rows, the rows after another point with their fields moved),
// on rows long enough to stay pieces and short enough to be merged, compared with plain arrays.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RowStore } from '../../../language-server/syntax/row-store';

const STRIDE = 3;
/** A number of a row: mostly an index or offset, sometimes -1 (absent), which no shift moves. */
const value = fc.oneof(fc.nat({ max: 100_000 }), fc.constant(-1));
const rows = (minRows: number, maxRows: number) => fc.array(value, { minLength: minRows * STRIDE, maxLength: maxRows * STRIDE, size: 'max' }).map((numbers) => numbers.slice(0, numbers.length - (numbers.length % STRIDE)));
const splice = fc.record({
  cut: fc.nat(),
  keep: fc.nat(),
  inserted: rows(0, 40),
  shifts: fc.array(fc.integer({ min: -50, max: 50 }), { minLength: STRIDE, maxLength: STRIDE }),
});

/** The plain rows of `rows` with rows `[cut, keepFrom)` replaced by `inserted` and the rows after moved by `shifts`. */
function spliced(plain: readonly number[], cut: number, keepFrom: number, inserted: readonly number[], shifts: readonly number[]): number[] {
  const after = plain.slice(keepFrom * STRIDE).map((n, k) => (n === -1 ? -1 : n + (shifts[k % STRIDE] as number)));
  return [...plain.slice(0, cut * STRIDE), ...inserted, ...after];
}

describe('row store', () => {
  it('reads as plain rows after every splice of random splice sequences', () => {
    fc.assert(
      fc.property(fc.oneof(rows(0, 50), rows(2000, 6000)), fc.array(splice, { minLength: 1, maxLength: 30 }), (initial, splices) => {
        let plain = initial;
        let store = RowStore.of(Int32Array.from(initial), STRIDE);
        for (const { cut, keep, inserted, shifts } of splices) {
          const count = plain.length / STRIDE;
          const from = cut % (count + 1);
          const keepFrom = from + (keep % (count - from + 1));
          // Shifts that would move a number below zero are not what an update makes.
          const moves = plain.slice(keepFrom * STRIDE).some((n, k) => n !== -1 && n + (shifts[k % STRIDE] as number) < 0) ? [0, 0, 0] : shifts;
          store = RowStore.join(STRIDE, [...store.slice(0, from), { data: Int32Array.from(inserted), from: 0, to: inserted.length, shifts: undefined }, ...store.slice(keepFrom, count, moves)]);
          plain = spliced(plain, from, keepFrom, inserted, moves);
          assert.equal(store.length, plain.length);
          assert.deepEqual(Array.from(store.copy()), plain);
          // Reads out of order, as a binary search makes them.
          for (let k = plain.length - 1; k >= 0; k -= 97) assert.equal(store.at(k), plain[k]);
        }
      }),
      { numRuns: 60 },
    );
  });
});
