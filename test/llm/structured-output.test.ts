import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { isStrictCompatible } from '../../engine/llm/structured-output';
import type { Rig } from './harness';
import { anthropic, openAiChat, openAiResponses, startRig } from './harness';

const strictSchema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'], additionalProperties: false };
const looseSchema = { type: 'object', properties: { name: { type: 'string' } } };

describe('strict-schema detection', () => {
  it('accepts closed objects with every property required, at every depth', () => {
    assert.equal(isStrictCompatible(strictSchema), true);
    assert.equal(isStrictCompatible(looseSchema), false);
    assert.equal(isStrictCompatible({ ...strictSchema, properties: { ...strictSchema.properties, inner: looseSchema }, required: ['name', 'age', 'inner'] }), false);
    assert.equal(isStrictCompatible({ type: 'array', items: strictSchema }), true);
  });
});

describe('structured output', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('OpenAI chat: sends response_format json_schema (strict when the schema allows) and parses the answer', async () => {
    rig = await startRig(openAiChat);
    rig.server.script(openAiChat.turn({ text: '{"name":"Alice","age":30}' }));
    const result = await rig.backend.run(rig.request({ responseSchema: strictSchema }));
    assert.deepEqual(result.structuredOutput, { name: 'Alice', age: 30 });
    assert.deepEqual(rig.server.requests[0]!.body.response_format, { type: 'json_schema', json_schema: { name: 'response', schema: strictSchema, strict: true } });
  });

  it('OpenAI chat: a schema that is not strict-compatible is sent with strict false, not rewritten', async () => {
    rig = await startRig(openAiChat);
    rig.server.script(openAiChat.turn({ text: '{"name":"Bob"}' }));
    await rig.backend.run(rig.request({ responseSchema: looseSchema }));
    assert.deepEqual(rig.server.requests[0]!.body.response_format, { type: 'json_schema', json_schema: { name: 'response', schema: looseSchema, strict: false } });
  });

  it('OpenAI responses: sends text.format json_schema', async () => {
    rig = await startRig(openAiResponses);
    rig.server.script(openAiResponses.turn({ text: '{"name":"Alice","age":30}' }));
    const result = await rig.backend.run(rig.request({ responseSchema: strictSchema }));
    assert.deepEqual(result.structuredOutput, { name: 'Alice', age: 30 });
    assert.deepEqual(rig.server.requests[0]!.body.text, { format: { type: 'json_schema', name: 'response', schema: strictSchema, strict: true } });
  });

  it('Anthropic: the schema is a tool; a prose answer gets one final call that forces it, whose input is the answer', async () => {
    rig = await startRig(anthropic);
    rig.server.script(anthropic.turn({ text: 'Her name is Alice, she is 30.' }), anthropic.turn({ toolCalls: [{ name: '__structured_output__', arguments: { name: 'Alice', age: 30 } }] }));
    const result = await rig.backend.run(rig.request({ responseSchema: strictSchema }));
    assert.deepEqual(result.structuredOutput, { name: 'Alice', age: 30 });
    assert.equal(result.responseText, '{"name":"Alice","age":30}');
    const [first, final] = rig.server.requests.map((r) => r.body);
    const schemaTool = (first!.tools as { name: string; input_schema: unknown }[]).find((t) => t.name === '__structured_output__');
    assert.deepEqual(schemaTool?.input_schema, strictSchema);
    assert.equal(first!.tool_choice, undefined);
    assert.deepEqual(final!.tool_choice, { type: 'tool', name: '__structured_output__' });
    assert.deepEqual((final!.tools as { name: string }[]).map((t) => t.name), ['__structured_output__']);
  });

  it('Anthropic: a schema-tool call mid-session is the final answer, with no tool result owed', async () => {
    rig = await startRig(anthropic);
    rig.server.script(anthropic.turn({ text: 'Here it is.', toolCalls: [{ name: '__structured_output__', arguments: { name: 'Eve', age: 41 } }] }));
    const result = await rig.backend.run(rig.request({ responseSchema: strictSchema }));
    assert.deepEqual(result.structuredOutput, { name: 'Eve', age: 41 });
    assert.equal(rig.server.requests.length, 1);
  });
});
