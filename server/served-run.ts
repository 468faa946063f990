import { EventBus } from '../engine/runtime/events';
import type { RunEvent } from '../engine/runtime/events';
import type { Answer } from '../engine/runtime/interviewer';
import type { RunResult } from '../engine/runtime/runner';
import type { RunState } from '../engine/runtime/state';
import { AttachLease } from './attach-lease';
import { EventLog } from './event-log';
import { HttpInterviewer } from './http-interviewer';
import { RunHold } from './run-hold';
import type { PendingQuestion, PipelineSummary } from '../host/protocol/serve-api';
import { runStatusWords } from '../engine/runtime/run-status';
import type { TraceRecord } from '../engine/runtime/events';
import type { ServedStatus } from '../host/protocol/serve-api';
import type { GraphStateMessage, NodeRunStatus } from '../host/protocol/webview';
import { RunProjection } from '../host/view/run-projection';

/** How a node of the run's graph stands, for the status and the graph picture: as the graph view shows it. */
export type NodeProgress = NodeRunStatus;

export interface ServedRunSpec {
  readonly id: string;
  readonly source: string;
  readonly sourcePath?: string;
  readonly cwd: string;
  readonly logsRoot: string;
  /** How long an attached debugger may send nothing before its breakpoints are dropped and the run let go. */
  readonly attachLeaseMs: number;
  /** When the run was first submitted (default: now); a resumed or restored run keeps its own. */
  readonly createdAt?: string;
  /**
   * Whether this server walks the run on from a checkpoint when asked (resume, re-run from a visit):
   * not a server that hands its runs to Restate, nor `attractor run --serve`, which follows one run.
   */
  readonly continuable: boolean;
}

/** How a run found in its directory at the server's start stands: it ended, or its engine went away mid-walk. */
export interface RestoredEnd {
  readonly status: Exclude<ServedStatus, 'queued'>;
  readonly failureReason?: string;
  readonly state: RunState;
  readonly trace: readonly TraceRecord[];
}

/** An answer held for a run's last question until the run has a worker slot again. */
export interface HeldGateAnswer {
  readonly questionId: string;
  readonly answer: Answer;
  /** False for a run resumed with the answer: its gate has yet to ask the question again. */
  readonly asked: boolean;
  /** Its turn came before the gate asked: the gate gets it as it asks. */
  readonly due?: boolean;
  /** Told once the answer is spent: given to the gate, or no gate will take it. */
  readonly settled: () => void;
}

/** How a run ended, as far as the server knows (a run walked elsewhere reports no final state). */
type RunEnd = Pick<RunResult, 'status' | 'failureReason'> & { readonly state?: RunState };

/**
 * A run that other processes walk (Restate's workers): the server follows its events and relays
 * its questions and cancel; a debugger cannot hold it.
 */
export interface RemoteWalk {
  pending(): PendingQuestion[];
  /** False when no question with this id waits (answered elsewhere, or the run moved on). */
  answer(questionId: string, answer: Answer): Promise<boolean>;
  cancel(): void;
  /** The server is shutting down: it stops following; the run goes on. */
  stopFollowing(): void;
  /** Settles with the run's end. */
  follow(): Promise<RunEnd>;
}

/**
 * One pipeline the server runs: its event log, its pending questions and what the events say
 * about it (status, latest checkpoint, node progress). Everything here comes from the engine's
 * events and result, except for a run of an earlier server (`restore`), read from its run directory.
 */
export class ServedRun {
  readonly log = new EventLog();
  readonly interviewer = new HttpInterviewer();
  readonly createdAt: string;
  private readonly abort = new AbortController();
  /** The run's controller: holds it where an attached debugger asks. */
  readonly hold = new RunHold(this.abort.signal, (held) => this.log.append({ type: 'hold', held }));
  /** Renewed by every debugger request (`renewLease`); lapsed, the debugger's hold on the run is let go. */
  private readonly lease: AttachLease;
  private currentStatus: ServedStatus = 'running';
  private failureReason: string | undefined;
  private endedAt: string | undefined;
  private runId: string | undefined;
  private graphName: string | undefined;
  /** The latest checkpoint event (its state is parsed only when asked for), then the run's final state. */
  private latestCheckpoint: { readonly state: RunState } | undefined;
  /** The graph view's state of the run: what the summary's current nodes and the picture show. */
  private readonly projection = new RunProjection();
  private settled: Promise<void> = Promise.resolve();
  /** Settles `finished` of a run that waited in the queue (its end is known only once it has started). */
  private settle: (() => void) | undefined;
  private outcome: Promise<RunResult> | undefined;
  /** Who walks the run when not this process (Restate's workers); set once it has been handed to them. */
  private remote: RemoteWalk | undefined;
  /** Where the run waits for a worker slot (1: next), while it waits. */
  private queuePlace: (() => number | undefined) | undefined;
  /** An answer taken while every slot was taken: its gate gets it once the run has a slot again. */
  private heldAnswer: HeldGateAnswer | undefined;
  /** Answers on their way to the gate (Restate's takes a moment): their questions wait no more. */
  private readonly answering = new Set<string>();

  /** `events` is the bus the run emits on; the served run records everything emitted from now on. */
  constructor(
    readonly spec: ServedRunSpec,
    readonly events = new EventBus(),
  ) {
    this.createdAt = spec.createdAt ?? new Date().toISOString();
    this.lease = new AttachLease(spec.attachLeaseMs, () => this.leaseLapsed());
    this.events.on((event) => {
      this.observe(event);
      this.log.append(event);
    });
  }

  /** Settles once the engine's run has returned (at once when it never started). */
  get finished(): Promise<void> {
    return this.settled;
  }

  /** The engine's result; only for a started run. */
  get result(): Promise<RunResult> {
    if (!this.outcome) throw new Error(`pipeline ${this.spec.id} was never started`);
    return this.outcome;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get status(): ServedStatus {
    return this.currentStatus;
  }

  get checkpoint(): RunState | undefined {
    return this.latestCheckpoint?.state;
  }

  /** The run as the graph view draws it. */
  get view(): Omit<GraphStateMessage, 'type'> {
    const { type: _type, ...view } = this.projection.graphState();
    return view;
  }

  get nodeProgress(): ReadonlyMap<string, NodeProgress> {
    return new Map(Object.entries(this.projection.graphState().nodes).map(([nodeId, node]) => [nodeId, node.status]));
  }

  /** Whether the run holds one of the server's worker slots: it runs, and waits neither in the queue nor at a human gate. */
  get holdsSlot(): boolean {
    return this.currentStatus === 'running' && this.queuePlace === undefined && this.pendingQuestions().length === 0;
  }

  /** Not started: the run waits for a slot, at `place` in the queue. */
  queue(place: () => number | undefined): void {
    this.currentStatus = 'queued';
    this.queuePlace = place;
    this.settled = new Promise((resolve) => (this.settle = resolve));
  }

  /** Its turn came: the run holds a slot from now on (its walk is started by the caller). */
  dequeue(): void {
    this.queuePlace = undefined;
    if (this.currentStatus === 'queued') this.currentStatus = 'running';
  }

  /** Walked by other processes from now on (Restate's workers): followed until they report its end. */
  walkElsewhere(remote: RemoteWalk): void {
    this.remote = remote;
    this.follow(remote.follow());
  }

  /** A run that never started ends so: its launch failed when its turn came, or (`endedAt` given) an earlier server's queue says it ended so. */
  endUnstarted(status: 'cancelled' | 'fail', reason: string, endedAt?: string): void {
    this.queuePlace = undefined;
    this.finish(status, reason, endedAt);
  }

  /** False once the run has finished: there is nothing left to cancel. */
  cancel(): boolean {
    if (this.currentStatus === 'queued') {
      this.endUnstarted('cancelled', 'cancelled before it started');
      return true;
    }
    if (this.currentStatus !== 'running') return false;
    this.dropHeldAnswer();
    this.queuePlace = undefined;
    this.abort.abort(new Error('cancelled over HTTP'));
    this.remote?.cancel();
    return true;
  }

  /** Whether an attached debugger can hold the run: only a run this process walks. */
  get holdable(): boolean {
    return this.remote === undefined;
  }

  pendingQuestions(): PendingQuestion[] {
    const waiting = this.remote ? this.remote.pending() : this.interviewer.pending();
    return waiting.filter(({ id }) => !this.answering.has(id) && id !== this.heldAnswer?.questionId);
  }

  /** Whether answering this question leaves the run waiting at no gate: it needs a worker slot to go on. */
  lastQuestion(questionId: string): boolean {
    const waiting = this.pendingQuestions();
    return this.currentStatus === 'running' && waiting.length === 1 && waiting[0]?.id === questionId;
  }

  /** False when no question with this id waits. */
  async answer(questionId: string, answer: Answer): Promise<boolean> {
    if (!this.pendingQuestions().some(({ id }) => id === questionId)) return false;
    this.answering.add(questionId);
    try {
      return this.remote ? await this.remote.answer(questionId, answer) : this.interviewer.answer(questionId, answer);
    } finally {
      this.answering.delete(questionId);
    }
  }

  /**
   * Takes the answer of its last question while no slot is free; the gate gets it on
   * `deliverHeldAnswer`. `settled` is told once the answer is spent: delivered, or no gate will take
   * it (the run was cancelled or ended first).
   */
  holdAnswer(held: HeldGateAnswer, place: () => number | undefined): void {
    this.heldAnswer = held;
    this.queuePlace = place;
  }

  /**
   * The run's turn came: its gate gets the answer held for it — at once, or, for a run resumed with
   * it (`held.asked` false), when its walk reaches the gate and asks again. A gate that stopped
   * waiting meanwhile is said in a warning.
   */
  deliverHeldAnswer(): void {
    this.queuePlace = undefined;
    const held = this.heldAnswer;
    if (!held) return;
    if (!held.asked && !this.waitsFor(held.questionId)) {
      this.heldAnswer = { ...held, due: true };
      return;
    }
    void this.giveHeldAnswer(held);
  }

  private async giveHeldAnswer(held: HeldGateAnswer): Promise<void> {
    this.heldAnswer = undefined;
    const taken = this.currentStatus === 'running' && (await this.answer(held.questionId, held.answer).catch(() => false));
    held.settled();
    if (!taken) this.events.emit({ type: 'warning', message: `the answer to question ${held.questionId}, held while the server had no free slot, came after its gate had stopped waiting` });
  }

  /** Whether the gate that asked `questionId` waits for its answer now. */
  private waitsFor(questionId: string): boolean {
    return (this.remote ? this.remote.pending() : this.interviewer.pending()).some(({ id }) => id === questionId);
  }

  /** The server is closing: a run walked here is cancelled (and leaves its last checkpoint); one walked elsewhere goes on. */
  async letGo(): Promise<void> {
    if (this.remote) return this.remote.stopFollowing();
    this.cancel();
    await this.finished;
  }

  /** Follows the engine's run: once it returns (or throws) the status is final and the event stream ends. */
  start(running: Promise<RunResult>): void {
    this.outcome = running;
    this.follow(running);
  }

  /** Follows a run to its end, walked here (`start`) or elsewhere: then the status is final and the event stream ends. */
  follow(ended: Promise<RunEnd>): void {
    const settled = ended.then(
      (end) => {
        if (end.state) this.latestCheckpoint = { state: end.state };
        this.finish(end.status, end.failureReason);
      },
      (error: unknown) => this.finish('fail', error instanceof Error ? error.message : String(error)),
    );
    // A run that waited in the queue settles its `finished` in `finish`.
    if (!this.settle) this.settled = settled;
  }

  /** A run of an earlier server, as its run directory shows it: its last state and visits; its event stream is over. */
  restore(end: RestoredEnd): void {
    this.latestCheckpoint = { state: end.state };
    this.runId = end.state.runId;
    this.graphName = end.state.graphName;
    this.projection.replay(end.trace, end.status === 'interrupted' ? runStatusWords.cancelled : runStatusWords[end.status]);
    this.finish(end.status, end.failureReason, end.state.updatedAt);
  }

  /** A debugger asked for something (breakpoints, a pause, a step, a release) or said it is still there. */
  renewLease(): void {
    this.lease.renew();
  }

  private leaseLapsed(): void {
    const dropped = this.hold.letGo();
    if (dropped) this.log.append({ type: 'lease:lapsed', periodMs: this.lease.periodMs, droppedBreakpoints: dropped.breakpoints, released: dropped.held });
  }

  private finish(status: ServedStatus, failureReason: string | undefined, endedAt = new Date().toISOString()): void {
    this.dropHeldAnswer();
    this.lease.end();
    this.endedAt = endedAt;
    this.currentStatus = status;
    this.failureReason = failureReason;
    this.log.close();
    this.settle?.();
  }

  summary(): PipelineSummary {
    const checkpoint = this.checkpoint;
    return {
      id: this.spec.id,
      status: this.currentStatus,
      ...(this.failureReason ? { failureReason: this.failureReason } : {}),
      ...(this.endedAt ? { endedAt: this.endedAt } : {}),
      graphName: this.graphName ?? null,
      runId: this.runId ?? null,
      logsRoot: this.spec.logsRoot,
      cwd: this.spec.cwd,
      sourcePath: this.spec.sourcePath ?? null,
      createdAt: this.createdAt,
      queuePosition: this.queuePlace?.() ?? null,
      currentNodes: [...this.nodeProgress].filter(([, state]) => state === 'running').map(([node]) => node),
      completedNodes: checkpoint?.completedNodes ?? [],
      iteration: checkpoint?.iteration ?? 0,
      pendingQuestions: this.pendingQuestions().length,
      lastEventId: this.log.size,
      held: this.hold.held,
      breakpoints: this.hold.breakpointSet,
      attachLease: this.lease.state,
      continuable: this.spec.continuable,
    };
  }

  /** No gate will take the held answer: it is spent. */
  private dropHeldAnswer(): void {
    const held = this.heldAnswer;
    this.heldAnswer = undefined;
    held?.settled();
  }

  private observe(event: RunEvent): void {
    this.projection.observe(event);
    switch (event.type) {
      case 'human:question': {
        // A resumed run's gate asks again: the answer held for it goes in once the gate waits (right after this event).
        const held = this.heldAnswer;
        if (held?.due && held.questionId === event.question.id) setImmediate(() => void this.giveHeldAnswer(held));
        break;
      }
      case 'run:start':
        this.runId = event.runId;
        this.graphName = event.graphName;
        break;
      case 'checkpoint':
        this.latestCheckpoint = event;
        break;
      case 'run:end':
        this.currentStatus = event.status;
        this.failureReason = event.failureReason;
        break;
      default:
        break;
    }
  }
}
