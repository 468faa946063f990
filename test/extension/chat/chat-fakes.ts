import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { VscodeLanguageModel, VscodeMessageFactory } from '../../../extension/chat/chat-model';
import type { Cancellation, ChatDeps, ResponseStreamLike } from '../../../extension/chat/chat-types';
import { expertPromptPath, loadExpertPrompt } from '../../../extension/chat/expert-prompt';
import type { PipelineRunner } from '../../../extension/chat/run-tool';

export const repoRoot = path.resolve(import.meta.dirname, '../../..');

export type StreamPart = { readonly kind: 'markdown' | 'progress'; readonly value: string } | { readonly kind: 'button'; readonly command: string; readonly title: string; readonly arguments: unknown[] };

/** A ChatResponseStream that keeps every part it is given. */
export class FakeResponseStream implements ResponseStreamLike {
  readonly parts: StreamPart[] = [];
  markdown(value: string): void {
    this.parts.push({ kind: 'markdown', value });
  }
  progress(value: string): void {
    this.parts.push({ kind: 'progress', value });
  }
  button(command: { command: string; title: string; arguments?: unknown[] }): void {
    this.parts.push({ kind: 'button', command: command.command, title: command.title, arguments: command.arguments ?? [] });
  }
  get text(): string {
    return this.parts.flatMap((part) => (part.kind === 'markdown' ? [part.value] : [])).join('');
  }
  get progressLines(): string[] {
    return this.parts.flatMap((part) => (part.kind === 'progress' ? [part.value] : []));
  }
  get buttons(): Extract<StreamPart, { kind: 'button' }>[] {
    return this.parts.filter((part): part is Extract<StreamPart, { kind: 'button' }> => part.kind === 'button');
  }
}

export type FakeMessage = { readonly role: 'user' | 'assistant'; readonly text: string };

const fakeMessages: VscodeMessageFactory = {
  User: (text) => ({ role: 'user', text }) satisfies FakeMessage,
  Assistant: (text) => ({ role: 'assistant', text }) satisfies FakeMessage,
};

/** A `LanguageModelChat` answering from a script, in chunks, and remembering what it was sent. */
export class ScriptedLanguageModel implements VscodeLanguageModel {
  readonly name = 'Scripted Model';
  readonly received: FakeMessage[][] = [];
  constructor(private readonly answers: string[]) {}
  async sendRequest(messages: unknown[]): Promise<{ text: AsyncIterable<string> }> {
    this.received.push(messages as FakeMessage[]);
    const answer = this.answers.shift();
    if (answer === undefined) throw new Error('scripted model: no answer left');
    return {
      text: (async function* () {
        for (let i = 0; i < answer.length; i += 40) yield answer.slice(i, i + 40);
      })(),
    };
  }
}

export const cancel: Cancellation = { signal: new AbortController().signal, token: {} };

export function tempWorkspace(files: Record<string, string> = {}): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-chat-ws-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

const notRunning: PipelineRunner = async () => {
  throw new Error('this test does not run pipelines');
};

export function deps(overrides: Partial<ChatDeps> = {}): ChatDeps {
  return {
    workspaceRoot: () => undefined,
    trusted: () => true,
    runner: notRunning,
    providerModel: () => undefined,
    activePipeline: () => undefined,
    expertPrompt: () => loadExpertPrompt(expertPromptPath(repoRoot)),
    messages: fakeMessages,
    ...overrides,
  };
}
