// The incremental outline must be indistinguishable from a fresh one: random edit sequences on the
// real example pipelines, each step's updated outline compared with buildOutline of the same text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { updateOutline } from '../../../language-server/syntax/incremental-outline';
import type { Outline } from '../../../language-server/syntax/outline';
import { buildOutline } from '../../../language-server/syntax/outline';

const examples = path.resolve(__dirname, '../../../examples');
const texts = fs
  .readdirSync(examples)
  .filter((f) => f.endsWith('.dot'))
  .map((f) => fs.readFileSync(path.join(examples, f), 'utf8'));
// What typing produces: openers and closers of every lexical kind, statement punctuation, keywords.
const fragments = ['[', ']', '"', '->', '--', '{', '}', '=', ';', ',', ':', 'shape', 'condition="outcome=', ' ', '\n', 'a', 'a.b', '-', '.5', '/*', '*/', '//', '#', '<', '>', '\\', '\r\n', 'subgraph', 'node [', 'digraph', '"x\n'];
const insertion = fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 6 }));
const edit = fc.record({ at: fc.nat(), length: fc.oneof(fc.constant(0), fc.nat({ max: 12 }), fc.nat({ max: 400 })), text: fc.oneof(insertion, fc.constant('')) });

function applyEdit(outline: Outline, at: number, length: number, inserted: string): Outline {
  const text = outline.text;
  const start = at % (text.length + 1);
  const oldEnd = Math.min(text.length, start + length);
  const next = text.slice(0, start) + inserted + text.slice(oldEnd);
  return updateOutline(outline, { start, oldEnd, newEnd: start + inserted.length }, next);
}

describe('incremental outline', () => {
  it('equals a fresh outline after every edit of random edit sequences on the examples', () => {
    fc.assert(
      fc.property(fc.nat({ max: texts.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 15 }), (which, edits) => {
        let outline = buildOutline(texts[which] as string);
        for (const { at, length, text } of edits) {
          outline = applyEdit(outline, at, length, text);
          assert.deepEqual(outline, buildOutline(outline.text));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the records after the edit and reads again only the statements around it', () => {
    const text = fs.readFileSync(path.join(examples, 'convergence-loop.dot'), 'utf8');
    const before = buildOutline(text);
    const at = text.lastIndexOf('->');
    const after = applyEdit(before, at, 0, ' ');
    assert.deepEqual(after, buildOutline(after.text));
    // Statements well before the edit are the very same records, not re-read copies.
    assert.equal(after.lists[0], before.lists[0]);
    assert.equal(after.tokens[0], before.tokens[0]);
  });
});
