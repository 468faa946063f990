import fs from 'node:fs';
import path from 'node:path';
import type { CodergenBackend, CodergenRequest, CodergenResult, ReportedOutcome } from './backend';
import { ProviderError } from './backend';
import type { Answer } from './interviewer';
import { QueueInterviewer } from './interviewer';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';

/**
 * The scripted backend and queue interviewer behind `--scripted FILE` (format: the conformance
 * README's case.json `llm` and `human` sections). Everything else in a scripted run is real.
 */
export interface ScriptedEntry {
  readonly text?: string;
  readonly report_outcome?: ReportedOutcome;
  readonly writes?: Readonly<Record<string, string>>;
  readonly error?: { readonly status: number; readonly message: string };
}

export interface Script {
  readonly llm: Readonly<Record<string, readonly ScriptedEntry[]>>;
  readonly human: Readonly<Record<string, readonly Answer[]>>;
}

export class ScriptError extends Error {
  override readonly name = 'ScriptError';
}

export function loadScript(file: string): Script {
  let data: unknown;
  try {
    data = JSON.parse(readFileChecked(file, READ_LIMITS.script));
  } catch (error) {
    throw new ScriptError(`cannot read script ${file}: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null) throw new ScriptError(`script ${file} is not a JSON object`);
  const record = data as { llm?: unknown; human?: unknown };
  return { llm: parseLlm(record.llm, file), human: parseHuman(record.human, file) };
}

function parseLlm(value: unknown, file: string): Script['llm'] {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null) throw new ScriptError(`${file}: "llm" must map node ids to lists of entries`);
  const out: Record<string, ScriptedEntry[]> = {};
  for (const [node, list] of Object.entries(value)) {
    if (!Array.isArray(list) || list.length === 0) throw new ScriptError(`${file}: llm.${node} must be a non-empty list`);
    out[node] = list as ScriptedEntry[];
  }
  return out;
}

function parseHuman(value: unknown, file: string): Script['human'] {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null) throw new ScriptError(`${file}: "human" must map gate ids to lists of answers`);
  const out: Record<string, Answer[]> = {};
  for (const [node, list] of Object.entries(value)) {
    if (!Array.isArray(list)) throw new ScriptError(`${file}: human.${node} must be a list`);
    out[node] = list.map((answer): Answer => {
      if (answer === 'SKIPPED') return { kind: 'skipped' };
      if (answer === 'TIMEOUT') return { kind: 'timeout' };
      if (typeof answer === 'string') return { kind: 'option', choice: answer };
      if (typeof answer === 'object' && answer !== null && typeof (answer as { freeform?: unknown }).freeform === 'string') {
        return { kind: 'freeform', text: (answer as { freeform: string }).freeform };
      }
      throw new ScriptError(`${file}: human.${node} has an answer that is neither a string nor {"freeform": text}`);
    });
  }
  return out;
}

export class ScriptedBackend implements CodergenBackend {
  readonly name = 'scripted';
  private readonly visits = new Map<string, number>();

  constructor(private readonly script: Script) {}

  preflight(): [] {
    return [];
  }

  async run(request: CodergenRequest): Promise<CodergenResult> {
    const list = this.script.llm[request.node.id] ?? this.script.llm['*'];
    if (!list) return { responseText: '' };
    const visit = this.visits.get(request.node.id) ?? 0;
    this.visits.set(request.node.id, visit + 1);
    const entry = list[Math.min(visit, list.length - 1)] as ScriptedEntry;
    // A scripted answer is one model turn.
    await request.beforeTurn?.(1);
    request.emit({ event: 'prompt:submit', data: { scripted: true, visit: visit + 1 } });
    if (entry.error) {
      const transient = entry.error.status === 429 || entry.error.status >= 500;
      throw new ProviderError(`scripted provider error ${entry.error.status}: ${entry.error.message}`, 'scripted', entry.error.status, transient);
    }
    for (const [relative, content] of Object.entries(entry.writes ?? {})) {
      const file = path.resolve(request.workDir, relative);
      if (!file.startsWith(path.resolve(request.workDir) + path.sep)) throw new ScriptError(`scripted write ${relative} escapes the working directory`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
    }
    request.emit({ event: 'prompt:complete', data: { scripted: true } });
    return { responseText: entry.text ?? '', ...(entry.report_outcome ? { reportedOutcome: entry.report_outcome } : {}) };
  }
}

export function scriptedInterviewer(script: Script): QueueInterviewer {
  return new QueueInterviewer(script.human);
}
