import type { EventBus } from '../engine/runtime/events';
import type { Answer } from '../engine/runtime/interviewer';
import { loadCheckpoint } from '../engine/runtime/run-directory';
import type { RunResult } from '../engine/runtime/runner';
import type { RunState } from '../engine/runtime/state';
import type { RunRequest } from '../host/restate/run-request';
import { RunEventsTail } from '../host/restate/run-events-tail';
import { DurableRunClient, RestateRefusal } from '../host/restate/restate-client';
import { HttpError, answerBody, type PendingQuestion } from '../host/protocol/serve-api';
import type { RemoteWalk, ServedRun } from './served-run';

/** How often a followed run's events file is read (and how soon its events reach SSE clients). */
const POLL_MS = 200;
/** After losing Restate's ingress, it is asked again this much later; and a followed-again run's gates as often. */
const RETRY_MS = 1000;

/**
 * Submits a run to Restate's ingress and serves it: its events are read from the events file the
 * workers write in its run directory (a shared file system), its questions are its open durable
 * gates (answered through the workflow's `answer` handler), and its cancel is Restate's.
 */
export async function launchOnRestate(run: ServedRun, params: Readonly<Record<string, string>>, roots: readonly string[], ingress: URL): Promise<void> {
  const { spec } = run;
  const client = new DurableRunClient(ingress, spec.id);
  const request: RunRequest = { source: spec.source, ...(spec.sourcePath ? { sourcePath: spec.sourcePath } : {}), cwd: spec.cwd, logsRoot: spec.logsRoot, params, roots };
  try {
    await client.submit(request);
  } catch (error) {
    throw new HttpError(502, (error as Error).message);
  }
  run.walkElsewhere(new RestateRelay(client, spec.logsRoot, run.events, false));
}

/**
 * Follows again a run that an earlier server submitted to Restate's ingress `ingress` (this server's
 * own: the caller checked): its events from the first one its workers wrote, its gate once Restate
 * says it is open, its end Restate's.
 */
export function followOnRestate(run: ServedRun, ingress: URL): void {
  run.walkElsewhere(new RestateRelay(new DurableRunClient(ingress, run.spec.id), run.spec.logsRoot, run.events, true));
}

class RestateRelay implements RemoteWalk {
  private readonly tail: RunEventsTail;
  /** The gates waiting for an answer (of any scope: main walk, fan-out branch, sub-pipeline), by question id. */
  private readonly open = new Map<string, { readonly question: PendingQuestion; readonly scope: string }>();
  /**
   * The gates of a followed-again run's events file that Restate's `gate` handler has not yet said are
   * open: one may have been answered while no server followed the run, before its next step wrote
   * the answer. They are not offered until Restate names them (or their answer is read).
   */
  private readonly unconfirmed = new Set<string>();
  private gateAskedAt = 0;
  private readonly stopped = new AbortController();
  /** The run's end as its events file tells it (a cancel's `cancelled` is known only there). */
  private lastEnd: Pick<RunResult, 'status' | 'failureReason'> | undefined;

  constructor(
    private readonly client: DurableRunClient,
    private readonly logsRoot: string,
    private readonly events: EventBus,
    /** The run was submitted by an earlier server: its events file is read from its first line, its gates confirmed with Restate. */
    private readonly followedAgain: boolean,
  ) {
    this.tail = new RunEventsTail(logsRoot);
  }

  pending(): PendingQuestion[] {
    return [...this.open].filter(([id]) => !this.unconfirmed.has(id)).map(([, { question }]) => question);
  }

  async answer(questionId: string, answer: Answer): Promise<boolean> {
    if (!this.open.has(questionId)) return false;
    try {
      await this.client.answer(questionId, answerBody(answer));
    } catch (error) {
      // Restate's 409: another client answered first, or the gate is no longer open.
      if (error instanceof RestateRefusal && error.status === 409) {
        this.forget(questionId);
        return false;
      }
      throw new HttpError(502, (error as Error).message);
    }
    this.forget(questionId);
    return true;
  }

  private forget(questionId: string): void {
    this.open.delete(questionId);
    this.unconfirmed.delete(questionId);
  }

  cancel(): void {
    this.client.cancel().catch((error: Error) => this.events.emit({ type: 'warning', message: `Restate did not take the cancel: ${error.message}` }));
  }

  stopFollowing(): void {
    this.stopped.abort();
  }

  /** Relays the events file until Restate reports the run's end, then the lines written before it. */
  async follow(): Promise<Pick<RunResult, 'status' | 'failureReason'> & { readonly state?: RunState }> {
    const reported: { end?: Pick<RunResult, 'status' | 'failureReason'> | Error } = {};
    const ended = this.awaitEnd().then((end) => (reported.end = end));
    if (this.followedAgain) {
      this.relay();
      for (const id of this.open.keys()) this.unconfirmed.add(id);
    }
    while (reported.end === undefined && !this.stopped.signal.aborted) {
      this.relay();
      if (this.unconfirmed.size > 0) await this.confirmGate();
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, POLL_MS))]);
    }
    // The server stopped following: the run goes on, and this follower never reports its end.
    if (this.stopped.signal.aborted) return new Promise(() => undefined);
    // Restate journals a step's outcome after the step wrote its events: the file holds them all now.
    this.relay();
    this.open.clear();
    this.unconfirmed.clear();
    const { end } = reported;
    const outcome = end instanceof Error || end === undefined ? (this.lastEnd ?? { status: 'fail', failureReason: end?.message ?? 'the run ended without a result' }) : end;
    const state = this.finalState();
    return state ? { ...outcome, state } : outcome;
  }

  /** The checkpoint the run ended with (no event carries the last one); none for a run a worker refused before it started. */
  private finalState(): RunState | undefined {
    try {
      return loadCheckpoint(this.logsRoot);
    } catch {
      return undefined;
    }
  }

  /** Restate's answer to "how did the run end": its result, or its refusal (cancelled, refused by a worker). */
  private async awaitEnd(): Promise<Pick<RunResult, 'status' | 'failureReason'> | Error> {
    for (;;) {
      try {
        const result = await this.client.result(this.stopped.signal);
        return { status: result.status, ...(result.failureReason ? { failureReason: result.failureReason } : {}) };
      } catch (error) {
        // A dropped connection (or a client timeout on a long run) is asked again; Restate's own answer is final.
        if (error instanceof RestateRefusal || this.stopped.signal.aborted) return error as Error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /** Asks Restate (at most every RETRY_MS) which gate the run waits at: that one is offered. */
  private async confirmGate(): Promise<void> {
    if (Date.now() - this.gateAskedAt < RETRY_MS) return;
    this.gateAskedAt = Date.now();
    const gate = await this.client.openGate().catch(() => null);
    if (gate) this.unconfirmed.delete(gate.id);
  }

  private relay(): void {
    for (const event of this.tail.read()) {
      if (event.type === 'human:question') this.open.set(event.question.id, { question: { ...event.question, askedAt: new Date().toISOString() }, scope: event.scope.id });
      if (event.type === 'human:answer') for (const [id, { question, scope }] of this.open) if (question.nodeId === event.nodeId && scope === event.scope.id) this.forget(id);
      if (event.type === 'run:end') this.lastEnd = { status: event.status, ...(event.failureReason ? { failureReason: event.failureReason } : {}) };
      this.events.emit(event);
    }
  }
}
