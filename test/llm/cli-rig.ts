import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeHttpServer } from './fakes/fake-http-server';
import type { Reply } from './fakes/fake-http-server';
import type { FakeTurn } from './fakes/openai-wire';
import { chatBody, chatStream, responsesBody, responsesStream } from './fakes/openai-wire';
import { messageBody, messageStream } from './fakes/anthropic-wire';
import { geminiJsonArray, geminiStream } from './fakes/gemini-wire';
import { runCli } from './cli-process';

/** One provider API as `attractor run` reaches it: a model name, the environment, and how the wire server answers. */
export interface CliFlavour {
  readonly name: string;
  readonly model: string;
  readonly env: (baseUrl: string) => Record<string, string>;
  readonly stream: (turn: FakeTurn) => Reply;
  /** The same reply as one JSON body (a server that ignores `stream: true`). */
  readonly body: (turn: FakeTurn) => Reply;
}

export const cliChat: CliFlavour = {
  name: 'openai chat completions',
  model: 'gpt-4o',
  env: (baseUrl) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${baseUrl}/v1`, ATTRACTOR_OPENAI_API: 'chat' }),
  stream: (turn) => chatStream(turn),
  body: (turn) => chatBody(turn),
};

export const cliResponses: CliFlavour = {
  name: 'openai responses',
  model: 'gpt-4o',
  env: (baseUrl) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${baseUrl}/v1`, ATTRACTOR_OPENAI_API: 'responses' }),
  stream: (turn) => responsesStream(turn),
  body: (turn) => responsesBody(turn),
};

export const cliAnthropic: CliFlavour = {
  name: 'anthropic messages',
  model: 'claude-haiku-4-5',
  env: (baseUrl) => ({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: baseUrl }),
  stream: (turn) => messageStream(turn),
  body: (turn) => messageBody(turn),
};

export const cliGemini: CliFlavour = {
  name: 'gemini generateContent',
  model: 'gemini-2.5-flash',
  env: (baseUrl) => ({ GEMINI_API_KEY: 'gemini-test-key', GEMINI_BASE_URL: baseUrl }),
  stream: (turn) => geminiStream(turn),
  body: (turn) => geminiJsonArray(turn),
};

export const cliFlavours: readonly CliFlavour[] = [cliChat, cliResponses, cliAnthropic, cliGemini];

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The `--json` summary line. */
  readonly summary: { status: string; failure_reason: string | null; logs_root: string };
}

/** A wire server on 127.0.0.1, a scratch directory, and `attractor run` of a DOT text against them. */
export class CliRig {
  readonly server = new FakeHttpServer();
  baseUrl = '';
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-cli-'));
  readonly work = path.join(this.dir, 'work');
  readonly logs = path.join(this.dir, 'logs');

  async start(): Promise<this> {
    this.baseUrl = await this.server.start();
    fs.mkdirSync(this.work);
    return this;
  }

  async run(dot: string, env: Record<string, string>): Promise<RunResult> {
    const file = path.join(this.dir, 'pipeline.dot');
    fs.writeFileSync(file, dot);
    const result = await runCli(['run', file, '--cwd', this.work, '--logs-root', this.logs, '--json'], env);
    const last = result.stdout.trim().split('\n').at(-1) || '{}';
    return { ...result, summary: JSON.parse(last) as RunResult['summary'] };
  }

  /** The request bodies the SDKs sent to one API path (`/v1/messages`, `/v1/chat/completions`, `/v1/responses`, `:streamGenerateContent?alt=sse`). */
  bodies(pathSuffix?: string): Record<string, unknown>[] {
    return this.server.requests.filter((r) => !pathSuffix || r.path.endsWith(pathSuffix)).map((r) => r.body);
  }

  readJson<T>(...segments: string[]): T {
    return JSON.parse(fs.readFileSync(path.join(this.logs, ...segments), 'utf8')) as T;
  }

  /** The events of `node`'s agent session: its one visit's, failed or not (a failed node's status.json names none). */
  sessionEvents(node: string): { event: string; data: Record<string, unknown> }[] {
    const sessions = path.join(this.logs, node, 'sessions');
    const [session, ...more] = fs.readdirSync(sessions);
    if (session === undefined || more.length > 0) throw new Error(`${node} has ${more.length + (session ? 1 : 0)} agent sessions, not one`);
    return fs
      .readFileSync(path.join(sessions, session, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; data: Record<string, unknown> });
  }

  traceRecords(): Record<string, unknown>[] {
    return fs
      .readFileSync(path.join(this.logs, 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
