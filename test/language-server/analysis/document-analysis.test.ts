import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDocument } from '../../../language-server/analysis/document-analysis';
import { contextKeysBefore } from '../../../language-server/analysis/context-keys';
import { fixtureText } from '../lsp-client';

const good = fixtureText('review-loop.dot');

describe('document analysis', () => {
  it('runs the engine pipeline on text that parses', async () => {
    const analysis = analyzeDocument({ uri: 'file:///r.dot', version: 1, text: good });
    assert.equal(analysis.model?.provenance, 'exact');
    assert.equal((await analysis.model?.graphs())?.graph.nodes.get('review')?.attributes.get('llm_model')?.value, 'gpt-5', 'the stylesheet transform ran');
  });

  it('recovers a model with the same offsets when a line is half typed', async () => {
    const text = good.replace('  gate [shape=hexagon, label="Approve?"]', '  gate [shape=hexa, label="Appr');
    const analysis = analyzeDocument({ uri: 'file:///r.dot', version: 2, text, lastEditOffset: text.indexOf('"Appr') + 5 });
    assert.equal(analysis.diagnostics.length, 1);
    assert.equal(analysis.diagnostics[0]?.rule, 'syntax');
    assert.equal(analysis.model?.provenance, 'recovered');
    const review = (await analysis.model?.graphs())?.parsed.nodes.get('review');
    assert.equal(text.slice(review?.idRange.start, review?.idRange.end), 'review', 'ranges point into the real text');
  });

  it('falls back to the previous model when nothing can be recovered', () => {
    const previous = analyzeDocument({ uri: 'file:///r.dot', version: 1, text: good }).model;
    const analysis = analyzeDocument({ uri: 'file:///r.dot', version: 3, text: 'digraph {{{', ...(previous ? { previousModel: previous } : {}) });
    assert.equal(analysis.model?.provenance, 'stale');
  });

  it('lists the context keys written upstream of an edge', async () => {
    const graph = (await analyzeDocument({ uri: 'file:///r.dot', version: 1, text: good }).model?.graphs())?.graph;
    assert.ok(graph);
    const keys = contextKeysBefore(graph, ['run_tests']).map((k) => k.key);
    for (const key of ['tool.output', 'tool.last_line', 'tests_passed', 'coverage', 'last_response']) assert.ok(keys.includes(key), key);
    const fromStart = contextKeysBefore(graph, ['start']).map((k) => k.key);
    assert.ok(!fromStart.includes('tool.output'), 'nothing upstream of start runs a tool');
  });
});
