import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { WorkerChecker } from '../../../language-server/analysis/checker';
import { DeferredModel, isModelReady } from '../../../language-server/analysis/document-analysis';
import { DocumentStore } from '../../../language-server/analysis/document-store';
import { ensureTestBundle, fixtureText, workerPath } from '../lsp-client';

const uri = 'file:///loop.dot';
const text = fixtureText('review-loop.dot');
const typeAt = (version: number) => [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: version % 2 === 0 ? ' ' : '' }];

describe('document store with the worker checker', () => {
  before(() => ensureTestBundle());

  it('reads a model from the worker only when a request needs that version, and lends a read one while typing', async () => {
    const store = new DocumentStore(new WorkerChecker(workerPath));
    try {
      store.open(uri, text, 1);
      const first = (await store.analysis(uri))?.model;
      assert.ok(first instanceof DeferredModel);
      assert.equal(first.ready, false, 'the bytes are not read when the check arrives');
      assert.equal(store.view(uri)?.model?.graph.nodes.has('review'), true, 'a request on the checked version reads it');
      assert.equal(first.ready, true);

      store.change(uri, typeAt(2), 2);
      const second = (await store.analysis(uri))?.model;
      assert.ok(second instanceof DeferredModel && !second.ready);
      store.change(uri, typeAt(3), 3);
      const typing = store.view(uri)?.model;
      assert.equal(typing?.provenance, 'stale');
      assert.ok(typing && isModelReady(typing), 'a version the checker has not reached borrows the model already read');
      assert.equal(second.ready, false, 'typing never waits for the newer bytes');

      await new Promise((resolve) => setTimeout(resolve, 1200));
      assert.equal(second.ready, true, 'a quiet document reads its newest model ahead of the next request');
    } finally {
      store.checker.dispose();
    }
  });
});
