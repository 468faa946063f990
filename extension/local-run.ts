// A run without the debugger ("Run pipeline"): the same engine and the same graph-view messages
// (RunProjection) as a debug session, human gates answered through an injected `ask`.
import path from 'node:path';
import { chooseBackend, type BackendFactory } from '../host/backends';
import { runDefaults, type AttractorLaunchArguments } from '../host/protocol/debug';
import { EventBus, launchPipelineFile, resumeRun, CallbackInterviewer, ScriptedFirstInterviewer, type Answer, type CodergenBackend, type HumanQuestion, type Interviewer, type RunEvent } from '../engine';
import { RunProjection } from '../host/view/run-projection';
import type { ExtensionToWebviewMessage } from '../host/protocol/webview';
import type { RunEnd } from '../engine/runtime/run-status';

export interface LocalRunHooks {
  /** Every graph-view message the run produces, in order, but the questions: `ask` shows those. */
  readonly post: (message: ExtensionToWebviewMessage) => void;
  /** Asks a person; resolves with the answer (or rejects/aborts with the run). */
  readonly ask: (question: HumanQuestion, signal: AbortSignal) => Promise<Answer>;
  readonly onEvent?: (event: RunEvent) => void;
  readonly backendFactory?: BackendFactory;
}

export type LocalRunOutcome =
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'ran'; readonly status: RunEnd; readonly failureReason?: string; readonly logsRoot: string };

export interface LocalRunServices {
  readonly backend: CodergenBackend;
  readonly interviewer: Interviewer;
  /** Forwards the bus's events to the hooks as graph-view messages. */
  readonly attach: (events: EventBus) => void;
}

/** The backend, the interviewer (`ask`, after the script's answers when the launch chose `gateAnswers: "script"`) and the graph-view projection of one run. */
export function localRunServices(args: AttractorLaunchArguments, hooks: LocalRunHooks): { ok: true; services: LocalRunServices } | { ok: false; reason: string } {
  const chosen = chooseBackend(args, { baseDir: path.dirname(args.program), ...(hooks.backendFactory ? { factory: hooks.backendFactory } : {}) });
  if (!chosen.ok) return { ok: false, reason: chosen.message };
  const interviewer = new ScriptedFirstInterviewer(chosen.choice.humanAnswers, new CallbackInterviewer(hooks.ask));
  const attach = (events: EventBus): void => {
    const projection = new RunProjection();
    events.on((event) => {
      hooks.onEvent?.(event);
      for (const message of projection.apply(event)) if (message.type !== 'humanGate') hooks.post(message);
    });
  };
  return { ok: true, services: { backend: chosen.choice.create(), interviewer, attach } };
}

/** Runs `args.program` (or resumes `args.resume`) to the end; `signal` cancels it, leaving it resumable. */
export async function runLocally(args: AttractorLaunchArguments & { readonly logsRoot: string }, hooks: LocalRunHooks, signal: AbortSignal): Promise<LocalRunOutcome> {
  const prepared = localRunServices(args, hooks);
  if (!prepared.ok) return { kind: 'refused', reason: prepared.reason };
  const { backend, interviewer, attach } = prepared.services;
  const events = new EventBus();
  attach(events);
  const common = { backend, interviewer, events, signal, cwd: args.cwd ?? path.dirname(args.program), ...runDefaults(args) };
  const outcome = args.resume ? await resumeRun(args.resume, common) : await launchPipelineFile(args.program, { ...common, logsRoot: args.logsRoot, ...(args.params ? { params: args.params } : {}) });
  if (outcome.kind === 'refused') return { kind: 'refused', reason: outcome.reason };
  const { result } = outcome;
  return { kind: 'ran', status: result.status, logsRoot: result.logsRoot, ...(result.failureReason !== undefined ? { failureReason: result.failureReason } : {}) };
}
