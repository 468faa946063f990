import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDocument } from '../../../language-server/analysis/document-analysis';
import { describeCondition, hover } from '../../../language-server/features/hover';
import { fixtureText } from '../lsp-client';

describe('hover', () => {
  it('explains a condition clause by clause, or where it fails to parse', () => {
    assert.match(describeCondition('outcome!=fail && preferred_label=Fix'), /1\. `outcome` differs from `fail`[\s\S]*2\. `preferred_label` equals `Fix` — the preferred label/);
    assert.match(describeCondition('outcome==success'), /does not parse:.*use `=` for equality/);
    assert.match(describeCondition(''), /always holds/);
  });

  it('explains a $variable in a prompt, with the goal it expands to', async () => {
    const text = fixtureText('review-loop.dot');
    const analysis = analyzeDocument({ uri: 'file:///h.dot', version: 1, text });
    const goal = await hover(analysis, text.indexOf('$goal') + 2);
    assert.match((goal?.contents as { value: string }).value, /the graph goal: "Ship the parser fix"/);
    assert.equal(goal?.range?.start.character, analysis.lineIndex.positionAt(text.indexOf('$goal')).character);
    const critiques = await hover(analysis, text.indexOf('$prior_critiques_implement') + 3);
    assert.match((critiques?.contents as { value: string }).value, /fed back to `implement`/);
  });

  it('shows a shape value’s handler and an unknown node reference nothing', async () => {
    const text = fixtureText('review-loop.dot');
    const analysis = analyzeDocument({ uri: 'file:///h.dot', version: 1, text });
    const shape = await hover(analysis, text.indexOf('parallelogram') + 2);
    assert.match((shape?.contents as { value: string }).value, /handler `tool`/);
    assert.equal(await hover(analysis, text.indexOf('// A review')), undefined);
  });
});
