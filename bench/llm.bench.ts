// Agent-loop cost per turn against a local fake provider (server time subtracted), compared with
// the bare SDK making the same streamed calls, and heap growth over a 200-turn session.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { LlmBackend } from '../engine/llm/llm-backend';
import type { LlmSettings } from '../engine/llm/provider-settings';
import type { LlmResponse, ProviderAdapter } from '../engine/llm/types';
import type { CodergenRequest } from '../engine/runtime/backend';
import { codergenRequest, fakeNode } from '../test/llm/harness';
import { FakeHttpServer } from '../test/llm/fakes/fake-http-server';
import type { Reply } from '../test/llm/fakes/fake-http-server';
import { messageStream } from '../test/llm/fakes/anthropic-wire';
import { chatStream, responsesStream } from '../test/llm/fakes/openai-wire';
import { geminiStream } from '../test/llm/fakes/gemini-wire';
import type { BenchReport } from './report';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const turnsPerSession = 40;
const sessions = 9;

interface Wire {
  readonly name: string;
  readonly model: string;
  readonly settings: (url: string) => LlmSettings;
  readonly reply: Reply;
  /** The same streamed call made with the bare SDK: the floor the loop is measured against. */
  readonly bareCall: (url: string) => () => Promise<void>;
}

const listDir = { toolCalls: [{ name: 'list_dir', arguments: {} }], usage: { input: 50, output: 5 } };
const wires: Wire[] = [
  {
    name: 'openai chat',
    model: 'gpt-4o',
    settings: (url) => ({ openai: { apiKey: 'k', baseUrl: `${url}/v1`, api: 'chat' }, anthropic: {}, gemini: {} }),
    reply: chatStream(listDir),
    bareCall: (url) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
      return async () => {
        for await (const _ of await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: true })) void _;
      };
    },
  },
  {
    name: 'openai responses',
    model: 'gpt-4o',
    settings: (url) => ({ openai: { apiKey: 'k', baseUrl: `${url}/v1`, api: 'responses' }, anthropic: {}, gemini: {} }),
    reply: responsesStream(listDir),
    bareCall: (url) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
      return async () => {
        for await (const _ of await client.responses.create({ model: 'gpt-4o', input: 'x', stream: true })) void _;
      };
    },
  },
  {
    name: 'anthropic messages',
    model: 'claude-haiku-4-5',
    settings: (url) => ({ openai: { api: 'chat' }, anthropic: { apiKey: 'k', baseUrl: url }, gemini: {} }),
    reply: messageStream(listDir),
    bareCall: (url) => {
      const client = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
      return async () => {
        for await (const _ of await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], stream: true })) void _;
      };
    },
  },
  {
    name: 'gemini generateContent',
    model: 'gemini-2.5-flash',
    settings: (url) => ({ openai: { api: 'chat' }, anthropic: {}, gemini: { apiKey: 'k', baseUrl: url } }),
    reply: geminiStream(listDir),
    bareCall: (url) => {
      const client = new GoogleGenAI({ apiKey: 'k', vertexai: false, httpOptions: { baseUrl: url } });
      return async () => {
        for await (const _ of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'x', config: { maxOutputTokens: 10 } })) void _;
      };
    },
  },
];

function request(root: string, index: number): CodergenRequest {
  const stageDir = path.join(root, 'logs', `s${index}`);
  fs.mkdirSync(stageDir, { recursive: true });
  return codergenRequest({ node: fakeNode('bench'), prompt: 'List the directory until told to stop.', workDir: path.join(root, 'work'), stageDir });
}

interface Sample {
  readonly loop: number;
  readonly bare: number;
}

/**
 * Per-turn client milliseconds (wall minus the fake server's own handling) of an agent session and
 * of the same number of bare SDK calls, interleaved round by round so machine load hits both alike.
 */
async function measure(wire: Wire, root: string): Promise<Sample> {
  const server = new FakeHttpServer({ record: false }).always(() => wire.reply);
  const url = await server.start();
  const backend = new LlmBackend({ settings: wire.settings(url), limits: { maxTurns: turnsPerSession, maxToolRounds: turnsPerSession } });
  const bare = wire.bareCall(url);
  const clientMs = async (work: () => Promise<unknown>): Promise<number> => {
    const serverBefore = server.serverMs;
    const started = performance.now();
    await work();
    return (performance.now() - started - (server.serverMs - serverBefore)) / turnsPerSession;
  };
  const samples: { loop: number; bare: number }[] = [];
  for (let round = 0; round <= sessions; round++) {
    const loop = await clientMs(() => backend.run({ ...request(root, round), model: { model: wire.model } }));
    const direct = await clientMs(async () => {
      for (let i = 0; i < turnsPerSession; i++) await bare();
    });
    if (round > 0) samples.push({ loop, bare: direct }); // round 0 warms up the SDK and the JIT
  }
  await server.stop();
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  return { loop: median(samples.map((s) => s.loop)), bare: median(samples.map((s) => s.bare))};
}

/**
 * The loop's own cost per turn — building the request, dispatching the tool through hooks and
 * breaker, recording events.jsonl — with an in-memory adapter, so neither HTTP nor SDK is in it.
 */
async function loopAlonePerTurn(root: string): Promise<number> {
  const response: LlmResponse = {
    id: 'mem',
    model: 'gpt-4o',
    provider: 'openai',
    message: { role: 'assistant', content: [{ kind: 'tool_call', id: 'c', name: 'list_dir', rawArguments: '{}' }] },
    finishReason: 'tool_calls',
    usage: { inputTokens: 50, outputTokens: 5 },
    costUsd: 0,
  };
  const adapter: ProviderAdapter = {
    provider: 'openai',
    api: 'memory',
    async *stream() {
      yield { type: 'finish', response };
    },
  };
  const backend = new LlmBackend({ settings: wires[0]!.settings('http://unused'), createAdapter: () => adapter, limits: { maxTurns: turnsPerSession, maxToolRounds: turnsPerSession } });
  const perTurn: number[] = [];
  for (let round = 0; round <= sessions; round++) {
    const started = performance.now();
    await backend.run({ ...request(root, 100 + round), model: { model: 'gpt-4o' } });
    if (round > 0) perTurn.push((performance.now() - started) / turnsPerSession);
  }
  return perTurn.sort((a, b) => a - b)[Math.floor(perTurn.length / 2)] ?? 0;
}

async function heapOver200Turns(root: string): Promise<{ growthMb: number; peakMb: number }> {
  const wire = wires[0]!;
  const server = new FakeHttpServer({ record: false }).always(() => wire.reply);
  const url = await server.start();
  const backend = new LlmBackend({ settings: wire.settings(url), limits: { maxTurns: 200, maxToolRounds: 200 } });
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  await backend.run({ ...request(root, 999), model: { model: wire.model } });
  clearInterval(sampler);
  gc();
  const after = process.memoryUsage().heapUsed;
  await server.stop();
  const mb = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(2));
  return { growthMb: mb(after - before), peakMb: mb(peak - before) };
}

export default async function llmBench(): Promise<BenchReport> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'llm-bench-'));
  fs.mkdirSync(path.join(root, 'work'));
  for (const name of ['a.txt', 'b.txt', 'c.txt']) fs.writeFileSync(path.join(root, 'work', name), name);
  const figures: Record<string, number> = {};
  try {
    for (const wire of wires) {
      const { loop, bare } = await measure(wire, root);
      figures[`${wire.name}: agent turn, client side (ms)`] = Number(loop.toFixed(3));
      figures[`${wire.name}: bare SDK streamed call (ms)`] = Number(bare.toFixed(3));
    }
    figures['agent loop alone, in-memory provider: per turn (ms)'] = Number((await loopAlonePerTurn(root)).toFixed(3));
    const heap = await heapOver200Turns(root);
    figures['200-turn session: heap retained after (MB)'] = heap.growthMb;
    figures['200-turn session: peak heap above start (MB)'] = heap.peakMb;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return {
    name: 'llm agent loop',
    figures,
    notes: `load average ${os.loadavg()[0]?.toFixed(1)} while measuring; ${turnsPerSession}-turn sessions (list_dir each turn), median of ${sessions}; the fake server's own handling time is subtracted; agent and bare-SDK rounds interleaved; the in-memory figure is the loop's own cost (tool dispatch, hooks, breaker, events.jsonl, request building)`,
  };
}
