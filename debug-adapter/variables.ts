import type { DebugProtocol } from '@vscode/debugprotocol';
import { stringifyContextValue } from '../engine/conditions/condition';
import type { RunContext } from '../engine/runtime/context';
import type { ArtifactReference } from '../engine/runtime/artifact-reference';
import { formatBytes } from '../engine/model/bytes';
import type { GraphNode } from '../engine/model/graph';
import type { Outcome } from '../engine/runtime/outcome';
import type { FileChange } from '../engine/runtime/workspace-snapshot';
import type { HeldOutcome, HeldState, PipelineSummary } from '../host/protocol/serve-api';

/** The scopes of a paused node. Only Context is editable (like LangGraph's update_state). */
export type ScopeKind = 'context' | 'node' | 'outcome' | 'files' | 'run';

export const scopeTitles: Readonly<Record<ScopeKind, string>> = {
  context: 'Context',
  node: 'Node',
  outcome: 'Last outcome',
  files: 'Files',
  run: 'Run',
};

export interface RunFigures {
  readonly runId?: string;
  readonly logsRoot?: string;
  readonly iteration: number;
  readonly step: number;
  readonly elapsedMs: number;
  /** Attempts beyond the first that the current (or last) node used. */
  readonly retries: number;
  readonly visit: number;
}

/** Displays a context value the way a condition compares it, strings quoted so types stay visible. */
export function displayValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value);
  return stringifyContextValue(value);
}

/** The value a user typed in the Variables view: JSON when it parses (numbers, booleans, objects), else the text. */
export function parseTypedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function variable(name: string, value: unknown, type?: string): DebugProtocol.Variable {
  return { name, value: displayValue(value), variablesReference: 0, ...(type ? { type } : {}) };
}

export function contextVariables(context: RunContext): DebugProtocol.Variable[] {
  return context
    .keys()
    .sort()
    .map((key) => {
      const artifact = context.artifactOf(key);
      return artifact ? artifactVariable(key, artifact, context.get(key)) : variable(key, context.get(key), typeof context.get(key));
    });
}

const ARTIFACT_PREVIEW_CHARS = 120;

/** A value stored as an artifact (canonical §5.5): its id, size and file, and the start of the value. */
function artifactVariable(key: string, artifact: ArtifactReference, value: unknown): DebugProtocol.Variable {
  const shown = displayValue(value);
  const preview = shown.length > ARTIFACT_PREVIEW_CHARS ? `${shown.slice(0, ARTIFACT_PREVIEW_CHARS)}…` : shown;
  return { name: key, value: `artifact ${artifact.$artifact} (${formatBytes(artifact.size_bytes)}, ${artifact.path}): ${preview}`, type: 'artifact', variablesReference: 0 };
}

/** The node's attributes after the stylesheet and transforms, each with where its value came from. */
export function nodeVariables(node: GraphNode): DebugProtocol.Variable[] {
  return [...node.attributes.values()].sort((a, b) => a.key.localeCompare(b.key)).map((a) => variable(a.key, a.value, a.origin));
}

export function outcomeVariables(last: { readonly nodeId: string; readonly outcome: Outcome } | undefined): DebugProtocol.Variable[] {
  if (!last) return [variable('(none)', 'no node has finished yet')];
  const { outcome } = last;
  const response = outcome.responseText ?? (outcome.contextUpdates?.['last_response'] as string | undefined);
  return [
    variable('node', last.nodeId),
    variable('status', outcome.status),
    variable('is_explicit', outcome.isExplicit),
    variable('preferred_label', outcome.preferredLabel ?? ''),
    variable('notes', outcome.notes ?? ''),
    variable('failure_reason', outcome.failureReason ?? ''),
    variable('attempts', outcome.attemptCount ?? 1),
    variable('response', response ?? ''),
  ];
}

/** What the last finished visit did to the workspace: its node first, then one variable per file (path → added/changed/deleted). */
export type VisitChanges =
  | { readonly kind: 'none-yet' }
  | { readonly kind: 'not-snapshotted'; readonly nodeId: string }
  | { readonly kind: 'changes'; readonly nodeId: string; readonly iteration: number; readonly changes: readonly FileChange[] };

export function fileVariables(visit: VisitChanges): DebugProtocol.Variable[] {
  if (visit.kind === 'none-yet') return [variable('(none)', 'no node has finished yet')];
  if (visit.kind === 'not-snapshotted') return [variable('(visit)', visit.nodeId), variable('(none)', 'no workspace snapshots for this visit (snapshots are off, or it ran in a parallel branch)')];
  const header = variable('(visit)', `${visit.nodeId}, iteration ${visit.iteration}`);
  if (visit.changes.length === 0) return [header, variable('(none)', 'no file added, changed or deleted')];
  return [header, ...visit.changes.map((change) => ({ name: change.path, value: change.kind, variablesReference: 0 }))];
}

/** Token totals are what the LLM nodes reported as usage (context keys `internal.usage.<node>`). */
function tokenTotals(context: RunContext): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const key of context.keys()) {
    if (!key.startsWith('internal.usage.')) continue;
    const usage = context.get(key) as { inputTokens?: unknown; outputTokens?: unknown } | undefined;
    if (typeof usage?.inputTokens === 'number') input += usage.inputTokens;
    if (typeof usage?.outputTokens === 'number') output += usage.outputTokens;
  }
  return { input, output };
}

export function runVariables(figures: RunFigures, context: RunContext): DebugProtocol.Variable[] {
  const tokens = tokenTotals(context);
  return [
    ...(figures.runId ? [variable('run_id', figures.runId)] : []),
    ...(figures.logsRoot ? [variable('logs_root', figures.logsRoot)] : []),
    variable('iteration', figures.iteration),
    variable('step', figures.step),
    variable('visit', figures.visit),
    variable('elapsed_ms', Math.round(figures.elapsedMs)),
    variable('retries', figures.retries),
    variable('input_tokens', tokens.input),
    variable('output_tokens', tokens.output),
  ];
}

/** The last finished node of a run held on a server, as its summary reports it. */
export function heldOutcomeVariables(last: HeldOutcome | null): DebugProtocol.Variable[] {
  if (!last) return [variable('(none)', 'no node has finished yet')];
  return [
    variable('node', last.nodeId),
    variable('status', last.status),
    variable('preferred_label', last.preferredLabel ?? ''),
    variable('notes', last.notes ?? ''),
    variable('failure_reason', last.failureReason ?? ''),
  ];
}

/** Where a run followed on a server stands. */
export function attachedRunVariables(run: PipelineSummary, serverUrl: string, held: HeldState): DebugProtocol.Variable[] {
  return [
    variable('server', serverUrl),
    variable('pipeline_id', run.id),
    ...(run.runId ? [variable('run_id', run.runId)] : []),
    variable('logs_root', run.logsRoot),
    variable('iteration', held.iteration),
    ...(held.kind === 'node' ? [variable('step', held.step), variable('visit', held.visit)] : []),
    variable('held_since', held.since),
  ];
}
