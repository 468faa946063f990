import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cursorContext } from '../../../language-server/features/cursor-context';
import { buildOutline } from '../../../language-server/syntax/outline';

/** `|` marks the cursor. */
function at(source: string) {
  const offset = source.indexOf('|');
  const text = source.replace('|', '');
  return cursorContext(buildOutline(text), offset);
}

describe('cursor context', () => {
  it('tells attribute names from values, by place', () => {
    assert.deepEqual(pick(at('digraph G { a [sha|] }')), { kind: 'attribute-name', place: 'node' });
    assert.deepEqual(pick(at('digraph G { a -> b [|] }')), { kind: 'attribute-name', place: 'edge' });
    assert.deepEqual(pick(at('digraph G { edge [weight=1, |] }')), { kind: 'attribute-name', place: 'edge' });
    assert.deepEqual(pick(at('digraph G { subgraph s { graph [|] } }')), { kind: 'attribute-name', place: 'subgraph' });
    assert.deepEqual(pick(at('digraph G { a [shape=|] }')), { kind: 'attribute-value', place: 'node', key: 'shape' });
    assert.deepEqual(pick(at('digraph G { a -> b [condition="outcome=|"] }')), { kind: 'attribute-value', place: 'edge', key: 'condition' });
    assert.deepEqual(pick(at('digraph G {\n  goal="|"\n}')), { kind: 'attribute-value', place: 'graph', key: 'goal' });
  });

  it('offers node ids after an arrow and statements at a line start, nothing inside comments', () => {
    assert.equal(at('digraph G { a -> | }').kind, 'edge-target');
    assert.equal(at('digraph G { a -> b| }').kind, 'edge-target');
    assert.deepEqual(pick(at('digraph G {\n  a\n  |\n}')), { kind: 'statement' });
    assert.equal(at('digraph G {\n  // a |comment\n}').kind, 'none');
    assert.equal(at('digraph G { a [label="x"|] }').kind, 'attribute-name');
  });
});

function pick(context: ReturnType<typeof cursorContext>) {
  const { kind } = context;
  return {
    kind,
    ...('place' in context ? { place: context.place } : {}),
    ...('key' in context ? { key: context.key } : {}),
  };
}
