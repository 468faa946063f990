// A real engine run (scripted LLM, real shell tools, a scripted human answer) and its events
// projected onto webview messages: shared by the projection test and the Chromium end-to-end test.
import assert from 'node:assert/strict';
import type { RunEvent } from '../../engine/runtime/events';
import type { ExtensionToWebviewMessage } from '../../host/protocol/webview';
import { RunProjection } from '../../host/view/run-projection';
import { runDot } from '../engine/runtime/harness';

export const loopWithGate = `digraph loop {
  graph [goal="converge"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  work [prompt="Try again: $goal"]
  gate [shape=parallelogram, tool_command="test $iteration = 1 && echo pass || echo again", goal_gate=true]
  review [shape=hexagon, label="Ship it?"]
  start -> work -> gate
  gate -> review [condition="context.tool.last_line=pass"]
  gate -> work [condition="context.tool.last_line=again", loop_restart=true]
  review -> done [label="[Y] Yes"]
  review -> work [label="[N] No"]
}`;

export async function projectedRun(): Promise<{ events: RunEvent[]; messages: ExtensionToWebviewMessage[] }> {
  const run = await runDot(loopWithGate, { script: { llm: { work: [{ text: 'done' }] }, human: { review: [{ kind: 'option', choice: 'Y' }] } } });
  assert.equal(run.result.status, 'success', run.result.failureReason);
  const projection = new RunProjection();
  return { events: run.events, messages: run.events.flatMap((event) => projection.apply(event)) };
}
