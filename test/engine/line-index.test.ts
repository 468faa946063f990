// A line index derived from the previous version's must answer as one built from the new text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LineIndex } from '../../engine/model/source';

const piece = fc.oneof(fc.constantFrom('\n', '\r', '\r\n', 'a', 'bc', ' ', '\n\n'), fc.string({ maxLength: 4 }));
const long = fc.array(piece, { minLength: 100, maxLength: 300 }).map((pieces) => pieces.join(''));
// Long texts with and without `\r` (lines found by jumping from `\n` to `\n`).
const text = fc.oneof(
  fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join('')),
  long,
  long.map((source) => source.replace(/\r/g, '')),
);

/** Where each line starts, the plain way: after `\n`, `\r\n` or a lone `\r`. */
function lineStarts(source: string): number[] {
  const starts = [0];
  for (const match of source.matchAll(/\r\n|\r|\n/g)) starts.push((match.index ?? 0) + match[0].length);
  return starts;
}

describe('line index', () => {
  it('edited from the previous text equals a fresh index of the new one, at every offset', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat({ max: 8 }), text, (before, at, length, inserted) => {
        const start = at % (before.length + 1);
        const oldEnd = Math.min(before.length, start + length);
        const after = before.slice(0, start) + inserted + before.slice(oldEnd);
        const previous = new LineIndex(before);
        previous.positionAt(0); // the previous index has its line starts, as after a lookup
        const edited = previous.edited(after, start, oldEnd, start + inserted.length);
        const fresh = new LineIndex(after);
        assert.deepEqual(lineStarts(after).map((start) => fresh.positionAt(start).character), lineStarts(after).map(() => 0));
        assert.equal(fresh.lineCount, lineStarts(after).length);
        assert.equal(edited.lineCount, fresh.lineCount);
        for (let offset = 0; offset <= after.length; offset++) assert.deepEqual(edited.positionAt(offset), fresh.positionAt(offset));
      }),
      { numRuns: 500 },
    );
  });
});
