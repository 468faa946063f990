import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentEvent, CodergenRequest } from '../../engine/runtime/backend';
import type { GraphNode } from '../../engine/model/graph';
import type { Clock } from '../../engine/runtime/clock';
import type { LlmBackendOptions } from '../../engine/llm/llm-backend';
import { LlmBackend } from '../../engine/llm/llm-backend';
import type { LlmSettings } from '../../engine/llm/provider-settings';
import type { ProviderName } from '../../engine/llm/types';
import { FakeHttpServer } from './fakes/fake-http-server';
import type { RecordedRequest, Reply } from './fakes/fake-http-server';
import { anthropicError, messageStream } from './fakes/anthropic-wire';
import type { FakeTurn } from './fakes/openai-wire';
import { chatStream, openAiError, responsesStream } from './fakes/openai-wire';
import { geminiError, geminiStream } from './fakes/gemini-wire';


export function fakeNode(id: string): GraphNode {
  return { id, attributes: new Map(), idRange: { start: 0, end: 0 }, declarations: [], references: [], derivedClasses: [], subgraphs: [] };
}

/** A request for an LLM node: a plain compact-fidelity prompt unless `overrides` say otherwise. */
export function codergenRequest(overrides: Partial<CodergenRequest> & Pick<CodergenRequest, 'workDir' | 'stageDir'>): CodergenRequest {
  return {
    node: fakeNode('node'),
    prompt: 'Do the task.',
    model: {},
    fidelity: 'compact',
    history: [],
    goalGate: false,
    toolHooks: {},
    confinement: {},
    signal: new AbortController().signal,
    emit: () => undefined,
    ...overrides,
  };
}

/** A clock whose sleeps return at once and are remembered. */
function recordingClock(): Pick<Clock, 'now' | 'sleep'> & { readonly sleeps: number[] } {
  const sleeps: number[] = [];
  let now = Date.parse('2026-11-29T12:00:00Z');
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

/** One provider wire: which SDK path the backend takes and how the fake answers. */
export interface Flavour {
  readonly name: string;
  readonly provider: ProviderName;
  readonly model: string;
  readonly settings: (baseUrl: string) => LlmSettings;
  readonly turn: (turn: FakeTurn) => Reply;
  readonly error: (status: number, message: string, headers?: Record<string, string>) => Reply;
  /** The model a recorded request asked for (Gemini names it in the path, the others in the body). */
  readonly modelSent: (request: RecordedRequest) => unknown;
}

const modelInBody = (request: RecordedRequest): unknown => request.body.model;

export const openAiChat: Flavour = {
  name: 'openai chat completions',
  provider: 'openai',
  model: 'gpt-4o',
  settings: (baseUrl) => ({ openai: { apiKey: 'sk-test', baseUrl: `${baseUrl}/v1`, api: 'chat' }, anthropic: {}, gemini: {} }),
  turn: (turn) => chatStream(turn),
  error: openAiError,
  modelSent: modelInBody,
};

export const openAiResponses: Flavour = {
  name: 'openai responses',
  provider: 'openai',
  model: 'gpt-4o',
  settings: (baseUrl) => ({ openai: { apiKey: 'sk-test', baseUrl: `${baseUrl}/v1`, api: 'responses' }, anthropic: {}, gemini: {} }),
  turn: (turn) => responsesStream(turn),
  error: openAiError,
  modelSent: modelInBody,
};

export const anthropic: Flavour = {
  name: 'anthropic messages',
  provider: 'anthropic',
  model: 'claude-haiku-4-5',
  settings: (baseUrl) => ({ openai: { api: 'chat' }, anthropic: { apiKey: 'sk-ant-test', baseUrl }, gemini: {} }),
  turn: (turn) => messageStream(turn),
  error: (status, message, headers) =>
    anthropicError(status, status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error', message, headers),
  modelSent: modelInBody,
};

export const gemini: Flavour = {
  name: 'gemini generateContent',
  provider: 'gemini',
  model: 'gemini-2.5-flash',
  settings: (baseUrl) => ({ openai: { api: 'chat' }, anthropic: {}, gemini: { apiKey: 'gemini-test-key', baseUrl } }),
  turn: (turn) => geminiStream(turn),
  error: geminiError,
  modelSent: (request) => /^\/v1beta\/models\/([^:]+):streamGenerateContent\?alt=sse$/.exec(request.path)?.[1],
};

export const flavours: readonly Flavour[] = [openAiChat, openAiResponses, anthropic, gemini];

export interface Rig {
  readonly server: FakeHttpServer;
  readonly baseUrl: string;
  readonly backend: LlmBackend;
  readonly clock: ReturnType<typeof recordingClock>;
  readonly workDir: string;
  readonly stageDir: string;
  readonly events: AgentEvent[];
  request(overrides?: Partial<CodergenRequest>): CodergenRequest;
  sessionEvents(sessionId: string): { event: string; timestamp: string; data: Record<string, unknown> }[];
  close(): Promise<void>;
}

export async function startRig(flavour: Flavour, options: Omit<LlmBackendOptions, 'settings' | 'clock'> = {}): Promise<Rig> {
  const server = new FakeHttpServer();
  const baseUrl = await server.start();
  const clock = recordingClock();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-llm-'));
  const workDir = path.join(root, 'work');
  const stageDir = path.join(root, 'logs', 'node');
  fs.mkdirSync(workDir, { recursive: true });
  fs.mkdirSync(stageDir, { recursive: true });
  const events: AgentEvent[] = [];
  const backend = new LlmBackend({ settings: flavour.settings(baseUrl), clock, random: () => 0.5, ...options });
  return {
    server,
    baseUrl,
    backend,
    clock,
    workDir,
    stageDir,
    events,
    request: (overrides = {}) => codergenRequest({ workDir, stageDir, model: { model: flavour.model }, emit: (event) => events.push(event), ...overrides }),
    sessionEvents: (sessionId) =>
      fs
        .readFileSync(path.join(stageDir, 'sessions', sessionId, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; timestamp: string; data: Record<string, unknown> }),
    close: async () => {
      await server.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The tool results the SDK sent back to the provider in request `index`, in a provider-neutral form. */
export function toolResultsSent(body: Record<string, unknown>): { id: string; content: string; isError?: boolean }[] {
  const out: { id: string; content: string; isError?: boolean }[] = [];
  const messages = (body.messages ?? body.input ?? body.contents ?? []) as Record<string, unknown>[];
  for (const message of messages) {
    for (const part of (message.parts ?? []) as { functionResponse?: { id: string; response: { output?: string; error?: string } } }[]) {
      const result = part.functionResponse;
      if (result) out.push({ id: result.id, content: String(result.response.output ?? result.response.error), isError: 'error' in result.response });
    }
    if (message.role === 'tool') out.push({ id: String(message.tool_call_id), content: String(message.content) });
    if (message.type === 'function_call_output') out.push({ id: String(message.call_id), content: String(message.output) });
    if (Array.isArray(message.content)) {
      for (const block of message.content as Record<string, unknown>[]) {
        if (block.type === 'tool_result') out.push({ id: String(block.tool_use_id), content: String(block.content), isError: block.is_error as boolean });
      }
    }
  }
  return out;
}

export function eventNames(events: readonly { event: string }[]): string[] {
  return events.map((e) => e.event);
}
