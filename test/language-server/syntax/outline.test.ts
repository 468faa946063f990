import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildOutline, listAt } from '../../../language-server/syntax/outline';
import { tokenValue } from '../../../language-server/syntax/scanner';

const scan = (text: string) => buildOutline(text).tokens;
import { documentSpan, tokenContent, valueIndexAt } from '../../../language-server/syntax/string-content';

describe('scanner', () => {
  it('tokenizes DOT, flagging unterminated strings and comments instead of stopping', () => {
    const tokens = scan('a -> b [label="x\\"y"] // c\n# pre\n/* open');
    assert.deepEqual(
      tokens.map((t) => [t.kind, t.text, t.terminated]),
      [
        ['id', 'a', true],
        ['arrow', '->', true],
        ['id', 'b', true],
        ['punct', '[', true],
        ['id', 'label', true],
        ['punct', '=', true],
        ['string', '"x\\"y"', true],
        ['punct', ']', true],
        ['comment', '// c', true],
        ['comment', '# pre', true],
        ['comment', '/* open', false],
      ],
    );
    const [unterminated, below] = scan('"abc\n def');
    assert.equal(unterminated?.terminated, false);
    assert.equal(unterminated?.end, 4, 'an unclosed string ends with its line');
    assert.deepEqual([below?.kind, below?.text], ['id', 'def']);
  });

  it('ends a string at the first quote no backslash escapes (a backslash escapes the character after it)', () => {
    /** Where the string opened at 0 ends, character by character. */
    const reference = (text: string): number => {
      let j = 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' && j + 1 < text.length ? 2 : 1;
      return j < text.length ? j + 1 : text.length; // left open: to the end of its line, here the text's
    };
    fc.assert(
      fc.property(fc.array(fc.constantFrom('"', '\\', 'a', ' '), { maxLength: 24 }), (chars) => {
        const text = `"${chars.join('')}`;
        const [token] = scan(text);
        assert.equal(token?.end, reference(text), JSON.stringify(text));
      }),
      { numRuns: 2000 },
    );
    assert.equal(scan('"a\\\\" b')[0]?.text, '"a\\\\"', 'two backslashes escape each other');
    assert.equal(scan('"a\\" b"')[0]?.text, '"a\\" b"', 'one escapes the quote');
  });

  it('maps decoded string characters back to document offsets', () => {
    const [token] = scan('"a\\"b\\nc"');
    const content = tokenContent(token as never);
    assert.equal(content.value, 'a"b\nc');
    assert.deepEqual(content.offsets, [1, 2, 4, 5, 7, 8]);
    assert.equal(valueIndexAt(content, 4), 2);
    assert.deepEqual(documentSpan(content, 1, 3), { start: 2, end: 5 });
  });
});

describe('outline', () => {
  const text = [
    'digraph G {',
    '  goal="g"',
    '  node [shape=box]',
    '  a [prompt="p", max_retries=2]',
    '  a -> b -> c [condition="outcome=success"]',
    '  subgraph cluster_x {',
    '    graph [label="X"]',
    '    d',
    '  }',
    '}',
  ].join('\n');
  const outline = buildOutline(text);

  it('knows who owns each attribute list', () => {
    assert.deepEqual(
      outline.lists.map((l) => [l.owner, l.inSubgraph, l.subjects.map(tokenValue)]),
      [
        ['node-defaults', false, []],
        ['node', false, ['a']],
        ['edge', false, ['a', 'b', 'c']],
        ['graph-defaults', true, []],
      ],
    );
    assert.deepEqual(outline.lists[1]?.entries.map((e) => [tokenValue(e.key), e.value && tokenValue(e.value)]), [
      ['prompt', 'p'],
      ['max_retries', '2'],
    ]);
  });

  it('records graph assignments, blocks and node id occurrences', () => {
    assert.deepEqual(outline.assignments.map((a) => tokenValue(a.key)), ['goal']);
    assert.deepEqual(outline.blocks.map((b) => [b.kind, b.name && tokenValue(b.name), Boolean(b.close)]), [
      ['graph', 'G', true],
      ['subgraph', 'cluster_x', true],
    ]);
    assert.deepEqual(outline.nodeIds.map((o) => [tokenValue(o.token), o.declaration]), [
      ['a', true],
      ['a', false],
      ['b', false],
      ['c', false],
      ['d', true],
    ]);
  });

  it('ends a half-typed list at the end of its line so the next statement survives', () => {
    const typing = buildOutline('digraph G {\n  a [sha\n  b -> c\n}');
    assert.equal(typing.lists.length, 1);
    assert.equal(typing.lists[0]?.close, undefined);
    assert.deepEqual(typing.nodeIds.map((o) => tokenValue(o.token)), ['a', 'b', 'c']);
    assert.equal(typing.list(listAt(typing, 'digraph G {\n  a [sha'.length)).owner, 'node');
    assert.equal(listAt(typing, 'digraph G {\n  a [sha\n  b'.length), -1);
  });
});

describe('bare qualified keys and dotted values', () => {
  it('keeps dots and hyphens inside ids, as the engine parser does, and arrows outside', () => {
    const outline = buildOutline('digraph G { g [human.default_choice=yes, llm_model=gpt-4.1]; a->b }');
    assert.deepEqual(outline.lists[0]?.entries.map((e) => [tokenValue(e.key), e.value && tokenValue(e.value)]), [
      ['human.default_choice', 'yes'],
      ['llm_model', 'gpt-4.1'],
    ]);
    assert.deepEqual(outline.nodeIds.map((o) => tokenValue(o.token)), ['g', 'a', 'b']);
  });
});
