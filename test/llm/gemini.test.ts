import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { createAdapter } from '../../engine/llm/adapter-factory';
import type { LlmResponse, Message } from '../../engine/llm/types';
import { ProviderError } from '../../engine/runtime/backend';
import { geminiJsonArray, geminiStream, geminiStreamError, generateContentChunks } from './fakes/gemini-wire';
import type { Rig } from './harness';
import { gemini, startRig, toolResultsSent } from './harness';

interface SentPart {
  text?: string;
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args: unknown };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}
type SentContents = { role: string; parts: SentPart[] }[];

const strictSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };

describe('gemini generateContent on the wire', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('streams from /v1beta/models/{model}:streamGenerateContent?alt=sse with the key in x-goog-api-key, and replays functionCall and functionResponse parts with their ids, names and thought signature', async () => {
    rig = await startRig(gemini);
    rig.server.script(
      geminiStream({ text: 'Listing.', toolCalls: [{ id: 'fc-1', name: 'list_dir', arguments: {} }, { id: 'fc-2', name: 'read_file', arguments: { path: 'missing.txt' } }] }, { signature: 'c2lnbmF0dXJl' }),
      geminiStream({ text: 'done' }),
    );
    const result = await rig.backend.run(rig.request());
    assert.equal(result.responseText, 'done');
    const [first, second] = rig.server.requests;
    assert.equal(first!.method, 'POST');
    assert.equal(first!.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    assert.equal(first!.headers['x-goog-api-key'], 'gemini-test-key');
    assert.match(String((first!.body.systemInstruction as { parts: { text: string }[] }).parts[0]!.text), /node/);
    const declarations = (first!.body.tools as { functionDeclarations: { name: string; parametersJsonSchema: { type: string } }[] }[])[0]!.functionDeclarations;
    assert.ok(declarations.some((d) => d.name === 'report_outcome' && d.parametersJsonSchema.type === 'object'));
    assert.equal(first!.body.toolConfig, undefined, 'the model chooses (AUTO) unless a call is forced');

    const contents = second!.body.contents as SentContents;
    assert.deepEqual(contents.slice(1), [
      {
        role: 'model',
        parts: [
          { text: 'Listing.' },
          { functionCall: { id: 'fc-1', name: 'list_dir', args: {} }, thoughtSignature: 'c2lnbmF0dXJl' },
          { functionCall: { id: 'fc-2', name: 'read_file', args: { path: 'missing.txt' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc-1', name: 'list_dir', response: { output: '(empty directory)' } } },
          { functionResponse: { id: 'fc-2', name: 'read_file', response: { error: contents[2]!.parts[1]!.functionResponse!.response.error } } },
        ],
      },
    ]);
    assert.deepEqual(
      toolResultsSent(second!.body).map((r) => [r.id, r.isError]),
      [
        ['fc-1', false],
        ['fc-2', true],
      ],
    );
  });

  it('gives calls without an id one of its own, so that their results still pair up', async () => {
    rig = await startRig(gemini);
    rig.server.script(geminiStream({ toolCalls: [{ name: 'list_dir', arguments: {} }] }), geminiStream({ text: 'ok' }));
    const result = await rig.backend.run(rig.request());
    const call = (rig.server.requests[1]!.body.contents as SentContents)[1]!.parts[0]!.functionCall!;
    const response = (rig.server.requests[1]!.body.contents as SentContents)[2]!.parts[0]!.functionResponse!;
    assert.match(call.id ?? '', /^call_[0-9a-f]{24}$/, 'an id other providers accept too (OpenAI: at most 40 characters)');
    assert.equal(response.id, call.id);
    assert.equal(response.name, 'list_dir');
    const post = rig.sessionEvents(result.sessionId!).find((e) => e.event === 'tool:post');
    assert.equal(post?.data.call_id, call.id);
  });

  it('full fidelity: a thread carried from another provider replays its calls as functionCall parts with the documented stand-in signature', async () => {
    rig = await startRig(gemini);
    rig.server.script(geminiStream({ text: 'ok' }));
    const adapter = await createAdapter('gemini', gemini.settings(rig.baseUrl));
    const thread: Message[] = [
      { role: 'user', content: [{ kind: 'text', text: 'Write the plan.' }] },
      { role: 'assistant', content: [{ kind: 'text', text: 'Writing.' }, { kind: 'tool_call', id: 'call_abc', name: 'write_file', rawArguments: '{"path":"plan.md","content":"x"}' }] },
      { role: 'user', content: [{ kind: 'tool_result', toolCallId: 'call_abc', content: 'wrote 1 bytes to plan.md', isError: false }] },
      { role: 'assistant', content: [{ kind: 'text', text: 'Plan written.' }] },
      { role: 'user', content: [{ kind: 'text', text: 'Review it.' }] },
    ];
    let response: LlmResponse | undefined;
    for await (const event of adapter.stream({ model: 'gemini-3-pro-preview', messages: thread, tools: [] }, new AbortController().signal)) if (event.type === 'finish') response = event.response;
    assert.equal(response?.message.content[0]?.kind === 'text' && response.message.content[0].text, 'ok');
    assert.deepEqual(rig.server.requests[0]!.body.contents, [
      { role: 'user', parts: [{ text: 'Write the plan.' }] },
      { role: 'model', parts: [{ text: 'Writing.' }, { functionCall: { id: 'call_abc', name: 'write_file', args: { path: 'plan.md', content: 'x' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { id: 'call_abc', name: 'write_file', response: { output: 'wrote 1 bytes to plan.md' } } }] },
      { role: 'model', parts: [{ text: 'Plan written.' }] },
      { role: 'user', parts: [{ text: 'Review it.' }] },
    ]);
    assert.equal(rig.server.requests[0]!.path, '/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse');
  });

  it('a stream that ends without a finishReason is a transient error: retried, and the retry is answered', async () => {
    rig = await startRig(gemini);
    rig.server.script(geminiStream({ text: 'I will now wri', truncate: true }), geminiStream({ text: 'Complete answer.' }));
    const result = await rig.backend.run(rig.request());
    assert.equal(result.responseText, 'Complete answer.');
    assert.equal(rig.server.requests.length, 2);
    const retry = rig.sessionEvents(result.sessionId!).find((e) => e.data.provider_retry === 1);
    assert.match(String(retry?.data.error), /^gemini: the stream ended without a final finishReason \(incomplete response\)$/);
  });

  it('follows a long decode the server splits into hops (continuationToken): one answer, no retry', async () => {
    rig = await startRig(gemini);
    const hop = (text: string, candidate: Record<string, unknown>): string =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...candidate }], modelVersion: 'gemini-2.5-flash', usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 } })}\r\n\r\n`;
    rig.server.script({ kind: 'sse', records: [hop('Part one. ', { continuationToken: 'tok-1', finishReason: 'CONTINUATION' })] }, { kind: 'sse', records: [hop('Part two.', { finishReason: 'STOP' })] });
    const result = await rig.backend.run(rig.request());
    assert.equal(result.responseText, 'Part one. Part two.');
    assert.equal(rig.server.requests[1]!.body.continuationToken, 'tok-1');
    assert.equal(rig.sessionEvents(result.sessionId!).filter((e) => e.data.provider_retry !== undefined).length, 0);
  });

  it('an incomplete stream that stays incomplete fails the node saying so, never as a partial answer', async () => {
    rig = await startRig(gemini, { retryPolicy: { maxRetries: 2, backoff: { initialDelayMs: 1000, factor: 2, maxDelayMs: 30_000, jitter: 0.2 }, maxRetryAfterMs: 120_000 } });
    const cut = geminiStream({ text: 'I will now wri', toolCalls: [{ name: 'write_file', arguments: { path: 'a', content: 'b' } }], truncate: true });
    rig.server.script(cut, cut, cut);
    const error = await rig.backend.run(rig.request()).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.transient, true);
    assert.match(error.message, /the stream ended without a final finishReason \(incomplete response\)/);
    assert.deepEqual(rig.clock.sleeps, [1000, 2000]);
    assert.equal(rig.server.requests.length, 3);
  });

  it('a stream cut inside a record is the same transient error', async () => {
    rig = await startRig(gemini, { retryPolicy: { maxRetries: 0, backoff: { initialDelayMs: 1, factor: 2, maxDelayMs: 1, jitter: 0.2 }, maxRetryAfterMs: 1 } });
    rig.server.script({ kind: 'sse', records: ['data: {"candidates": [{"content": {"parts": [{"text": "I will now wri'] });
    const error = await rig.backend.run(rig.request()).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.transient, true);
    assert.match(error.message, /^gemini: the stream broke off inside a record/);
  });

  for (const [label, reply] of [
    ['a JSON array (streamGenerateContent without alt=sse)', geminiJsonArray({ text: 'Writing.', toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] })],
    [
      'one GenerateContentResponse object (generateContent)',
      {
        kind: 'json' as const,
        status: 200,
        body: {
          candidates: [{ content: { role: 'model', parts: [{ functionCall: { id: 'w', name: 'write_file', args: { path: 'a.txt', content: 'a' } } }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
          modelVersion: 'gemini-2.5-flash',
          responseId: 'resp-json',
        },
      },
    ],
  ] as const) {
    it(`reads a plain JSON body sent to a streaming request: ${label}`, async () => {
      rig = await startRig(gemini);
      rig.server.script(reply, geminiStream({ text: 'done' }));
      const result = await rig.backend.run(rig.request());
      assert.equal(result.responseText, 'done');
      assert.deepEqual(toolResultsSent(rig.server.requests[1]!.body).map((r) => [r.id, r.content]), [['w', 'wrote 1 bytes to a.txt']], 'the tool call in the body was run');
    });
  }

  it('a reply without usageMetadata costs unknown, never $0', async () => {
    rig = await startRig(gemini);
    rig.server.script(geminiStream({ text: 'ok', usage: null }));
    const result = await rig.backend.run(rig.request());
    assert.deepEqual(result.usage, { inputTokens: 'unknown', outputTokens: 'unknown', costUsd: 'unknown', requests: 1 });
    const usage = rig.sessionEvents(result.sessionId!).find((e) => e.event === 'usage');
    assert.equal(usage?.data.cost_usd, 'unknown');
  });

  it('counts thinking as output and cached prompt tokens as cache reads, and prices them', async () => {
    rig = await startRig(gemini);
    const chunks = generateContentChunks({ text: 'ok' });
    const last = { ...chunks.at(-1)!, usageMetadata: { promptTokenCount: 1000, cachedContentTokenCount: 400, candidatesTokenCount: 50, thoughtsTokenCount: 150, totalTokenCount: 1200 } };
    rig.server.script({ kind: 'sse', records: [...chunks.slice(0, -1), last].map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`) });
    const result = await rig.backend.run(rig.request());
    assert.deepEqual(result.usage, { inputTokens: 1000, outputTokens: 200, costUsd: (600 * 0.3 + 400 * 0.03 + 200 * 2.5) / 1e6, requests: 1 });
    const usage = rig.sessionEvents(result.sessionId!).find((e) => e.event === 'usage');
    assert.equal(usage?.data.reasoning_tokens, 150);
    assert.equal(usage?.data.cache_read_tokens, 400);
  });

  it('an error record inside the stream (503 UNAVAILABLE) is retried', async () => {
    rig = await startRig(gemini);
    rig.server.script(geminiStreamError(503, 'The model is overloaded. Please try again later.'), geminiStream({ text: 'recovered' }));
    const result = await rig.backend.run(rig.request());
    assert.equal(result.responseText, 'recovered');
    const retry = rig.sessionEvents(result.sessionId!).find((e) => e.data.provider_retry === 1);
    assert.equal(retry?.data.status, 503);
    assert.equal(retry?.data.error, 'gemini 503: The model is overloaded. Please try again later.');
  });

  it('a blocked prompt fails at once, not as an incomplete stream', async () => {
    rig = await startRig(gemini);
    rig.server.script({ kind: 'sse', records: [`data: ${JSON.stringify({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 }, modelVersion: 'gemini-2.5-flash' })}\r\n\r\n`] });
    const error = await rig.backend.run(rig.request()).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.transient, false);
    assert.match(error.message, /gemini: the prompt was blocked \(PROHIBITED_CONTENT\)/);
    assert.equal(rig.server.requests.length, 1);
  });

  it('structured output: the schema is a tool; a prose answer gets one final call forced onto it (mode ANY), whose arguments are the answer', async () => {
    rig = await startRig(gemini);
    rig.server.script(geminiStream({ text: 'Her name is Alice.' }), geminiStream({ toolCalls: [{ name: '__structured_output__', arguments: { name: 'Alice' } }] }));
    const result = await rig.backend.run(rig.request({ responseSchema: strictSchema }));
    assert.deepEqual(result.structuredOutput, { name: 'Alice' });
    assert.equal(result.responseText, '{"name":"Alice"}');
    const [first, final] = rig.server.requests.map((r) => r.body);
    const schemaTool = (first!.tools as { functionDeclarations: { name: string; parametersJsonSchema: unknown }[] }[])[0]!.functionDeclarations.find((d) => d.name === '__structured_output__');
    assert.deepEqual(schemaTool?.parametersJsonSchema, strictSchema);
    assert.deepEqual(final!.toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['__structured_output__'] } });
    assert.deepEqual((final!.tools as { functionDeclarations: { name: string }[] }[])[0]!.functionDeclarations.map((d) => d.name), ['__structured_output__']);
  });
});
