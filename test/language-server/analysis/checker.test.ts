import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { WorkerChecker } from '../../../language-server/analysis/checker';
import { startCheckerWorker } from '../../../language-server/analysis/checker-worker';
import { ensureTestBundle, fixtureText, workerPath } from '../lsp-client';

describe('worker checker', () => {
  before(() => ensureTestBundle());

  it('checks off the main thread and drops checks a newer version superseded', async () => {
    const checker = new WorkerChecker(startCheckerWorker(path.dirname(workerPath))!);
    try {
      const text = fixtureText('child.dot');
      const handles = [1, 2, 3].map((version) => checker.check({ uri: 'file:///w.dot', version, text }));
      const results = await Promise.all(handles.map((h) => h.result));
      const early = await handles[2]?.diagnostics;
      assert.deepEqual(early, results[2]?.diagnostics, 'diagnostics arrive ahead of the model, the same ones');
      for (const [k, result] of results.entries()) if (!result) assert.equal(await handles[k]?.diagnostics, undefined, 'a superseded check has neither');
      const last = results.at(-1);
      assert.ok(last?.diagnostics.some((d) => d.rule === 'terminal_node'));
      assert.equal(last?.model?.provenance, 'exact');
      const graphs = await last?.model?.graphs();
      assert.ok(graphs?.graph.nodes instanceof Map, 'the graphs survive the thread boundary');
      const other = await checker.check({ uri: 'file:///other.dot', version: 1, text: 'digraph {' }).result;
      assert.equal(other?.diagnostics[0]?.rule, 'syntax');
    } finally {
      await checker.dispose();
    }
  });

  it('drops the checks still pending when it is disposed, rather than checking them on this thread', async () => {
    const checker = new WorkerChecker(startCheckerWorker(path.dirname(workerPath))!);
    const pending = [1, 2].map((version) => checker.check({ uri: `file:///pending-${version}.dot`, version, text: fixtureText('review-loop.dot') }));
    await checker.dispose();
    for (const handle of pending) {
      assert.equal(await handle.result, undefined);
      assert.equal(await handle.diagnostics, undefined);
    }
  });
});
