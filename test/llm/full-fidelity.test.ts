import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CliRig, cliAnthropic, cliChat, cliFlavours, cliGemini, cliResponses } from './cli-rig';
import type { CliFlavour } from './cli-rig';
import { toolResultsSent } from './harness';
import { runCli } from './cli-process';
import { geminiStream } from './fakes/gemini-wire';

/** Tool-call ids an API request replays, whatever the API's shape. */
function toolCallIdsSent(body: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const message of (body.messages ?? body.input ?? body.contents ?? []) as Record<string, unknown>[]) {
    for (const call of (message.tool_calls ?? []) as Record<string, unknown>[]) ids.push(String(call.id));
    for (const part of (message.parts ?? []) as { functionCall?: { id: string } }[]) if (part.functionCall) ids.push(part.functionCall.id);
    if (message.type === 'function_call') ids.push(String(message.call_id));
    if (Array.isArray(message.content)) for (const block of message.content as Record<string, unknown>[]) if (block.type === 'tool_use') ids.push(String(block.id));
  }
  return ids;
}

const planThenBuild = (planModel: string, buildModel: string, graphAttributes = '') => `digraph thread {
  graph [default_fidelity="full"${graphAttributes}]
  start [shape=Mdiamond]
  done [shape=Msquare]
  plan [llm_model="${planModel}", prompt="Plan the work."]
  build [llm_model="${buildModel}", prompt="Build it."]
  start -> plan -> build -> done
}`;

/** The plan node writes a file, then ends the normal way: a bare report_outcome call, no text. */
function scriptPlan(rig: CliRig, flavour: CliFlavour): void {
  rig.server.script(
    flavour.stream({ text: 'Planning.', toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'plan.md', content: 'the plan' } }] }),
    flavour.stream({ toolCalls: [{ id: 'call_r', name: 'report_outcome', arguments: { status: 'success', notes: 'planned' } }] }),
  );
}

function assertWholeExchangeReplayed(body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  assert.ok(text.indexOf('Plan the work.') < text.indexOf('Planning.') && text.indexOf('Planning.') < text.indexOf('Build it.'), 'prompt, assistant text, then the new prompt');
  assert.deepEqual(toolCallIdsSent(body), ['call_w', 'call_r']);
  assert.deepEqual(toolResultsSent(body).map((r) => [r.id, r.content]), [['call_w', 'wrote 8 bytes to plan.md'], ['call_r', 'recorded: success']]);
  // Chat refuses an assistant message whose content is null unless it carries tool_calls.
  for (const message of (body.messages ?? []) as Record<string, unknown>[]) {
    if (message.role === 'assistant' && message.content === null) assert.ok(Array.isArray(message.tool_calls) && message.tool_calls.length > 0, JSON.stringify(message));
  }
}

/** The thought signature Gemini gets back on each function call it is sent. */
function signaturesSent(body: Record<string, unknown>): [string, string | undefined][] {
  return (body.contents as { parts: { functionCall?: { id: string }; thoughtSignature?: string }[] }[]).flatMap((content) =>
    content.parts.flatMap((part): [string, string | undefined][] => (part.functionCall ? [[part.functionCall.id, part.thoughtSignature]] : [])),
  );
}

describe('fidelity=full replays the whole exchange', () => {
  let rig: CliRig;
  beforeEach(async () => {
    rig = await new CliRig().start();
  });
  afterEach(() => rig.stop());

  for (const flavour of cliFlavours) {
    it(`${flavour.name}: the next node on the thread (no thread_id: the previous node's thread) gets text, tool calls and tool results`, async () => {
      scriptPlan(rig, flavour);
      rig.server.script(flavour.stream({ toolCalls: [{ id: 'call_b', name: 'report_outcome', arguments: { status: 'success' } }] }));
      const result = await rig.run(planThenBuild(flavour.model, flavour.model), flavour.env(rig.baseUrl));
      assert.equal(result.code, 0, result.stderr);
      assert.equal(rig.server.requests.length, 3);
      assertWholeExchangeReplayed(rig.server.requests[2]!.body);
    });
  }

  it('one thread across providers: an Anthropic node\'s exchange replays in Chat shape', async () => {
    scriptPlan(rig, cliAnthropic);
    rig.server.script(cliChat.stream({ toolCalls: [{ id: 'call_b', name: 'report_outcome', arguments: { status: 'success' } }] }));
    const result = await rig.run(planThenBuild(cliAnthropic.model, cliChat.model), { ...cliAnthropic.env(rig.baseUrl), ...cliChat.env(rig.baseUrl) });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(rig.server.requests[2]!.path, '/v1/chat/completions');
    assertWholeExchangeReplayed(rig.server.requests[2]!.body);
  });

  for (const openai of [cliChat, cliResponses]) {
    it(`one thread across Anthropic, Gemini and ${openai.name}: each node gets the whole exchange so far in its own API's shape`, async () => {
      scriptPlan(rig, cliAnthropic);
      rig.server.script(
        // Gemini sends its calls without ids: the ones made up for them must pass on OpenAI too.
        cliGemini.stream({ text: 'Building.', toolCalls: [{ name: 'write_file', arguments: { path: 'build.txt', content: 'built' } }] }),
        cliGemini.stream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success', notes: 'built' } }] }),
        openai.stream({ toolCalls: [{ id: 'call_v', name: 'report_outcome', arguments: { status: 'success' } }] }),
      );
      const result = await rig.run(
        `digraph mixed {
          graph [default_fidelity="full"]
          start [shape=Mdiamond]
          done [shape=Msquare]
          plan [llm_model="${cliAnthropic.model}", prompt="Plan the work."]
          build [llm_model="${cliGemini.model}", prompt="Build it."]
          review [llm_model="${openai.model}", prompt="Review it."]
          start -> plan -> build -> review -> done
        }`,
        { ...cliAnthropic.env(rig.baseUrl), ...cliGemini.env(rig.baseUrl), ...openai.env(rig.baseUrl) },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.summary.status, 'success');
      assert.equal(fs.readFileSync(path.join(rig.work, 'build.txt'), 'utf8'), 'built');
      const [toGemini, , toOpenAi] = rig.server.requests.slice(2);
      assert.match(toGemini!.path, /gemini-2\.5-flash:streamGenerateContent/);
      assertWholeExchangeReplayed(toGemini!.body);
      const responses = (toGemini!.body.contents as { parts: { functionResponse?: { name: string } }[] }[]).flatMap((c) => c.parts.flatMap((p) => (p.functionResponse ? [p.functionResponse.name] : [])));
      assert.deepEqual(responses, ['write_file', 'report_outcome'], 'each functionResponse names the function of its call');

      assert.equal(toOpenAi!.path, openai === cliChat ? '/v1/chat/completions' : '/v1/responses');
      const ids = toolCallIdsSent(toOpenAi!.body);
      assert.equal(ids.length, 4, JSON.stringify(ids));
      assert.deepEqual(ids.slice(0, 2), ['call_w', 'call_r']);
      for (const id of ids.slice(2)) assert.match(id, /^call_[0-9a-f]{24}$/);
      assert.deepEqual(toolResultsSent(toOpenAi!.body).map((r) => [r.id, r.content]), [
        ['call_w', 'wrote 8 bytes to plan.md'],
        ['call_r', 'recorded: success'],
        [ids[2], 'wrote 5 bytes to build.txt'],
        [ids[3], 'recorded: success'],
      ]);
      const text = JSON.stringify(toOpenAi!.body);
      assert.ok(text.indexOf('Planning.') < text.indexOf('Building.') && text.indexOf('Building.') < text.indexOf('Review it.'), text);
    });
  }

  it('Gemini 3 gets its own thought signatures back on the next node of the thread, after a resume too', async () => {
    const model = 'gemini-3-pro-preview';
    rig.server.script(
      geminiStream({ text: 'Planning.', toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'plan.md', content: 'the plan' } }] }, { model, signature: 'c2lnLXdyaXRl' }),
      geminiStream({ toolCalls: [{ id: 'call_r', name: 'report_outcome', arguments: { status: 'success' } }] }, { model, signature: 'c2lnLXJlcG9ydA==' }),
      geminiStream({ toolCalls: [{ id: 'call_b', name: 'report_outcome', arguments: { status: 'success' } }] }, { model }),
    );
    const first = await rig.run(planThenBuild(model, model), cliGemini.env(rig.baseUrl));
    assert.equal(first.code, 0, first.stderr);
    const own: [string, string | undefined][] = [['call_w', 'c2lnLXdyaXRl'], ['call_r', 'c2lnLXJlcG9ydA==']];
    assert.deepEqual(signaturesSent(rig.server.requests[2]!.body), own);

    // Rewind the finished run to just before `build`, its thread as the run wrote it.
    const checkpointFile = path.join(rig.logs, 'checkpoint.json');
    const checkpoint = JSON.parse(fs.readFileSync(checkpointFile, 'utf8')) as Record<string, unknown> & { threads: Record<string, unknown[]> };
    const [threadKey, thread] = Object.entries(checkpoint.threads)[0]!;
    const planOnly = thread.slice(0, thread.findIndex((message) => JSON.stringify(message).includes('Build it.')));
    const rewound = { ...checkpoint, status: 'running', nextNodeId: 'build', incomingEdge: { index: 1, from: 'plan', to: 'build' }, lastCompletedNodeId: 'plan', completedNodes: ['start', 'plan'], threads: { [threadKey]: planOnly } };
    fs.writeFileSync(checkpointFile, JSON.stringify(rewound));
    rig.server.script(geminiStream({ toolCalls: [{ id: 'call_c', name: 'report_outcome', arguments: { status: 'success' } }] }, { model }));
    const resumed = await runCli(['resume', rig.logs, '--cwd', rig.work, '--json'], cliGemini.env(rig.baseUrl));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(signaturesSent(rig.server.requests.at(-1)!.body), own);
  });

  it('default_thread_id joins full nodes that a tool node separates (the fallback key alone would not)', async () => {
    const dot = (graphAttributes: string) => `digraph split {
      graph [default_fidelity="full", llm_model="gpt-4o"${graphAttributes}]
      start [shape=Mdiamond]
      done [shape=Msquare]
      plan [prompt="Plan the work."]
      check [shape=parallelogram, tool_command="true"]
      build [prompt="Build it."]
      start -> plan -> check -> build -> done
    }`;
    scriptPlan(rig, cliChat);
    rig.server.script(cliChat.stream({ toolCalls: [{ id: 'call_b', name: 'report_outcome', arguments: { status: 'success' } }] }));
    const joined = await rig.run(dot(', default_thread_id="main"'), cliChat.env(rig.baseUrl));
    assert.equal(joined.code, 0, joined.stderr);
    assertWholeExchangeReplayed(rig.server.requests[2]!.body);
  });

  it('resume reads a checkpoint whose thread was written with plain-string messages (the earlier format)', async () => {
    scriptPlan(rig, cliChat);
    rig.server.script(cliChat.stream({ toolCalls: [{ id: 'call_b', name: 'report_outcome', arguments: { status: 'success' } }] }));
    const first = await rig.run(planThenBuild(cliChat.model, cliChat.model), cliChat.env(rig.baseUrl));
    assert.equal(first.code, 0, first.stderr);
    // Rewind the finished run to just before `build`, its thread in the earlier string form.
    const checkpointFile = path.join(rig.logs, 'checkpoint.json');
    const checkpoint = JSON.parse(fs.readFileSync(checkpointFile, 'utf8')) as Record<string, unknown> & { threads: Record<string, unknown> };
    const [threadKey] = Object.keys(checkpoint.threads);
    const rewound = {
      ...checkpoint,
      status: 'running',
      nextNodeId: 'build',
      incomingEdge: { index: 1, from: 'plan', to: 'build' },
      lastCompletedNodeId: 'plan',
      completedNodes: ['start', 'plan'],
      threads: { [threadKey!]: [{ role: 'user', content: 'Plan the work.' }, { role: 'assistant', content: 'Planning, the old way.' }] },
    };
    fs.writeFileSync(checkpointFile, JSON.stringify(rewound));
    rig.server.script(cliChat.stream({ toolCalls: [{ id: 'call_c', name: 'report_outcome', arguments: { status: 'success' } }] }));
    const resumed = await runCli(['resume', rig.logs, '--cwd', rig.work, '--json'], cliChat.env(rig.baseUrl));
    assert.equal(resumed.code, 0, resumed.stderr);
    const messages = rig.server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    assert.deepEqual(messages.slice(1, 3), [{ role: 'user', content: 'Plan the work.' }, { role: 'assistant', content: 'Planning, the old way.' }]);
  });
});
