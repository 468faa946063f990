import type { TranscriptMessage } from './backend';
import { isRecord } from '../model/json';

type Part = TranscriptMessage['content'][number];

function partFrom(value: unknown, role: TranscriptMessage['role']): Part | undefined {
  if (!isRecord(value)) return undefined;
  if (value.kind === 'text' && typeof value.text === 'string') return { kind: 'text', text: value.text };
  if (role === 'assistant' && value.kind === 'tool_call' && typeof value.id === 'string' && typeof value.name === 'string' && typeof value.rawArguments === 'string') {
    // Gemini 3 must get its own thought signature back with its call, after a resume too.
    const signature = typeof value.thoughtSignature === 'string' ? { thoughtSignature: value.thoughtSignature } : {};
    return { kind: 'tool_call', id: value.id, name: value.name, rawArguments: value.rawArguments, ...signature };
  }
  if (role === 'user' && value.kind === 'tool_result' && typeof value.toolCallId === 'string' && typeof value.content === 'string') {
    return { kind: 'tool_result', toolCallId: value.toolCallId, content: value.content, isError: value.isError === true };
  }
  return undefined;
}

function messageFrom(value: unknown): TranscriptMessage | undefined {
  if (!isRecord(value) || (value.role !== 'user' && value.role !== 'assistant')) return undefined;
  const role = value.role;
  // Checkpoints written before threads kept tool calls hold each message's text as a plain string.
  const raw = typeof value.content === 'string' ? [{ kind: 'text', text: value.content }] : value.content;
  if (!Array.isArray(raw)) return undefined;
  const parts = raw.map((part) => partFrom(part, role));
  if (parts.some((part) => part === undefined)) return undefined;
  return role === 'user'
    ? { role, content: parts.filter((part): part is Extract<Part, { kind: 'text' | 'tool_result' }> => part?.kind !== 'tool_call') }
    : { role, content: parts.filter((part): part is Extract<Part, { kind: 'text' | 'tool_call' }> => part?.kind !== 'tool_result') };
}

/**
 * A checkpoint's `full`-fidelity threads, read defensively: earlier string-content messages become
 * text parts; a thread holding anything else is the problem of the message that names it.
 */
export function threadsFromCheckpoint(value: Readonly<Record<string, unknown>>): { ok: true; threads: Record<string, TranscriptMessage[]> } | { ok: false; thread: string } {
  const threads: Record<string, TranscriptMessage[]> = {};
  for (const [key, messages] of Object.entries(value)) {
    const read = Array.isArray(messages) ? messages.map(messageFrom) : [undefined];
    if (read.some((message) => message === undefined)) return { ok: false, thread: key };
    threads[key] = read as TranscriptMessage[];
  }
  return { ok: true, threads };
}
