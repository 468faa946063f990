import type { Graph, GraphNode } from '../engine/model/graph';
import { isExitNode, resolveHandlerType } from '../engine/model/handler-types';
import type { EventBus, HumanQuestion, WalkScope } from '../engine/runtime/events';
import { MAIN_SCOPE } from '../engine/runtime/events';
import type { Answer, Interviewer } from '../engine/runtime/interviewer';
import { CallbackInterviewer } from '../engine/runtime/interviewer';

/** The answers a step is given, by gate (`gateKey`), in the order that gate asks for them. */
export type GateAnswers = Readonly<Record<string, readonly Answer[]>>;

/** A gate the step stopped at for want of an answer: the main walk's (before it runs) or a nested one's (as it asked). */
export type OpenGate = { readonly kind: 'main'; readonly key: string; readonly node: GraphNode } | { readonly kind: 'nested'; readonly key: string; readonly scope: WalkScope; readonly question: HumanQuestion };

function gateKey(scope: WalkScope, nodeId: string): string {
  return `${scope.id}|${nodeId}`;
}

/**
 * A step's walk: one main-walk node visit (exit nodes ride along), or none before a main-walk gate
 * it has no answer for. A gate inside a fan-out branch or a sub-pipeline that asks without an answer
 * stops the walk (`signal` aborts, `onStop` is told first): the main-walk node in flight is run again
 * by the next step, which is given the answer.
 */
export class OneVisit {
  private visited = false;
  private open: OpenGate | undefined;
  private readonly taken = new Map<string, number>();
  /** The scope of each question the engine emitted, to find the gate it came from when it is asked. */
  private readonly scopes = new WeakMap<HumanQuestion, WalkScope>();
  private readonly stop = new AbortController();
  readonly interviewer: Interviewer;

  constructor(
    private readonly graph: Graph,
    private readonly answers: GateAnswers,
    events: EventBus,
    onStop: () => void,
  ) {
    events.on((event) => {
      if (event.type === 'human:question') this.scopes.set(event.question, event.scope);
    });
    this.interviewer = new CallbackInterviewer((question, signal) => {
      const scope = this.scopes.get(question) ?? MAIN_SCOPE;
      const key = gateKey(scope, question.nodeId);
      const given = this.take(key);
      if (given !== undefined) return Promise.resolve(given);
      this.open ??= { kind: 'nested', key, scope, question };
      // The walk is cancelled (which aborts `signal` at once): this attempt's answer is never used.
      const cancelled = new Promise<Answer>((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'timeout' }), { once: true }));
      onStop();
      this.stop.abort();
      return cancelled;
    });
  }

  /** Aborts once the step stopped at a nested gate. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  pauseBefore(nodeId: string): boolean {
    const node = this.graph.nodes.get(nodeId);
    if (!node || isExitNode(node)) return false;
    if (this.visited) return true;
    const key = gateKey(MAIN_SCOPE, nodeId);
    if (resolveHandlerType(node) === 'wait.human' && !this.has(key)) {
      this.open = { kind: 'main', key, node };
      return true;
    }
    this.visited = true;
    return false;
  }

  /** The gate the step stopped at without an answer, if it did. */
  openGate(): OpenGate | undefined {
    return this.open;
  }

  private has(key: string): boolean {
    return (this.taken.get(key) ?? 0) < (this.answers[key]?.length ?? 0);
  }

  private take(key: string): Answer | undefined {
    if (!this.has(key)) return undefined;
    const index = this.taken.get(key) ?? 0;
    this.taken.set(key, index + 1);
    return this.answers[key]?.[index];
  }
}
