// A run without the debugger ("Run pipeline"): the same engine and the same graph-view messages
// (RunProjection) as a debug session, human gates answered through an injected `ask`.
import path from 'node:path';
import { chooseBackend, type BackendFactory } from '../debug-adapter/backends';
import { runDefaults, type AttractorLaunchArguments } from '../debug-adapter/protocol';
import { EventBus, launchPipelineFile, resumeRun, CallbackInterviewer, type Answer, type CodergenBackend, type HumanQuestion, type RunEvent } from '../engine';
import { RunProjection } from '../webview/run-projection';
import type { ExtensionToWebviewMessage, GateAnswer } from '../webview/protocol';

export interface LocalRunHooks {
  /** Every graph-view message the run produces, in order. */
  readonly post: (message: ExtensionToWebviewMessage) => void;
  /** Asks a person; resolves with the answer (or rejects/aborts with the run). */
  readonly ask: (question: HumanQuestion, signal: AbortSignal) => Promise<Answer>;
  readonly onEvent?: (event: RunEvent) => void;
  readonly backendFactory?: BackendFactory;
}

export type LocalRunOutcome =
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'ran'; readonly status: 'success' | 'fail' | 'cancelled'; readonly failureReason?: string; readonly logsRoot: string };

export interface LocalRunServices {
  readonly backend: CodergenBackend;
  readonly interviewer: CallbackInterviewer;
  /** Forwards the bus's events to the hooks as graph-view messages. */
  readonly attach: (events: EventBus) => void;
}

/** The backend, the interviewer (scripted answers first, then `ask`) and the graph-view projection of one run. */
export function localRunServices(args: AttractorLaunchArguments, hooks: LocalRunHooks): { ok: true; services: LocalRunServices } | { ok: false; reason: string } {
  const chosen = chooseBackend(args, path.dirname(args.program), hooks.backendFactory);
  if (!chosen.ok) return { ok: false, reason: chosen.message };
  const scripted = new Map(Object.entries(chosen.choice.humanAnswers).map(([node, answers]) => [node, [...answers]]));
  const interviewer = new CallbackInterviewer((question, askSignal) => {
    // Scripted answers first (a demo replays them), then a person.
    const next = scripted.get(question.nodeId)?.shift();
    return next ? Promise.resolve(next) : hooks.ask(question, askSignal);
  });
  const attach = (events: EventBus): void => {
    const projection = new RunProjection();
    events.on((event) => {
      hooks.onEvent?.(event);
      for (const message of projection.apply(event)) hooks.post(message);
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
  const common = { backend, interviewer, events, signal, ...runDefaults(args) };
  const outcome = args.resume
    ? await resumeRun(args.resume, common)
    : await launchPipelineFile(args.program, { ...common, cwd: args.cwd ?? path.dirname(args.program), logsRoot: args.logsRoot, ...(args.params ? { params: args.params } : {}) });
  if (outcome.kind === 'refused') return { kind: 'refused', reason: outcome.reason };
  const { result } = outcome;
  return { kind: 'ran', status: result.status, logsRoot: result.logsRoot, ...(result.failureReason !== undefined ? { failureReason: result.failureReason } : {}) };
}

/** The engine's answer for a graph-view answer. */
export function engineAnswer(answer: GateAnswer): Answer {
  const attached = answer.attachments?.length ? { attachments: answer.attachments } : {};
  return answer.type === 'option' ? { kind: 'option', choice: answer.key, ...attached } : { kind: 'freeform', text: answer.text, ...attached };
}
