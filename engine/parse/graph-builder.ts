// Builds our Graph from the grammar's statements as they are read: defaults in scope, subgraph
// membership and derived classes, edge chains, and the model-level warnings of the parse.
import type { SpanDiagnostic } from '../model/diagnostics';
import type { Attribute, Graph, GraphEdge, GraphNode, Subgraph } from '../model/graph';
import type { SourceSpan } from '../model/source';
import type { Literal, NodeRef, ParsedAttribute } from './parsed-syntax';

const NODE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Attribute keys and short values repeat across a graph (shapes, classes, conditions, booleans) and
// are shared; longer values (prompts, commands) are mostly unique and kept as read.
const SHARED_VALUE_LENGTH = 64;

export interface SubgraphDraft {
  readonly id: string;
  readonly start: number;
  end: number;
  /** The first `label` set directly in the subgraph (canonical 2.10 derives a class from it). */
  label?: string;
  /** Each node written in the subgraph itself, and where it is first written there. */
  readonly nodesWritten: Map<string, SourceSpan>;
  readonly children: SubgraphDraft[];
}

/** The statement context: defaults in scope and the enclosing subgraphs, outermost first. */
export interface Scope {
  readonly nodeDefaults: Map<string, Attribute>;
  /** Replaced, never changed, when an `edge [...]` list sets a default: edges without attributes of their own share it. */
  edgeDefaults: ReadonlyMap<string, Attribute>;
  readonly chain: readonly SubgraphDraft[];
  readonly subgraph?: SubgraphDraft;
}

/**
 * A node as it is read: the GraphNode itself, finished in place when the graph is complete (no
 * second object per node), with its subgraph facts filled in then.
 */
interface NodeDraft {
  readonly id: string;
  readonly attributes: Map<string, Attribute>;
  readonly idRange: SourceSpan;
  readonly declarations: SourceSpan[];
  readonly references: SourceSpan[];
  derivedClasses: readonly string[];
  subgraphs: readonly string[];
}

// Most nodes sit in no subgraph: they share these instead of two empty arrays each.
const noClasses: readonly string[] = [];
const noSubgraphs: readonly string[] = [];

/** One edge-chain operand: the nodes it stands for and where it is written. */
export interface Endpoint {
  readonly nodes: readonly { readonly id: string; readonly range: SourceSpan }[];
}

export class GraphBuilder {
  readonly diagnostics: SpanDiagnostic[] = [];
  private readonly nodes = new Map<string, NodeDraft>();
  private readonly edges: GraphEdge[] = [];
  private readonly graphAttributes = new Map<string, Attribute>();
  private readonly subgraphs: SubgraphDraft[] = [];
  /**
   * The subgraph chains each node was written in (nodes in no subgraph have none). A subgraph's
   * label may follow its statements, so the derived classes are read from these chains once the
   * whole graph is read.
   */
  private readonly chains = new Map<NodeDraft, (readonly SubgraphDraft[])[]>();
  private anonymousSubgraphs = 0;
  private readonly strings = new Map<string, string>();

  rootScope(): Scope {
    return { nodeDefaults: new Map(), edgeDefaults: new Map(), chain: [] };
  }

  /** `key=value` at graph level or in a `graph [...]` list. */
  graphAttribute(parsed: ParsedAttribute, scope: Scope): void {
    if (scope.subgraph) {
      // subgraph attributes (label, rank, style) only shape rendering and derived classes
      if (scope.subgraph.label === undefined && parsed.key.text === 'label') scope.subgraph.label = parsed.value.text;
      return;
    }
    const attribute = this.attribute(parsed, 'explicit');
    const previous = this.graphAttributes.get(attribute.key);
    if (previous && previous.value !== attribute.value) {
      this.report('duplicate_attribute', 'warning', `Graph attribute \`${attribute.key}\` is set twice; the later value wins.`, attribute.range, undefined, previous.range);
    }
    this.graphAttributes.set(attribute.key, attribute);
  }

  defaults(kind: 'node' | 'edge', attributes: readonly ParsedAttribute[], scope: Scope): void {
    const target = kind === 'node' ? scope.nodeDefaults : new Map(scope.edgeDefaults);
    for (const parsed of attributes) {
      const attribute = this.attribute(parsed, 'default');
      target.set(attribute.key, attribute);
    }
    if (kind === 'edge') scope.edgeDefaults = target;
  }

  enterSubgraph(name: Literal | undefined, start: number, parent: Scope): Scope {
    const draft: SubgraphDraft = { id: name ? name.text : `__anonymous_${++this.anonymousSubgraphs}`, start, end: start, nodesWritten: new Map(), children: [] };
    this.subgraphs.push(draft);
    parent.subgraph?.children.push(draft);
    return { nodeDefaults: new Map(parent.nodeDefaults), edgeDefaults: parent.edgeDefaults, chain: [...parent.chain, draft], subgraph: draft };
  }

  /** The node a statement or edge operand names, created on first mention. */
  touch(ref: NodeRef, scope: Scope): NodeDraft | undefined {
    const idRange = this.range(ref.id.start, ref.id.end);
    if (ref.id.kind === 'html') {
      this.report('node_id_syntax', 'error', 'HTML-like ids are not supported: use a bare identifier.', idRange);
      return undefined;
    }
    const id = ref.id.text;
    let draft = this.nodes.get(id);
    if (!draft) {
      if (!NODE_ID.test(id)) {
        this.report('node_id_syntax', 'warning', `Node id \`${id}\` is not a bare identifier ([A-Za-z_][A-Za-z0-9_]*); put display text in \`label\`.`, idRange, id);
      }
      draft = { id, attributes: new Map(scope.nodeDefaults), idRange, declarations: [], references: [], derivedClasses: noClasses, subgraphs: noSubgraphs };
      this.nodes.set(id, draft);
    }
    if (scope.chain.length > 0) {
      const chains = this.chains.get(draft);
      if (!chains) this.chains.set(draft, [scope.chain]);
      else if (chains.at(-1) !== scope.chain) chains.push(scope.chain);
    }
    draft.references.push(idRange);
    if (scope.subgraph && !scope.subgraph.nodesWritten.has(id)) scope.subgraph.nodesWritten.set(id, idRange);
    return draft;
  }

  nodeStatement(draft: NodeDraft, attributes: readonly ParsedAttribute[], start: number, end: number): void {
    draft.declarations.push(this.range(start, end));
    for (const parsed of attributes) {
      const attribute = this.attribute(parsed, 'explicit');
      const previous = draft.attributes.get(attribute.key);
      if (previous?.origin === 'explicit' && previous.value !== attribute.value) {
        this.report(
          'duplicate_node_conflict',
          'warning',
          `Node \`${draft.id}\` sets \`${attribute.key}\` again with a different value ("${abbreviate(previous.value)}" → "${abbreviate(attribute.value)}"); the later one wins.`,
          attribute.range,
          draft.id,
          previous.range,
        );
      }
      draft.attributes.set(attribute.key, attribute);
    }
  }

  /** An edge operand written as a node id: touched in the statement's scope. */
  nodeEndpoint(ref: NodeRef, scope: Scope, edgeStatement: boolean): Endpoint {
    if (edgeStatement && ref.port) this.portIgnored(ref.port);
    const draft = this.touch(ref, scope);
    return { nodes: draft ? [{ id: draft.id, range: draft.references[draft.references.length - 1] as SourceSpan }] : [] };
  }

  portIgnored(port: Literal): void {
    this.report('port_ignored', 'warning', `Port \`${port.text}\` is ignored: pipelines route between nodes, not ports.`, this.range(port.start, port.end));
  }

  /** Every node written in a subgraph (nested ones included), for a subgraph used as an edge operand. */
  subgraphEndpoint(draft: SubgraphDraft): Endpoint {
    const nodes: { id: string; range: SourceSpan }[] = [];
    const seen = new Set<string>();
    const visit = (sub: SubgraphDraft): void => {
      for (const [id, range] of sub.nodesWritten) {
        if (!seen.has(id)) {
          seen.add(id);
          nodes.push({ id, range });
        }
      }
      for (const child of sub.children) visit(child);
    };
    visit(draft);
    return { nodes };
  }

  edgeStatement(operands: readonly Endpoint[], attributes: readonly ParsedAttribute[], scope: Scope, start: number, end: number): void {
    const range = this.range(start, end);
    // Every edge of the statement has the same attributes: one map, shared (the model is immutable).
    let edgeAttributes = scope.edgeDefaults;
    if (attributes.length > 0) {
      const own = new Map(scope.edgeDefaults);
      for (const parsed of attributes) {
        const attribute = this.attribute(parsed, 'explicit');
        own.set(attribute.key, attribute);
      }
      edgeAttributes = own;
    }
    for (let i = 1; i < operands.length; i++) {
      const sources = (operands[i - 1] as Endpoint).nodes;
      const targets = (operands[i] as Endpoint).nodes;
      for (const from of sources) {
        for (const to of targets) {
          this.edges.push({ index: this.edges.length, from: from.id, to: to.id, attributes: edgeAttributes, range, fromRange: from.range, toRange: to.range });
        }
      }
    }
  }

  finish(name: Literal | undefined, start: number, end: number, sourcePath: string | undefined): Graph {
    return {
      name: name ? name.text : '',
      attributes: this.graphAttributes,
      nodes: this.finishNodes(),
      edges: this.edges,
      subgraphs: this.subgraphs.map((draft) => this.freezeSubgraph(draft)),
      range: this.range(start, end),
      ...(name ? { nameRange: this.range(name.start, name.end) } : {}),
      ...(sourcePath ? { sourcePath } : {}),
    };
  }

  report(rule: string, severity: SpanDiagnostic['severity'], message: string, range: SourceSpan, nodeId?: string, relatedRange?: SourceSpan): void {
    this.diagnostics.push({
      rule,
      severity,
      message,
      range,
      ...(nodeId !== undefined ? { nodeId } : {}),
      ...(relatedRange ? { related: [{ message: 'first set here', range: relatedRange }] } : {}),
    });
  }

  range(start: number, end: number): SourceSpan {
    return { start, end };
  }

  private attribute(parsed: ParsedAttribute, origin: Attribute['origin']): Attribute & { range: SourceSpan } {
    const { key, value } = parsed;
    if (value.kind === 'html') {
      this.report('html_value', 'error', `\`${key.text}\`: HTML-like values are not supported in pipelines; use a quoted string.`, this.range(value.start, value.end));
    }
    return {
      key: this.shared(key.text),
      value: value.text.length <= SHARED_VALUE_LENGTH ? this.shared(value.text) : value.text,
      quoted: value.kind === 'string',
      origin,
      range: { start: key.start, end: value.end },
      keyEnd: key.end,
      valueStart: value.start,
    };
  }

  private finishNodes(): ReadonlyMap<string, GraphNode> {
    for (const [draft, chains] of this.chains) {
      const derivedClasses = new Set<string>();
      const subgraphs = new Set<string>();
      for (const chain of chains) {
        for (const sub of chain) {
          subgraphs.add(sub.id);
          const derived = sub.label !== undefined ? deriveClass(sub.label) : '';
          if (derived) derivedClasses.add(derived);
        }
      }
      draft.derivedClasses = [...derivedClasses];
      draft.subgraphs = [...subgraphs];
    }
    return this.nodes;
  }

  /** One string per distinct text: every `shape=box` of a graph holds the same two strings, not two new ones each. */
  private shared(text: string): string {
    const known = this.strings.get(text);
    if (known !== undefined) return known;
    this.strings.set(text, text);
    return text;
  }

  private freezeSubgraph(draft: SubgraphDraft): Subgraph {
    return { id: draft.id, range: this.range(draft.start, draft.end), nodeIds: [...draft.nodesWritten.keys()], ...(draft.label !== undefined ? { label: draft.label } : {}) };
  }
}

/** Canonical 2.10: lowercase, spaces to hyphens, drop everything but [a-z0-9-]. */
export function deriveClass(label: string): string {
  return label
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '');
}

function abbreviate(value: string): string {
  const oneLine = value.replace(/\s+/g, ' ');
  return oneLine.length > 40 ? `${oneLine.slice(0, 37)}...` : oneLine;
}
