// Symbols, folding, semantic tokens and links read the token outline: they work on text that does not parse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDocument } from '../../../language-server/analysis/document-analysis';
import { foldingRanges } from '../../../language-server/features/folding';
import { documentLinks } from '../../../language-server/features/links';
import { semanticTokens } from '../../../language-server/features/semantic-tokens';
import { documentSymbols } from '../../../language-server/features/symbols';

const text = [
  'digraph G {', //                      0
  '  // one', //                         1
  '  // two', //                         2
  '  subgraph cluster_a {', //           3
  '    label="A"', //                    4
  '    x [prompt="line one', //          5
  'line two", dot_file="sub.dot"]', //   6
  '  }', //                              7
  '  x -> y [', //                       8
  '    condition="outcome=success"', //  9
  '  ]', //                              10
  '  y [shape=', //                      11: does not parse
  '}',
].join('\n');
const analysis = analyzeDocument({ uri: 'file:///work/o.dot', version: 1, text, sourcePath: '/work/o.dot' });

describe('outline features on a broken document', () => {
  it('folds the graph, the subgraph, comment runs, multi-line strings and lists', () => {
    const folds = foldingRanges(analysis).map((f) => `${f.startLine}-${f.endLine}${f.kind ? ` ${f.kind}` : ''}`);
    for (const fold of ['0-11', '3-6', '8-9', '1-2 comment', '5-6']) assert.ok(folds.includes(fold), `${fold} in ${folds.join(', ')}`);
  });

  it('lists the subgraph and its nodes', () => {
    const [graph] = documentSymbols(analysis);
    assert.equal(graph?.name, 'G');
    const subgraph = graph?.children?.find((c) => c.name === 'cluster_a');
    assert.deepEqual(subgraph?.children?.map((c) => c.name), ['x']);
  });

  it('links dot_file beside the document', () => {
    assert.deepEqual(documentLinks(analysis, undefined).map((l) => l.target), ['file:///work/sub.dot']);
  });

  it('emits single-line, ordered semantic tokens', () => {
    const data = semanticTokens(analysis).data;
    assert.equal(data.length % 5, 0);
    for (let k = 0; k < data.length; k += 5) assert.ok((data[k] as number) > 0 || (data[k + 1] as number) >= 0);
    assert.ok(data.length >= 5 * 6);
  });
});
