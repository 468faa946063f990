// Reading a finished run directory (written by a real engine run) into graph-view messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDot } from '../../engine/parse/dot-parser';
import { parseExtensionMessage } from '../../host/protocol/webview';
import { storedSnapshots } from '../../engine/runtime/workspace-snapshot';
import { graphStateFromTrace, traceEntriesMessage, visitArtifactsMessage, visitSnapshots } from '../../host/run-files';
import { loopWithGate } from '../webview/engine-run';
import { runDot } from '../engine/runtime/harness';

test('a finished run directory yields its trace, per-visit files and the graph state it ended in', async () => {
  const run = await runDot(loopWithGate, { script: { llm: { work: [{ text: 'first answer' }, { text: 'second answer' }] }, human: { review: [{ kind: 'option', choice: 'Y' }] } } });
  assert.equal(run.result.status, 'success', run.result.failureReason);
  const logs = run.result.logsRoot;

  const trace = traceEntriesMessage(logs);
  assert.ok(parseExtensionMessage(trace).ok);
  assert.deepEqual(trace.entries.map((e) => e.node_id), run.trace.map((r) => r.node_id));
  assert.deepEqual(trace.entries.filter((e) => e.node_id === 'work').map((e) => e.iteration), [0, 1]);

  const first = visitArtifactsMessage(logs, 0, 'work');
  const second = visitArtifactsMessage(logs, 1, 'work');
  assert.ok(parseExtensionMessage(second).ok);
  assert.match(first.prompt ?? '', /Try again: converge/);
  assert.equal(first.response, 'first answer');
  assert.equal(second.response, 'second answer');
  assert.deepEqual(first.fileChanges, [], 'a scripted LLM visit was snapshotted and changed no workspace file');
  assert.equal(JSON.parse(second.status ?? '{}').outcome, 'success');
  assert.deepEqual(visitArtifactsMessage(logs, 7, 'nowhere'), { type: 'visitArtifacts', iteration: 7, nodeId: 'nowhere' });

  const { graph } = parseDot(loopWithGate);
  assert.ok(graph);
  const state = graphStateFromTrace(trace.entries, 'succeeded');
  assert.ok(parseExtensionMessage(state).ok);
  assert.equal(state.nodes.work?.visits, 2);
  assert.equal(state.iteration, 1);
  const loopEdge = graph.edges.find((e) => e.attributes.get('loop_restart')?.value === 'true');
  assert.ok(loopEdge && state.takenEdges.some((e) => e.index === loopEdge.index), 'the loop back edge is read from the trace');
  const reviewToDone = graph.edges.find((e) => e.from === 'review' && e.to === 'done');
  assert.ok(reviewToDone && state.takenEdges.some((e) => e.index === reviewToDone.index));
});

test("a visit's workspace changes, and each file's text before and after it, are read from the run's store", async () => {
  const pipeline = `digraph w {
    start [shape=Mdiamond]
    done [shape=Msquare]
    edit [shape=parallelogram, tool_command="printf 'new\\n' > notes.txt && rm gone.txt && echo hi > added.txt"]
    start -> edit -> done
  }`;
  const run = await runDot(pipeline, { files: { 'notes.txt': 'old\n', 'gone.txt': 'bye\n' } });
  assert.equal(run.result.status, 'success', run.result.failureReason);
  const logs = run.result.logsRoot;
  const message = visitArtifactsMessage(logs, 0, 'edit');
  assert.ok(parseExtensionMessage(message).ok);
  assert.deepEqual(message.fileChanges, [
    { kind: 'added', path: 'added.txt' },
    { kind: 'deleted', path: 'gone.txt' },
    { kind: 'changed', path: 'notes.txt' },
  ]);
  const files = visitSnapshots(logs, 0, 'edit');
  const store = storedSnapshots(logs);
  assert.ok(files && store);
  assert.equal(store.fileAt(files.before, 'notes.txt'), 'old\n');
  assert.equal(store.fileAt(files.after, 'notes.txt'), 'new\n');
  assert.equal(store.fileAt(files.before, 'added.txt'), undefined);
  assert.equal(store.fileAt(files.after, 'gone.txt'), undefined);
});

test('a second visit in one iteration is read from its own directory; a missing one is not filled from the flat latest copy', async () => {
  const source = 'digraph g {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  work [prompt="Work."]\n  check [shape=parallelogram, tool_command="test -f seen && echo pass || { touch seen; echo again; }"]\n  start -> work -> check\n  check -> done [condition="context.tool.last_line=pass"]\n  check -> work [condition="context.tool.last_line=again"]\n}';
  const run = await runDot(source, { script: { llm: { work: [{ text: 'first answer' }, { text: 'second answer' }] } } });
  assert.equal(run.result.status, 'success', run.result.failureReason);
  const logs = run.result.logsRoot;
  assert.deepEqual(traceEntriesMessage(logs).entries.filter((e) => e.node_id === 'work').map((e) => [e.iteration, e.visit]), [[0, undefined], [0, 2]]);
  assert.equal(visitArtifactsMessage(logs, 0, 'work').response, 'first answer');
  const second = visitArtifactsMessage(logs, 0, 'work', 2);
  assert.ok(parseExtensionMessage(second).ok);
  assert.deepEqual([second.visit, second.response], [2, 'second answer']);
  assert.deepEqual(visitArtifactsMessage(logs, 0, 'work', 3), { type: 'visitArtifacts', iteration: 0, nodeId: 'work', visit: 3 });
});

test('a visit lists the artifacts it stored (canonical §5.5), each with its file and the start of its value', async () => {
  const pipeline = `digraph a {
    start [shape=Mdiamond]
    done [shape=Msquare]
    big [shape=parallelogram, parse_json=true, tool_command="printf '{\\"report\\": \\"%s\\"}' \\"$(head -c 110000 /dev/zero | tr '\\\\0' z)\\""]
    after [shape=parallelogram, tool_command="true"]
    start -> big -> after -> done
  }`;
  const run = await runDot(pipeline);
  assert.equal(run.result.status, 'success', run.result.failureReason);
  const message = visitArtifactsMessage(run.result.logsRoot, 0, 'big');
  assert.ok(parseExtensionMessage(message).ok);
  const report = message.artifacts?.find((artifact) => artifact.name === 'report');
  assert.match(report?.id ?? '', /^report-[0-9a-f]{16}$/);
  assert.equal(report?.sizeBytes, 110_002);
  assert.equal(report?.path, `artifacts/${report?.id}.json`);
  assert.match(report?.preview ?? '', /^"z{4000,}\n… \(\d+ more bytes in /);
  assert.equal(visitArtifactsMessage(run.result.logsRoot, 0, 'after').artifacts, undefined, 'another visit stored none');
});

test('each trace record names the edge taken out of its visit, so a finished run shows the edge the walk took between nodes joined twice', async () => {
  // Two edges from check to done: the conditional one (first) does not hold, the walk takes the second.
  const source = 'digraph twice {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  check [shape=parallelogram, tool_command="echo fine"]\n  start -> check\n  check -> done [condition="context.tool.last_line=broken"]\n  check -> done [weight=2]\n}';
  const run = await runDot(source);
  assert.equal(run.result.status, 'success', run.result.failureReason);
  const { graph } = parseDot(source);
  assert.ok(graph);
  const [conditional, plain] = graph.edges.filter((edge) => edge.from === 'check');
  assert.ok(conditional && plain);
  const entries = traceEntriesMessage(run.result.logsRoot).entries;
  assert.deepEqual(
    entries.map((entry) => [entry.node_id, entry.edge?.index]),
    [['start', 0], ['check', plain.index], ['done', undefined]],
  );
  const state = graphStateFromTrace(entries, 'succeeded');
  assert.deepEqual(state.takenEdges.map((edge) => edge.index).sort(), [0, plain.index].sort());
});
