// The incremental outline must be indistinguishable from a fresh one: random edit sequences on the
// real example pipelines, each step's updated outline compared with buildOutline of the same text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { rereadBy, updateOutline } from '../../../language-server/syntax/incremental-outline';
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

/** Thousands of tokens: edits split and shift the scanner's token segments. */
const large = ['digraph large {', ...Array.from({ length: 120 }, (_, k) => `  n${k} [shape=box, prompt="step ${k}"] // ${k}\n  n${k} -> n${k + 1} [condition="outcome=success"]`), '}', ''].join('\n');

/** An outline as plain data: its text and every row of its tokens and records. */
function plain(outline: Outline): unknown {
  const { tokens, code, tables, marks, firstOpenString } = outline.rows;
  return {
    text: outline.text,
    tokens: Array.from(tokens.copy()),
    code: Array.from(code.copy()),
    tables: Object.fromEntries(Object.entries(tables).map(([table, rows]) => [table, Array.from(rows.copy())])),
    marks: Array.from(marks.copy()),
    firstOpenString,
  };
}

const equalsFresh = (outline: Outline) => assert.deepEqual(plain(outline), plain(buildOutline(outline.text)));

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
          equalsFresh(outline);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('equals a fresh outline after random edit sequences on a text of thousands of tokens', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 8 }), (edits) => {
        let outline = buildOutline(large);
        for (const { at, length, text } of edits) {
          outline = applyEdit(outline, at, length, text);
          equalsFresh(outline);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('equals a fresh outline after long edit sequences on a text whose rows after an edit stay pieces of the previous ones', () => {
    // Long enough that a table's rows are kept as pieces (row-store.ts), edits enough to merge and flatten them.
    const larger = [large.slice(0, -3), ...Array.from({ length: 480 }, (_, k) => `  m${k} [shape=box, prompt="step ${k}"]\n  m${k} -> m${k + 1} [condition="outcome=success"]`), '}', ''].join('\n');
    fc.assert(
      fc.property(fc.array(edit, { minLength: 10, maxLength: 30 }), (edits) => {
        let outline = buildOutline(larger);
        for (const { at, length, text } of edits) {
          outline = applyEdit(outline, at, length, text);
          equalsFresh(outline);
        }
      }),
      { numRuns: 8 },
    );
  });

  it('reads again only the statements around the edit', () => {
    const before = buildOutline(large);
    const at = large.indexOf('n60 [');
    const after = applyEdit(before, at, 0, ' ');
    equalsFresh(after);
    const lists = rereadBy(after)?.lists;
    assert.ok(lists, 'an updated outline says what it read again');
    assert.ok(lists.newEnd - lists.start <= 4 && lists.start >= 115, `lists ${lists.start}..${lists.newEnd} of ${before.count('lists')}`);
  });

  it('moves the rows after an edit', () => {
    const before = buildOutline(large);
    const last = before.lists.at(-1);
    const after = applyEdit(before, large.indexOf('n0 ['), 0, 'x');
    equalsFresh(after);
    assert.equal(after.lists.at(-1)?.open.start, (last?.open.start ?? 0) + 1, 'at its new place');
    assert.equal(after.tokenCount, before.tokenCount);
  });

  it('keeps the previous record tables when an edit adds or removes no token, and moves them when one does', () => {
    const before = buildOutline(large);
    const tablesOf = (outline: Outline) => [outline.rows.code, outline.rows.marks, ...Object.entries(outline.rows.tables).filter(([table]) => table !== 'blocks').map(([, rows]) => rows)];
    const typed = applyEdit(before, large.indexOf('step 60'), 0, 'x');
    equalsFresh(typed);
    tablesOf(typed).forEach((rows, k) => assert.equal(rows, tablesOf(before)[k], `table ${k} is the previous one`));

    const spaced = applyEdit(typed, large.indexOf('n0 ['), 0, ' ');
    equalsFresh(spaced);
    tablesOf(spaced).forEach((rows, k) => assert.equal(rows, tablesOf(before)[k], `table ${k} is still the previous one`));

    const comma = applyEdit(spaced, spaced.text.indexOf(', prompt="step 60'), 0, ',');
    equalsFresh(comma);
    assert.notEqual(comma.rows.tables.entries, before.rows.tables.entries, 'a new token moves the token indexes after it');
  });
});
