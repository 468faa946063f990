/**
 * What completion knows about the pipeline, read from the current text's outline alone: each
 * node's own attributes, the edges with their labels, the node ids in text order and the graph's
 * goal. No model from the checker is needed, so completion answers right after open and right
 * after an edit, and a file that has never parsed completes like any other. Read once per outline
 * and kept with it; an edit that changes none of it (whitespace, comments, a prompt's words)
 * carries it over to the next version's outline without reading the whole text again.
 */
import type { Attribute } from '../../engine/model/graph';
import type { RecordWindow } from '../syntax/incremental-outline';
import { rereadBy } from '../syntax/incremental-outline';
import type { AttributeList, Outline } from '../syntax/outline';
import type { Token } from '../syntax/scanner';
import { tokenValue } from '../syntax/scanner';
import type { Flow } from './context-keys';

interface OutlineEdge {
  readonly from: string;
  readonly to: string;
  /** The edge statement's `label`, if it has one. */
  readonly label?: string;
}

export interface OutlineFlow extends Flow {
  /** Every node id the text names, once each, in text order. */
  readonly nodeIds: readonly string[];
  readonly edges: readonly OutlineEdge[];
  /** The graph's `goal` (a root `goal=…` or `graph [goal=…]`). */
  readonly goal?: string;
}

const flows = new WeakMap<Outline, OutlineFlow>();

/** The attributes completion and symbols read from the flow: handlers, what nodes write, critiques, stylesheet facts, labels, the goal. */
const FLOW_KEYS: ReadonlySet<string> = new Set(['shape', 'type', 'node_type', 'outputs', 'human.freeform', 'feedback_from', 'class', 'llm_model', 'label', 'goal']);

export function outlineFlow(outline: Outline): OutlineFlow {
  const known = flows.get(outline);
  if (known) return known;
  const flow = readFlow(outline);
  flows.set(outline, flow);
  return flow;
}

/** A node statement's `key=value` entries onto the node's own attributes (a later statement wins, as in DOT). */
export function addOwnAttributes(list: AttributeList, own: Map<string, Attribute>): void {
  for (const [key, value] of flowEntries(list)) own.set(key, { key, value: tokenValue(value), quoted: value.kind === 'string', origin: 'explicit' });
}

function flowEntries(list: AttributeList): [string, Token][] {
  return list.entries.flatMap(({ key, value }) => (value && FLOW_KEYS.has(tokenValue(key)) ? [[tokenValue(key), value] as [string, Token]] : []));
}

/** Gives an updated outline its previous version's flow when the records it read again say the same. */
export function carryFlow(previous: Outline, next: Outline): void {
  const flow = flows.get(previous);
  const windows = rereadBy(next);
  if (!flow || !windows || flows.has(next)) return;
  const same = <T>(window: RecordWindow, records: (outline: Outline) => readonly T[], facts: (record: T) => string): boolean => {
    const read = (outline: Outline, end: number) => records(outline).slice(window.start, end).map(facts).join('\u0000');
    return window.oldEnd === window.newEnd && read(previous, window.oldEnd) === read(next, window.newEnd);
  };
  const unchanged =
    same(windows.lists, (o) => o.lists, (list) => `${list.owner} ${list.inSubgraph} ${list.subjects.map(tokenValue).join(' ')} ${flowEntries(list).map(([key, value]) => `${key}=${tokenValue(value)}`).join(' ')}`) &&
    same(windows.nodeIds, (o) => o.nodeIds, (occurrence) => tokenValue(occurrence.token)) &&
    same(windows.edges, (o) => o.edges, (edge) => `${tokenValue(edge.from)} ${tokenValue(edge.to)}`) &&
    same(windows.assignments, (o) => o.assignments, (a) => (a.value ? `${a.inSubgraph} ${tokenValue(a.key)}=${tokenValue(a.value)}` : ''));
  if (unchanged) flows.set(next, flow);
}

function readFlow(outline: Outline): OutlineFlow {
  const attributes = new Map<string, Map<string, Attribute>>();
  const nodeAttributes = (id: string) => attributes.get(id) ?? (attributes.set(id, new Map()).get(id) as Map<string, Attribute>);
  for (const occurrence of outline.nodeIds) nodeAttributes(tokenValue(occurrence.token));
  /** An edge statement's label, by the first token of each of its `a -> b` pairs. */
  const labels = new Map<Token, string>();
  let goal: string | undefined;
  for (const list of outline.lists) {
    if (list.owner === 'edge') {
      const label = list.entries.find((entry) => entry.value && tokenValue(entry.key) === 'label')?.value;
      if (label) for (const from of list.subjects.slice(0, -1)) labels.set(from, tokenValue(label));
    }
    if (list.owner === 'graph-defaults' && !list.inSubgraph) for (const { key, value } of list.entries) if (value && tokenValue(key) === 'goal') goal = tokenValue(value);
    if (list.owner === 'node') for (const subject of list.subjects) addOwnAttributes(list, nodeAttributes(tokenValue(subject)));
  }
  for (const { key, value, inSubgraph } of outline.assignments) if (value && !inSubgraph && tokenValue(key) === 'goal') goal = tokenValue(value);
  const edges = outline.edges.map((edge): OutlineEdge => {
    const label = labels.get(edge.from);
    return { from: tokenValue(edge.from), to: tokenValue(edge.to), ...(label !== undefined ? { label } : {}) };
  });
  return {
    nodes: new Map([...attributes].map(([id, own]) => [id, { id, attributes: own }])),
    nodeIds: [...attributes.keys()],
    edges,
    ...(goal !== undefined ? { goal } : {}),
  };
}
