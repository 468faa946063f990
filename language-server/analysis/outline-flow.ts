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
import type { Outline } from '../syntax/outline';
import { ASSIGNMENT, BLOCK, EDGE, EDGE_LIST, ENTRY, GRAPH_DEFAULTS, IN_SUBGRAPH, LIST, NODE_DEFAULTS, NODE_ID, NODE_LIST } from '../syntax/outline-rows';
import { deriveClass } from '../../engine/parse/graph-builder';
import { STRING } from '../syntax/scanner';
import type { Flow, FlowNode } from './context-keys';

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
  /** The classes the labels of the nodes' subgraphs derive. */
  readonly classes: readonly string[];
  /** The graph's `goal` (a root `goal=…` or `graph [goal=…]`). */
  readonly goal?: string;
}

const flows = new WeakMap<Outline, OutlineFlow>();

/** The attributes completion and symbols read from the flow: handlers, what nodes write, critiques, stylesheet facts, labels, the goal. */
const FLOW_KEYS: ReadonlySet<string> = new Set(['shape', 'type', 'node_type', 'outputs', 'human.freeform', 'feedback_from', 'class', 'llm_model', 'label', 'goal']);

/** Each node's outgoing edges (their indexes in `edges`), by flow: a condition or a gate's choice asks for a few nodes' at a time. */
const outgoingIndexes = new WeakMap<OutlineFlow, ReadonlyMap<string, readonly number[]>>();

/** The edges leaving any of `ids`, in text order. */
export function edgesFrom(flow: OutlineFlow, ids: readonly string[]): OutlineEdge[] {
  let outgoing = outgoingIndexes.get(flow);
  if (!outgoing) {
    const index = new Map<string, number[]>();
    flow.edges.forEach((edge, k) => {
      const known = index.get(edge.from);
      if (known) known.push(k);
      else index.set(edge.from, [k]);
    });
    outgoing = index;
    outgoingIndexes.set(flow, outgoing);
  }
  const found = outgoing;
  const indexes = [...new Set(ids)].flatMap((id) => found.get(id) ?? []).sort((a, b) => a - b);
  return indexes.map((k) => flow.edges[k] as OutlineEdge);
}

export function outlineFlow(outline: Outline): OutlineFlow {
  const known = flows.get(outline);
  if (known) return known;
  const flow = readFlow(outline);
  flows.set(outline, flow);
  return flow;
}

/**
 * The nodes an outline without a flow was asked about (nodesNamed), by id: kept with the outline
 * and carried over an edit on the same terms as the flow, so completion in a node's list after an
 * edit looks the node up again only when a statement it depends on changed.
 */
const namedNodes = new WeakMap<Outline, Map<string, FlowNode>>();

/**
 * The nodes `ids` with their own attributes: from the flow once it has been read, else from the
 * node statements naming them, which is a shorter look than reading the whole flow (the first
 * completion after open asks this).
 */
export function nodesNamed(outline: Outline, ids: readonly string[]): FlowNode[] {
  const flow = flows.get(outline);
  const unique = [...new Set(ids)];
  if (flow) return unique.map((id) => flow.nodes.get(id) ?? { id, attributes: new Map() });
  let known = namedNodes.get(outline);
  if (!known) {
    known = new Map();
    namedNodes.set(outline, known);
  }
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length > 0) for (const node of readNodes(outline, missing)) known.set(node.id, node);
  return unique.map((id) => known.get(id) as FlowNode);
}

/** The nodes `ids` (distinct) with their own attributes, from the node statements naming them. */
function readNodes(outline: Outline, ids: readonly string[]): FlowNode[] {
  const tracked = new Set(ids);
  const { attributes } = readScopes(outline, tracked);
  const { nodeIds: nodeRows, lists: listRows } = outline.rows.tables;
  for (let row = 0; row < outline.count('lists'); row++) {
    const list = row * LIST.fields;
    if ((listRows.at(list + LIST.owner) & ~IN_SUBGRAPH) !== NODE_LIST) continue;
    for (let s = listRows.at(list + LIST.subjectsFrom); s < listRows.at(list + LIST.subjectsTo); s++) {
      const id = trackedValue(outline, nodeRows.at(s * NODE_ID.fields + NODE_ID.token), tracked);
      const own = id === undefined ? undefined : attributes.get(id);
      if (own) addOwnAttributes(outline, row, own);
    }
  }
  return ids.map((id) => ({ id, attributes: attributes.get(id) ?? new Map() }));
}

/**
 * The one of the ids of `tracked` that token `t` names, if any. A bare id is compared in place, not
 * sliced: most tokens name other nodes, and `tracked` holds the few a completion asks about.
 */
function trackedValue(outline: Outline, t: number, tracked: ReadonlySet<string>): string | undefined {
  if (outline.kindOf(t) !== STRING) {
    const start = outline.startOf(t);
    const size = outline.endOf(t) - start;
    const first = outline.text.charCodeAt(start);
    for (const id of tracked) if (id.length === size && id.charCodeAt(0) === first && outline.text.startsWith(id, start)) return id;
    return undefined;
  }
  const value = outline.valueOf(t);
  return tracked.has(value) ? value : undefined;
}

/**
 * Scopes as the engine's graph builder keeps them: each node (of `only`, or all) with the
 * `node [...]` defaults in scope where the text first names it (FLOW_KEYS only), in that order;
 * and the classes derived from the labels of the subgraphs the nodes are named in (canonical 2.10).
 */
function readScopes(outline: Outline, only?: ReadonlySet<string>): { attributes: Map<string, Map<string, Attribute>>; classes: string[] } {
  const blockCount = outline.count('blocks');
  const blockField = (b: number, field: number) => outline.field('blocks', b, field);
  /** Each block's enclosing block, and the defaults in scope in it so far (copied from the enclosing one's as it opens). */
  const parents: number[] = [];
  const defaults: Map<string, Attribute>[] = [];
  const open: number[] = [];
  for (let b = 0; b < blockCount; b++) {
    const start = blockField(b, BLOCK.open);
    while (open.length > 0 && blockField(open.at(-1) as number, BLOCK.close) >= 0 && blockField(open.at(-1) as number, BLOCK.close) < start) open.pop();
    parents.push(open.at(-1) ?? -1);
    open.push(b);
  }
  const attributes = new Map<string, Map<string, Attribute>>();
  /** The subgraph blocks each node is named in directly. */
  const namedIn = new Map<string, Set<number>>();
  const nodeCount = outline.count('nodeIds');
  const listCount = outline.count('lists');
  // The rows read in place: this walks every node mention of the text.
  const { nodeIds: nodeRows, lists: listRows } = outline.rows.tables;
  const end = Number.MAX_SAFE_INTEGER;
  // Block openings, node mentions and `node [...]` lists, in text order.
  for (let b = 0, n = 0, l = 0; ; ) {
    while (l < listCount && (listRows.at(l * LIST.fields + LIST.owner) & ~IN_SUBGRAPH) !== NODE_DEFAULTS) l++;
    const atBlock = b < blockCount ? blockField(b, BLOCK.open) : end;
    const atNode = n < nodeCount ? nodeRows.at(n * NODE_ID.fields + NODE_ID.token) : end;
    const atList = l < listCount ? listRows.at(l * LIST.fields + LIST.open) : end;
    if (atBlock === end && atNode === end && atList === end) break;
    if (atBlock < atNode && atBlock < atList) {
      const parent = parents[b] as number;
      defaults.push(new Map(parent >= 0 ? defaults[parent] : undefined));
      b++;
    } else if (atNode < atList) {
      const id = only ? trackedValue(outline, atNode, only) : outline.valueOf(atNode);
      if (id !== undefined) {
        const block = nodeRows.at(n * NODE_ID.fields + NODE_ID.block);
        if (!attributes.has(id)) attributes.set(id, new Map(block >= 0 ? defaults[block] : undefined));
        if (block >= 0 && blockField(block, BLOCK.kind) === 1) (namedIn.get(id) ?? namedIn.set(id, new Set()).get(id))?.add(block);
      }
      n++;
      // A node's defaults are those in scope where the text first names it: once each of a few looked up is named, later statements change none.
      if (only && attributes.size === only.size) break;
    } else {
      const scope = defaults[listRows.at(l * LIST.fields + LIST.block)];
      if (scope) forFlowEntries(outline, l, (key, value) => scope.set(key, { key, value: outline.valueOf(value), quoted: outline.kindOf(value) === STRING, origin: 'default' }));
      l++;
    }
  }
  // A few nodes looked up (nodesNamed) need no classes.
  if (only) return { attributes, classes: [] };
  const labels = subgraphLabels(outline);
  const classes = new Set<string>();
  for (const blocks of namedIn.values()) {
    for (let block of blocks) {
      for (; block >= 0; block = parents[block] as number) {
        const label = labels.get(block);
        const derived = label === undefined ? '' : deriveClass(label);
        if (derived) classes.add(derived);
      }
    }
  }
  return { attributes, classes: [...classes] };
}

/** Each subgraph's first `label` (a `label=…` in its body or a `graph [label=…]`), by block row. */
function subgraphLabels(outline: Outline): Map<number, string> {
  const first = new Map<number, { at: number; label: string }>();
  const offer = (block: number, at: number, label: string) => {
    const known = first.get(block);
    if (!known || at < known.at) first.set(block, { at, label });
  };
  for (let row = 0; row < outline.count('assignments'); row++) {
    const value = outline.field('assignments', row, ASSIGNMENT.value);
    const key = outline.field('assignments', row, ASSIGNMENT.key);
    if (value >= 0 && outline.field('assignments', row, ASSIGNMENT.inSubgraph) === 1 && outline.valueOf(key) === 'label') offer(outline.field('assignments', row, ASSIGNMENT.block), key, outline.valueOf(value));
  }
  for (let row = 0; row < outline.count('lists'); row++) {
    if (outline.ownerOf(row) !== GRAPH_DEFAULTS || !(outline.field('lists', row, LIST.owner) & IN_SUBGRAPH)) continue;
    const value = entryValue(outline, row, 'label');
    if (value >= 0) offer(outline.field('lists', row, LIST.block), outline.field('lists', row, LIST.open), outline.valueOf(value));
  }
  return new Map([...first].map(([block, { label }]) => [block, label]));
}

/** A node statement's `key=value` entries (list `row`) onto the node's own attributes (a later statement wins, as in DOT). */
function addOwnAttributes(outline: Outline, row: number, own: Map<string, Attribute>): void {
  forFlowEntries(outline, row, (key, value) => own.set(key, { key, value: outline.valueOf(value), quoted: outline.kindOf(value) === STRING, origin: 'explicit' }));
}

/** The longest key of FLOW_KEYS, quotes included: longer keys are not sliced to be looked up. */
const LONGEST_KEY = Math.max(...[...FLOW_KEYS].map((key) => key.length)) + 2;

/** Calls `found` with each entry of list `row` that has a value and a key among FLOW_KEYS. */
function forFlowEntries(outline: Outline, row: number, found: (key: string, value: number) => void): void {
  const to = outline.field('lists', row, LIST.entriesTo);
  for (let e = outline.field('lists', row, LIST.entriesFrom); e < to; e++) {
    const value = outline.field('entries', e, ENTRY.value);
    if (value < 0) continue;
    const key = outline.field('entries', e, ENTRY.key);
    if (outline.endOf(key) - outline.startOf(key) > LONGEST_KEY) continue;
    const name = outline.valueOf(key);
    if (FLOW_KEYS.has(name)) found(name, value);
  }
}

/** The value of the first entry of list `row` with key `name`, or -1. */
function entryValue(outline: Outline, row: number, name: string): number {
  const to = outline.field('lists', row, LIST.entriesTo);
  for (let e = outline.field('lists', row, LIST.entriesFrom); e < to; e++) {
    const value = outline.field('entries', e, ENTRY.value);
    if (value >= 0 && outline.valueOf(outline.field('entries', e, ENTRY.key)) === name) return value;
  }
  return -1;
}

/** What each table's row says that the flow depends on. */
const facts = {
  lists: (o: Outline, row: number) => {
    const subjects: string[] = [];
    for (let s = o.field('lists', row, LIST.subjectsFrom); s < o.field('lists', row, LIST.subjectsTo); s++) subjects.push(o.valueOf(o.field('nodeIds', s, NODE_ID.token)));
    const entries: string[] = [];
    forFlowEntries(o, row, (key, value) => entries.push(`${key}=${o.valueOf(value)}`));
    return `${o.field('lists', row, LIST.owner)} ${o.field('lists', row, LIST.block)} ${subjects.join(' ')} ${entries.join(' ')}`;
  },
  nodeIds: (o: Outline, row: number) => `${o.field('nodeIds', row, NODE_ID.block)} ${o.valueOf(o.field('nodeIds', row, NODE_ID.token))}`,
  edges: (o: Outline, row: number) => `${o.valueOf(o.field('edges', row, EDGE.from))} ${o.valueOf(o.field('edges', row, EDGE.to))}`,
  assignments: (o: Outline, row: number) => {
    const value = o.field('assignments', row, ASSIGNMENT.value);
    return value < 0 ? '' : `${o.field('assignments', row, ASSIGNMENT.block)} ${o.valueOf(o.field('assignments', row, ASSIGNMENT.key))}=${o.valueOf(value)}`;
  },
};

/** Gives an updated outline its previous version's flow (and nodes looked up) when the rows it read again say the same. */
export function carryFlow(previous: Outline, next: Outline): void {
  const flow = flows.get(previous);
  const nodes = namedNodes.get(previous);
  const windows = rereadBy(next);
  if ((!flow && !nodes) || !windows || flows.has(next) || namedNodes.has(next)) return;
  const same = (table: keyof typeof facts): boolean => {
    const window: RecordWindow = windows[table];
    if (window.oldEnd !== window.newEnd) return false;
    for (let row = window.start; row < window.newEnd; row++) if (facts[table](previous, row) !== facts[table](next, row)) return false;
    return true;
  };
  if (!(same('lists') && same('nodeIds') && same('edges') && same('assignments'))) return;
  if (flow) flows.set(next, flow);
  // Shared: a node either outline is asked about later is the same in both.
  if (nodes) namedNodes.set(next, nodes);
}

function readFlow(outline: Outline): OutlineFlow {
  const { attributes, classes } = readScopes(outline);
  const nodeAttributes = (id: string) => attributes.get(id) ?? (attributes.set(id, new Map()).get(id) as Map<string, Attribute>);
  /** An edge statement's label, by the token of the first node of each of its `a -> b` pairs. */
  const labels = new Map<number, string>();
  let goal: string | undefined;
  for (let row = 0; row < outline.count('lists'); row++) {
    const owner = outline.ownerOf(row);
    const subjectsFrom = outline.field('lists', row, LIST.subjectsFrom);
    const subjectsTo = outline.field('lists', row, LIST.subjectsTo);
    if (owner === EDGE_LIST) {
      const label = entryValue(outline, row, 'label');
      if (label >= 0) for (let s = subjectsFrom; s + 1 < subjectsTo; s++) labels.set(outline.field('nodeIds', s, NODE_ID.token), outline.valueOf(label));
    }
    if (owner === GRAPH_DEFAULTS && !(outline.field('lists', row, LIST.owner) & IN_SUBGRAPH)) {
      const value = lastEntryValue(outline, row, 'goal');
      if (value !== undefined) goal = value;
    }
    if (owner === NODE_LIST) for (let s = subjectsFrom; s < subjectsTo; s++) addOwnAttributes(outline, row, nodeAttributes(outline.valueOf(outline.field('nodeIds', s, NODE_ID.token))));
  }
  for (let row = 0; row < outline.count('assignments'); row++) {
    const value = outline.field('assignments', row, ASSIGNMENT.value);
    if (value >= 0 && outline.field('assignments', row, ASSIGNMENT.inSubgraph) === 0 && outline.valueOf(outline.field('assignments', row, ASSIGNMENT.key)) === 'goal') goal = outline.valueOf(value);
  }
  const edges: OutlineEdge[] = [];
  for (let row = 0; row < outline.count('edges'); row++) {
    const from = outline.field('edges', row, EDGE.from);
    const label = labels.get(from);
    edges.push({ from: outline.valueOf(from), to: outline.valueOf(outline.field('edges', row, EDGE.to)), ...(label !== undefined ? { label } : {}) });
  }
  return {
    nodes: new Map([...attributes].map(([id, own]) => [id, { id, attributes: own }])),
    nodeIds: [...attributes.keys()],
    edges,
    classes,
    ...(goal !== undefined ? { goal } : {}),
  };
}

/** The value of the last entry of list `row` with key `name`. */
function lastEntryValue(outline: Outline, row: number, name: string): string | undefined {
  let found: string | undefined;
  const to = outline.field('lists', row, LIST.entriesTo);
  for (let e = outline.field('lists', row, LIST.entriesFrom); e < to; e++) {
    const value = outline.field('entries', e, ENTRY.value);
    if (value >= 0 && outline.valueOf(outline.field('entries', e, ENTRY.key)) === name) found = outline.valueOf(value);
  }
  return found;
}
