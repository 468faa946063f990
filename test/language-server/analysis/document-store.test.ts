import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { WorkerChecker } from '../../../language-server/analysis/checker';
import { startCheckerWorker } from '../../../language-server/analysis/checker-worker';
import { DocumentStore } from '../../../language-server/analysis/document-store';
import { documentSymbols } from '../../../language-server/features/symbols';
import { ensureTestBundle, fixtureText, workerPath } from '../lsp-client';

const uri = 'file:///loop.dot';
const text = fixtureText('review-loop.dot');
const typeAt = (version: number) => [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: version % 2 === 0 ? ' ' : '' }];

describe('document store with the worker checker', () => {
  before(() => ensureTestBundle());

  it('keeps the model\'s graphs in the worker until a request asks, and gives views of unchecked versions none', async () => {
    const store = new DocumentStore(new WorkerChecker(startCheckerWorker(path.dirname(workerPath))!));
    try {
      store.open(uri, text, 1);
      assert.equal(store.view(uri)?.model, undefined, 'right after open the view is the text\'s alone');
      const first = (await store.analysis(uri))?.model;
      assert.equal(first?.nodeDetails.get('review')?.handler, 'codergen', 'what needs no graphs crosses with the check');

      store.change(uri, typeAt(2), 2);
      assert.equal(store.view(uri)?.model, undefined, 'a version the checker has not reached lends no model');
      const superseded = store.analysis(uri);
      store.change(uri, typeAt(3), 3);
      assert.equal(await superseded, undefined, 'the check of a version edited meanwhile answers nothing');

      const third = (await store.analysis(uri))?.model;
      const graphs = await third?.graphs();
      assert.equal(graphs?.graph.nodes.has('review'), true, 'a request that needs the graphs fetches them');
      assert.equal(await third?.graphs(), graphs, 'once');
      assert.equal(await third?.as('stale').graphs(), graphs, 'another provenance shares them');
      assert.equal(await first?.graphs(), undefined, 'the worker keeps only the newest model of a document');

      store.change(uri, [{ text: 'digraph {{{' }], 4);
      const stale = (await store.analysis(uri))?.model;
      assert.equal(stale?.provenance, 'stale');
      assert.equal((await stale?.graphs())?.graph.nodes.has('review'), true, 'a text that does not parse lends the last good model');
    } finally {
      await store.checker.dispose();
    }
  });

  it('lists symbols with the handlers the engine resolved (node defaults included) without reading the model', async () => {
    const store = new DocumentStore(new WorkerChecker(startCheckerWorker(path.dirname(workerPath))!));
    try {
      const defaults = 'digraph d {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  node [shape=parallelogram]\n  build [tool_command="make", label="Build it"]\n  start -> build -> done\n}\n';
      store.open(uri, defaults, 1);
      const analysis = await store.analysis(uri);
      assert.ok(analysis?.model);
      const nodes = documentSymbols(analysis)[0]?.children ?? [];
      assert.deepEqual(
        nodes.map((symbol) => [symbol.name, symbol.detail]),
        [['start', 'start'], ['done', 'exit'], ['build', 'tool · Build it']],
      );
      store.close(uri);
      assert.equal(await analysis.model.graphs(), undefined, 'nothing fetched the graphs before the document closed (the worker forgot them)');
    } finally {
      await store.checker.dispose();
    }
  });
});
