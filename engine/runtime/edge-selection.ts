import type { Condition } from '../conditions/condition';
import { evaluateCondition, parseCondition } from '../conditions/condition';
import { isConditional, type GraphEdge, type GraphNode } from '../model/graph';
import type { Outcome } from './outcome';

/**
 * Edge selection (canonical §3.3 as the ledger amends it): the first step that yields an edge
 * wins; steps 2–5 draw only from unconditional edges; after a FAIL an unconditional edge is only
 * followed into a node with runs_on=always|failure (fail-fast); nothing eligible is a hard stop.
 */
export type EdgeSelection =
  | { readonly kind: 'edge'; readonly edge: GraphEdge; readonly step: SelectionStep }
  | { readonly kind: 'none'; readonly reason: string };

type SelectionStep = 'condition' | 'preferred_label' | 'suggested_next_ids' | 'weight' | 'lexical' | 'runs_on';

export interface SelectionInput {
  readonly edges: readonly GraphEdge[];
  readonly outcome: Outcome;
  readonly lookup: (key: string) => unknown;
  readonly nodes: ReadonlyMap<string, GraphNode>;
}

const conditionCache = new Map<string, Condition | null>();

function conditionOf(edge: GraphEdge): Condition | null | undefined {
  const text = edge.attributes.get('condition')?.value ?? '';
  if (!text.trim()) return undefined;
  let parsed = conditionCache.get(text);
  if (parsed === undefined) {
    const result = parseCondition(text);
    parsed = result.ok ? result.condition : null;
    conditionCache.set(text, parsed);
  }
  return parsed;
}

function weightOf(edge: GraphEdge): number {
  const weight = Number(edge.attributes.get('weight')?.value ?? 0);
  return Number.isFinite(weight) ? weight : 0;
}

function bestByWeightThenLexical(edges: readonly GraphEdge[]): GraphEdge | undefined {
  return [...edges].sort((a, b) => weightOf(b) - weightOf(a) || (a.to < b.to ? -1 : a.to > b.to ? 1 : 0))[0];
}

/** Canonical §3.3 label normalisation: lower case, trimmed, accelerator prefix removed. */
export function normalizeLabel(label: string): string {
  return label
    .trim()
    .toLowerCase()
    .replace(/^\[[a-z0-9]\]\s*/, '')
    .replace(/^[a-z0-9]\)\s*/, '')
    .replace(/^[a-z0-9]\s+-\s+/, '')
    .trim();
}

/**
 * Ledger: a suggested id may arrive as a JSON number (an easy model slip); integers are coerced to
 * their string, every other non-string shape is rejected rather than guessed at.
 */
export function coerceSuggestedId(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return undefined;
}

function describeEdges(edges: readonly GraphEdge[]): string {
  return edges.map((e) => `${e.from} -> ${e.to}${isConditional(e) ? ` [${e.attributes.get('condition')?.value}]` : ''}`).join(', ');
}

export function selectEdge({ edges, outcome, lookup, nodes }: SelectionInput): EdgeSelection {
  if (edges.length === 0) return { kind: 'none', reason: 'it has no outgoing edges' };

  const conditionInput = { status: outcome.status, ...(outcome.preferredLabel ? { preferredLabel: outcome.preferredLabel } : {}), lookup };
  const matched = edges.filter((edge) => {
    const condition = conditionOf(edge);
    return condition ? evaluateCondition(condition, conditionInput) : false;
  });
  const byCondition = bestByWeightThenLexical(matched);
  if (byCondition) return { kind: 'edge', edge: byCondition, step: 'condition' };

  const failed = outcome.status === 'fail';
  const unconditional = edges.filter((edge) => !isConditional(edge));
  if (failed) {
    const runsOn = unconditional.filter((edge) => {
      const policy = nodes.get(edge.to)?.attributes.get('runs_on')?.value;
      return policy === 'always' || policy === 'failure';
    });
    const edge = bestByWeightThenLexical(runsOn);
    if (edge) return { kind: 'edge', edge, step: 'runs_on' };
    return { kind: 'none', reason: `the node failed and no edge routes a failure (edges: ${describeEdges(edges)})` };
  }

  if (outcome.preferredLabel) {
    const wanted = normalizeLabel(outcome.preferredLabel);
    const edge = unconditional.find((e) => normalizeLabel(e.attributes.get('label')?.value ?? '') === wanted);
    if (edge) return { kind: 'edge', edge, step: 'preferred_label' };
  }

  const suggested = (outcome.suggestedNextIds ?? []).map(coerceSuggestedId).filter((id): id is string => id !== undefined);
  for (const id of suggested) {
    const edge = unconditional.find((e) => e.to === id);
    if (edge) return { kind: 'edge', edge, step: 'suggested_next_ids' };
  }

  if (unconditional.length > 0) {
    const best = bestByWeightThenLexical(unconditional) as GraphEdge;
    const tied = unconditional.filter((e) => weightOf(e) === weightOf(best)).length > 1;
    return { kind: 'edge', edge: best, step: tied ? 'lexical' : 'weight' };
  }

  const parts = [`no condition matched (edges: ${describeEdges(edges)})`];
  if (outcome.preferredLabel) parts.push(`preferred_label "${outcome.preferredLabel}" names no unconditional edge`);
  if (outcome.suggestedNextIds?.length) parts.push(`suggested_next_ids ${JSON.stringify(outcome.suggestedNextIds)} name no unconditional edge`);
  return { kind: 'none', reason: parts.join('; ') };
}
