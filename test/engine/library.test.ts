import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
// The README's library example, verbatim apart from the import path and the temp directories.
import { AutoApproveInterviewer, EventBus, ScriptedBackend, preparePipeline, runPipeline } from '../../engine';

it('runs a pipeline through the library API as the README shows', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-lib-'));
  const file = path.join(dir, 'hello.dot');
  fs.writeFileSync(file, 'digraph hello { start [shape=Mdiamond]; say [shape=parallelogram, tool_command="echo hi > hi.txt"]; done [shape=Msquare]; start -> say -> done }');
  const seen: string[] = [];

  const source = fs.readFileSync(file, 'utf8');
  const { graph, diagnostics } = preparePipeline(source, { sourcePath: file });
  if (!graph || diagnostics.some((d) => d.severity === 'error')) throw new Error('invalid pipeline');
  const events = new EventBus();
  events.on((e) => e.type === 'node:end' && seen.push(`${e.nodeId} ${e.outcome.status}`));
  const result = await runPipeline({
    graph, source, cwd: dir, logsRoot: path.join(dir, '.runs', 'hello'),
    backend: new ScriptedBackend({ llm: {}, human: {} }), interviewer: new AutoApproveInterviewer(), events,
  });

  assert.equal(result.status, 'success');
  assert.deepEqual(seen, ['start success', 'say success', 'done success']);
  assert.equal(fs.readFileSync(path.join(dir, 'hi.txt'), 'utf8'), 'hi\n');
});
