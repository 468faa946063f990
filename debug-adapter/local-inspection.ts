import type { DebugProtocol } from '@vscode/debugprotocol';
import { Handles } from '@vscode/debugadapter';
import type { RunContext } from '../engine/runtime/context';
import { storedSnapshots } from '../engine/runtime/workspace-snapshot';
import type { SourceCatalog } from '../host/source-catalog';
import type { StepInTarget, TargetFrame } from '../host/run-target';
import type { DebugController } from './debug-controller';
import { notEditable } from './refusals';
import type { DebugThread } from './threads';
import { FRAME_STRIDE, MAIN_THREAD_ID } from './threads';
import type { ScopeKind, VisitChanges } from './variables';
import { contextVariables, displayValue, fileVariables, nodeVariables, outcomeVariables, parseTypedValue, runVariables, scopeTitles } from './variables';

/** What inspection reads of the run under the debugger. */
export interface InspectedRun {
  readonly controller: DebugController;
  readonly logsRoot: string;
  readonly runId?: string;
  readonly startedAt: number;
}

export interface FrameRef {
  readonly thread: DebugThread;
  /** 0 is the current node; n is the n-th enclosing sub-pipeline node. */
  readonly index: number;
}

interface ScopeRef {
  readonly frame: FrameRef;
  readonly kind: ScopeKind;
}

/** A run of this process as the debugger shows it: threads, stacks through sub-pipelines, scopes and variables of its paused boundaries. */
export class LocalInspection {
  private readonly scopeHandles = new Handles<ScopeRef>();

  constructor(
    private readonly sources: SourceCatalog,
    private readonly run: () => InspectedRun | undefined,
    private readonly program: () => string,
  ) {}

  /** Variables references die when the run moves on. */
  reset(): void {
    this.scopeHandles.reset();
  }

  threads(): { id: number; name: string }[] {
    const threads = this.run()?.controller.allThreads() ?? [];
    return threads.length > 0 ? threads.map((t) => ({ id: t.id, name: t.name })) : [{ id: MAIN_THREAD_ID, name: 'main' }];
  }

  stack(threadId: number): TargetFrame[] {
    const thread = this.run()?.controller.thread(threadId);
    const place = thread?.place;
    if (!thread || !place) return [];
    const program = this.program();
    const frames: TargetFrame[] = [];
    const boundary = place.boundary;
    const file = boundary?.graph.sourcePath ?? program;
    const frame = (index: number, name: string, file: string, line: number): TargetFrame => ({ id: thread.id * FRAME_STRIDE + index, name, file, line });
    if (place.kind === 'edge') {
      const edge = place.edge;
      frames.push(frame(0, `${edge.from} -> ${edge.to}`, file, this.sources.lineOf(file, edge.range) ?? 0));
    } else if (boundary) {
      const line = this.sources.nodeLine(file, boundary.nodeId) ?? 0;
      const suffix = place.kind === 'node' ? '' : place.kind === 'gate' ? ' (waiting for an answer)' : place.kind === 'ended' ? ' (run ended)' : place.kind === 'turn' ? ` › agent turn ${place.turn}` : ' (finished)';
      frames.push(frame(0, `${boundary.nodeId}${suffix}`, file, line));
    } else {
      frames.push(frame(0, 'run ended', program, 0));
    }
    const outer = boundary?.scope.frames ?? [];
    for (let i = outer.length - 1; i >= 0; i--) {
      const nodeId = (outer[i] as { nodeId: string }).nodeId;
      const parentFile = i === 0 ? program : (outer[i - 1]?.sourcePath ?? program);
      frames.push(frame(outer.length - i, nodeId, parentFile, this.sources.nodeLine(parentFile, nodeId) ?? 0));
    }
    return frames;
  }

  /** The frame a request names; without one, the first stopped thread's current node. */
  frameRef(frameId: number | undefined): FrameRef | undefined {
    const controller = this.run()?.controller;
    if (frameId === undefined) {
      const thread = controller?.allThreads().find((t) => t.isStopped);
      return thread ? { thread, index: 0 } : undefined;
    }
    const thread = controller?.thread(Math.floor(frameId / FRAME_STRIDE));
    return thread ? { thread, index: frameId % FRAME_STRIDE } : undefined;
  }

  scopes(frameId: number): DebugProtocol.Scope[] {
    const frame = this.frameRef(frameId);
    const kinds: ScopeKind[] = !frame ? [] : frame.index === 0 ? ['context', 'node', 'outcome', 'files', 'run'] : ['node'];
    return kinds.map((kind) => ({ name: scopeTitles[kind], variablesReference: this.scopeHandles.create({ frame: frame as FrameRef, kind }), expensive: kind === 'node' }));
  }

  variables(reference: number): DebugProtocol.Variable[] {
    const ref = this.scopeHandles.get(reference);
    return ref ? this.variablesOf(ref) : [];
  }

  setVariable(reference: number, name: string, value: string): string {
    const ref = this.scopeHandles.get(reference);
    const boundary = ref?.frame.thread.place?.boundary;
    if (!ref || ref.kind !== 'context' || !boundary) throw notEditable();
    const parsed = parseTypedValue(value);
    boundary.context.set(name, parsed);
    return displayValue(parsed);
  }

  context(frameId: number | undefined): RunContext | undefined {
    return this.frameRef(frameId)?.thread.place?.boundary?.context;
  }

  stepInTargets(frameId: number): StepInTarget[] {
    const ref = this.frameRef(frameId);
    const thread = ref?.index === 0 ? ref.thread : undefined;
    const place = thread?.place;
    const node = thread?.lastNode;
    if (!place || !node || place.kind === 'ended') return [];
    const edges = place.kind === 'edge' ? place.edgeBoundary.candidates : node.graph.edges.filter((e) => e.from === node.nodeId);
    return edges.map((edge) => {
      const label = edge.attributes.get('label')?.value;
      const condition = edge.attributes.get('condition')?.value;
      return {
        id: edge.index,
        label: `${edge.from} -> ${edge.to}${label ? ` [${label}]` : ''}${condition ? ` if ${condition}` : ''}`,
        line: this.sources.lineOf(node.graph.sourcePath ?? this.program(), edge.range) ?? 0,
      };
    });
  }

  private variablesOf(ref: ScopeRef): DebugProtocol.Variable[] {
    const { thread, index } = ref.frame;
    const boundary = thread.place?.boundary;
    if (!boundary) return [];
    switch (ref.kind) {
      case 'context':
        return contextVariables(boundary.context);
      case 'node': {
        if (index === 0) {
          const node = boundary.graph.nodes.get(boundary.nodeId);
          return node ? nodeVariables(node) : [];
        }
        const program = this.program();
        const frames = boundary.scope.frames;
        const depth = frames.length - index;
        const nodeId = frames[depth]?.nodeId;
        const file = depth === 0 ? program : (frames[depth - 1]?.sourcePath ?? program);
        const loaded = this.sources.load(file);
        const node = nodeId && loaded.ok ? loaded.graph.nodes.get(nodeId) : undefined;
        return node ? nodeVariables(node) : [];
      }
      case 'outcome':
        return outcomeVariables(thread.place?.kind === 'node-done' ? { nodeId: boundary.nodeId, outcome: thread.place.outcome } : thread.lastOutcome);
      case 'files':
        return fileVariables(this.lastVisitChanges(thread));
      case 'run': {
        const run = this.run();
        const last = thread.lastOutcome && thread.lastOutcome.nodeId === boundary.nodeId ? thread.lastOutcome.outcome : undefined;
        return runVariables(
          {
            ...(run?.runId ? { runId: run.runId } : {}),
            ...(run ? { logsRoot: run.logsRoot } : {}),
            iteration: boundary.iteration,
            step: boundary.step,
            visit: boundary.visit,
            elapsedMs: run ? performance.now() - run.startedAt : 0,
            retries: Math.max(0, (last?.attemptCount ?? 1) - 1),
          },
          boundary.context,
        );
      }
    }
  }

  private lastVisitChanges(thread: DebugThread): VisitChanges {
    const last = thread.lastOutcome;
    const run = this.run();
    if (!last) return { kind: 'none-yet' };
    const store = last.files && run ? storedSnapshots(run.logsRoot) : undefined;
    if (!last.files || !store) return { kind: 'not-snapshotted', nodeId: last.nodeId };
    try {
      return { kind: 'changes', nodeId: last.nodeId, iteration: last.iteration, changes: store.changes(last.files.before, last.files.after) };
    } catch {
      return { kind: 'not-snapshotted', nodeId: last.nodeId };
    }
  }
}
