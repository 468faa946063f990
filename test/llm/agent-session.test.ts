import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { Rig } from './harness';
import { anthropic, eventNames, flavours, gemini, openAiChat, openAiResponses, startRig, toolResultsSent } from './harness';

for (const flavour of flavours) {
  describe(`agent session over ${flavour.name}`, () => {
    let rig: Rig;
    afterEach(() => rig.close());

    it('writes a file through write_file, then reports an outcome that ends the node', async () => {
      rig = await startRig(flavour);
      rig.server.script(
        flavour.turn({ text: 'Writing the file.', toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'out/hello.txt', content: 'hello\n' } }] }),
        flavour.turn({ toolCalls: [{ id: 'call_r', name: 'report_outcome', arguments: { status: 'success', preferred_label: 'done', context_updates: { artifact: 'out/hello.txt' }, notes: 'wrote it' } }] }),
      );
      const result = await rig.backend.run(rig.request());

      assert.equal(fs.readFileSync(path.join(rig.workDir, 'out/hello.txt'), 'utf8'), 'hello\n');
      assert.deepEqual(result.reportedOutcome, { status: 'success', preferred_label: 'done', context_updates: { artifact: 'out/hello.txt' }, notes: 'wrote it' });
      assert.equal(rig.server.requests.length, 2, 'a successful report ends the node without another provider call');
      assert.equal(rig.server.pending, 0);
      assert.deepEqual(toolResultsSent(rig.server.requests[1]!.body).map((r) => [r.id, r.content]), [['call_w', 'wrote 6 bytes to out/hello.txt']]);
      const price = { openai: [2.5, 10], anthropic: [1, 5], gemini: [0.3, 2.5] }[flavour.provider];
      assert.deepEqual(result.usage, { inputTokens: 200, outputTokens: 40, costUsd: (2 * (100 * price[0]! + 20 * price[1]!)) / 1e6, requests: 2 });
      assert.ok(result.sessionId);

      const persisted = rig.sessionEvents(result.sessionId);
      assert.deepEqual(eventNames(persisted).filter((e) => e !== 'turn' && e !== 'usage'), ['session:start', 'prompt:submit', 'tool:pre', 'tool:post', 'tool:pre', 'tool:post', 'prompt:complete', 'session:end']);
      assert.deepEqual(persisted.find((e) => e.event === 'tool:pre')!.data.arguments, { path: 'out/hello.txt', content: 'hello\n' });
      assert.equal(persisted.at(-1)!.data.status, 'completed');
      assert.ok(persisted.every((e) => !Number.isNaN(Date.parse(e.timestamp))));
      // Everything persisted was also forwarded live (plus streaming deltas, which are not persisted).
      assert.deepEqual(eventNames(rig.events.filter((e) => e.event !== 'text:delta')), eventNames(persisted));
      assert.ok(rig.events.some((e) => e.event === 'text:delta'));
    });

    it('awaits beforeTurn before every model call (the debugger pauses there)', async () => {
      rig = await startRig(flavour);
      rig.server.script(
        flavour.turn({ toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] }),
        flavour.turn({ text: 'done' }),
      );
      const seen: Array<[number, number]> = [];
      await rig.backend.run({ ...rig.request(), beforeTurn: async (turn) => void seen.push([turn, rig.server.requests.length]) });
      assert.deepEqual(seen, [
        [1, 0],
        [2, 1],
      ]);
    });

    it('ends on a text-only answer and returns it whole', async () => {
      rig = await startRig(flavour);
      rig.server.script(flavour.turn({ text: 'All done: the answer is 42.' }));
      const result = await rig.backend.run(rig.request());
      assert.equal(result.responseText, 'All done: the answer is 42.');
      assert.equal(result.reportedOutcome, undefined);
      const sent = rig.server.requests[0]!.body;
      assert.equal(flavour.modelSent(rig.server.requests[0]!), flavour.model);
      assert.ok(JSON.stringify(sent).includes('Do the task.'));
    });

    it('runs a report_outcome batch in order: the last valid report wins, an invalid later one does not erase it', async () => {
      rig = await startRig(flavour);
      rig.server.script(
        flavour.turn({
          toolCalls: [
            { id: 'r1', name: 'report_outcome', arguments: { status: 'retry' } },
            { id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
            { id: 'r2', name: 'report_outcome', arguments: { status: 'success', notes: 'second' } },
            { id: 'r3', name: 'report_outcome', arguments: { status: 'maybe' } },
          ],
        }),
      );
      const result = await rig.backend.run(rig.request());
      assert.deepEqual(result.reportedOutcome, { status: 'success', notes: 'second' });
      const posts = rig.sessionEvents(result.sessionId!).filter((e) => e.event === 'tool:post');
      assert.deepEqual(posts.map((e) => e.data.call_id), ['r1', 'w', 'r2', 'r3']);
      assert.equal(posts[3]!.data.is_error, true);
      assert.equal(rig.server.requests.length, 1);
    });

    it('replays full-fidelity history before the prompt', async () => {
      rig = await startRig(flavour);
      rig.server.script(flavour.turn({ text: 'ok' }));
      await rig.backend.run(rig.request({ fidelity: 'full', history: [{ role: 'user', content: [{ kind: 'text', text: 'earlier question' }] }, { role: 'assistant', content: [{ kind: 'text', text: 'earlier answer' }] }] }));
      const text = JSON.stringify(rig.server.requests[0]!.body);
      assert.ok(text.indexOf('earlier question') < text.indexOf('earlier answer') && text.indexOf('earlier answer') < text.indexOf('Do the task.'));
    });
  });
}

describe('agent session limits and environment', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('stops at max tool rounds without another provider call, and records why', async () => {
    rig = await startRig(openAiChat, { limits: { maxTurns: 10, maxToolRounds: 2 } });
    const list = openAiChat.turn({ text: 'looking', toolCalls: [{ name: 'list_dir', arguments: {} }] });
    rig.server.script(list, list, list);
    const result = await rig.backend.run(rig.request());
    assert.equal(rig.server.requests.length, 3);
    assert.equal(result.responseText, 'looking');
    const limit = rig.sessionEvents(result.sessionId!).find((e) => e.data.limit);
    assert.deepEqual(limit?.data, { session_id: result.sessionId, limit: 'tool_round_limit', turns: 3, tool_rounds: 2 });
  });

  it('stops at max turns', async () => {
    rig = await startRig(openAiChat, { limits: { maxTurns: 2, maxToolRounds: 10 } });
    const list = openAiChat.turn({ toolCalls: [{ name: 'list_dir', arguments: {} }] });
    rig.server.script(list, list);
    const result = await rig.backend.run(rig.request());
    assert.equal(rig.server.requests.length, 2);
    assert.equal(rig.sessionEvents(result.sessionId!).find((e) => e.data.limit)?.data.limit, 'turn_limit');
  });

  it('tools never see the provider credentials', async () => {
    rig = await startRig(openAiChat);
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-must-not-leak';
    try {
      rig.server.script(openAiChat.turn({ toolCalls: [{ id: 's', name: 'shell', arguments: { command: 'echo "key=$OPENAI_API_KEY"' } }] }), openAiChat.turn({ text: 'ok' }));
      await rig.backend.run(rig.request());
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
    assert.equal(toolResultsSent(rig.server.requests[1]!.body)[0]!.content, 'stdout:\nkey=\n');
  });
});

describe('anthropic prompt caching', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('marks the system prompt and the end of the conversation as cache breakpoints, once each', async () => {
    rig = await startRig(anthropic);
    rig.server.script(anthropic.turn({ toolCalls: [{ id: 'l', name: 'list_dir', arguments: {} }] }), anthropic.turn({ text: 'done' }));
    await rig.backend.run(rig.request());
    const body = rig.server.requests[1]!.body as { system: { cache_control?: unknown }[]; messages: { content: { type: string; cache_control?: unknown }[] }[] };
    assert.deepEqual(body.system[0]!.cache_control, { type: 'ephemeral' });
    const marked = body.messages.flatMap((m, i) => m.content.map((b, j) => (b.cache_control ? `${i}.${j}:${b.type}` : undefined))).filter(Boolean);
    assert.deepEqual(marked, [`${body.messages.length - 1}.0:tool_result`]);
  });
});

const thinkingConfig = (body: Record<string, unknown>): unknown => (body.generationConfig as { thinkingConfig?: unknown } | undefined)?.thinkingConfig;

describe('reasoning effort', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  const cases = [
    { flavour: openAiChat, model: 'gpt-5-mini', field: (b: Record<string, unknown>) => b.reasoning_effort, expected: 'low' },
    { flavour: openAiChat, model: 'gpt-4o', field: (b: Record<string, unknown>) => b.reasoning_effort, expected: undefined },
    { flavour: openAiResponses, model: 'o4-mini', field: (b: Record<string, unknown>) => b.reasoning, expected: { effort: 'low' } },
    { flavour: anthropic, model: 'claude-opus-4-6', field: (b: Record<string, unknown>) => b.output_config, expected: { effort: 'low' } },
    { flavour: anthropic, model: 'claude-haiku-4-5', field: (b: Record<string, unknown>) => b.output_config, expected: undefined },
    { flavour: gemini, model: 'gemini-2.5-flash', field: thinkingConfig, expected: { thinkingBudget: 1024 } },
    { flavour: gemini, model: 'gemini-3-pro-preview', field: thinkingConfig, expected: { thinkingLevel: 'LOW' } },
    { flavour: gemini, model: 'gemini-2.0-flash', field: thinkingConfig, expected: undefined },
  ];
  for (const { flavour, model, field, expected } of cases) {
    it(`${flavour.name} ${model}: ${expected === undefined ? 'not sent (the model would refuse it)' : 'sent'}`, async () => {
      rig = await startRig(flavour);
      rig.server.script(flavour.turn({ text: 'ok' }));
      await rig.backend.run(rig.request({ model: { model, reasoningEffort: 'low' } }));
      assert.deepEqual(field(rig.server.requests[0]!.body), expected);
    });
  }
});

describe('wire shapes sent back to the provider', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('Responses: function_call items carry only call_id/name/arguments, then their function_call_output', async () => {
    rig = await startRig(openAiResponses);
    rig.server.script(openAiResponses.turn({ text: 'Listing.', toolCalls: [{ id: 'call_1', name: 'list_dir', arguments: {} }] }), openAiResponses.turn({ text: 'done' }));
    await rig.backend.run(rig.request());
    const body = rig.server.requests[1]!.body;
    assert.equal(body.store, false);
    assert.deepEqual((body.tools as Record<string, unknown>[])[0], { type: 'function', name: 'read_file', description: (body.tools as { description: string }[])[0]!.description, parameters: (body.tools as { parameters: unknown }[])[0]!.parameters, strict: false });
    assert.deepEqual((body.input as unknown[]).slice(1), [
      { role: 'assistant', content: 'Listing.' },
      { type: 'function_call', call_id: 'call_1', name: 'list_dir', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: '(empty directory)' },
    ]);
  });

  it('Chat Completions: the assistant tool_calls message, then one tool message per call', async () => {
    rig = await startRig(openAiChat);
    rig.server.script(openAiChat.turn({ toolCalls: [{ id: 'call_1', name: 'list_dir', arguments: {} }] }), openAiChat.turn({ text: 'done' }));
    await rig.backend.run(rig.request());
    const messages = rig.server.requests[1]!.body.messages as Record<string, unknown>[];
    assert.equal(messages[0]!.role, 'system');
    assert.deepEqual(messages.slice(2), [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_dir', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '(empty directory)' },
    ]);
    assert.deepEqual(rig.server.requests[0]!.body.stream_options, { include_usage: true });
  });

  it('Anthropic: tool_use with parsed input, tool_result first in the very next message, no empty text blocks', async () => {
    rig = await startRig(anthropic);
    rig.server.script(anthropic.turn({ toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'x' } }] }), anthropic.turn({ text: 'done' }));
    await rig.backend.run(rig.request());
    const body = rig.server.requests[1]!.body as { max_tokens: number; messages: { role: string; content: Record<string, unknown>[] }[] };
    assert.equal(body.max_tokens, 8192);
    assert.deepEqual(body.messages[1], { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'x' } }] });
    assert.deepEqual(body.messages[2]!.content.map((b) => [b.type, b.tool_use_id, b.is_error]), [['tool_result', 'toolu_1', true]]);
    assert.ok(body.messages.every((m) => m.role !== 'system' && m.content.every((b) => b.type !== 'text' || b.text !== '')));
  });
});
