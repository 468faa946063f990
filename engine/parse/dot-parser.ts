import { parse as parseAst, DotSyntaxError } from 'ts-graphviz/ast';
import type { ASTNode, AttributeASTNode, EdgeASTNode, GraphASTNode, LiteralASTNode, NodeASTNode, SubgraphASTNode } from 'ts-graphviz/ast';
import type { Diagnostic } from '../model/diagnostics';
import type { Attribute, Graph, GraphEdge, GraphNode, Subgraph } from '../model/graph';
import { LineIndex, type SourceRange } from '../model/source';
import { protectForParser, restoreBare, restoreQuoted, unescapeDotString } from './protect-strings';
import { findLimitViolation, PARSE_LIMITS } from './parse-limits';

export interface ParseResult {
  /** Absent only when the text has no usable graph at all (a syntax error, or no digraph). */
  readonly graph?: Graph;
  readonly diagnostics: readonly Diagnostic[];
  readonly lineIndex: LineIndex;
}

export interface ParseOptions {
  /** Absolute path of the file, recorded on the graph so relative paths resolve beside it. */
  readonly sourcePath?: string;
}

const NODE_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BYTE_ORDER_MARK = '\uFEFF';

/** Parses DOT source into a Graph. Never throws: every problem is a located diagnostic. */
export function parseDot(text: string, options: ParseOptions = {}): ParseResult {
  const lineIndex = new LineIndex(text);
  // A UTF-8 byte-order mark (editors on Windows write one) becomes a space: offsets stay the same.
  const parserText = protectForParser(text.startsWith(BYTE_ORDER_MARK) ? ` ${text.slice(1)}` : text);
  const tooLarge = findLimitViolation(parserText);
  if (tooLarge) return { diagnostics: [{ rule: 'syntax', severity: 'error', message: tooLarge.message, range: lineIndex.range(tooLarge.offset, tooLarge.offset + 2) }], lineIndex };
  let root: ASTNode;
  try {
    root = parseAst(parserText, { maxASTNodes: PARSE_LIMITS.astNodes, maxEdgeChainDepth: PARSE_LIMITS.edgeChainSteps, maxInputSize: PARSE_LIMITS.inputBytes });
  } catch (error) {
    return { diagnostics: [syntaxDiagnostic(error, lineIndex)], lineIndex };
  }
  const builder = new GraphBuilder(lineIndex, options);
  return builder.build(root);
}

function syntaxDiagnostic(error: unknown, lineIndex: LineIndex): Diagnostic {
  const cause = error instanceof DotSyntaxError ? (error.cause as { location?: { start: { offset: number }; end: { offset: number } } } | undefined) : undefined;
  const location = cause?.location;
  const start = location?.start.offset ?? lineIndex.text.length;
  const end = Math.max(location?.end.offset ?? start, start);
  const raw = error instanceof Error ? error.message : String(error);
  return {
    rule: 'syntax',
    severity: 'error',
    message: tooLargeMessage(error, raw) ?? `DOT syntax error: ${describeSyntaxError(raw)}`,
    range: lineIndex.range(start, end),
  };
}

function describeSyntaxError(message: string): string {
  return message.replaceAll('\uE000', '\\n').replaceAll('\uE001', '\\r');
}

/** The parser's own limits, in the words of ours (its messages name options a user cannot set). */
function tooLargeMessage(error: unknown, raw: string): string | undefined {
  const input = /^Input size \((\d+) bytes\) exceeds maximum allowed size \((\d+) bytes\)/.exec(raw);
  if (input) return `pipeline too large: ${input[1]} bytes (limit ${input[2]})`;
  const nodes = /^AST node count \((\d+)\) exceeds maximum allowed \((\d+)\)/.exec(raw);
  if (nodes) return `pipeline too large: more than ${nodes[1]} syntax nodes (limit ${nodes[2]})`;
  const chain = /^Edge chain depth exceeds maximum allowed depth of (\d+)/.exec(raw);
  if (chain) return `pipeline too large: an edge chain of more than ${chain[1]} steps (limit ${chain[1]}); write it as several edge statements`;
  if (error instanceof Error && error.cause instanceof RangeError) return 'pipeline too large: nested deeper than the parser can follow; split long edge chains and flatten nested subgraphs';
  return undefined;
}

interface Scope {
  readonly nodeDefaults: Map<string, Attribute>;
  readonly edgeDefaults: Map<string, Attribute>;
  readonly subgraphs: readonly string[];
  readonly classes: readonly string[];
}

interface NodeDraft {
  readonly id: string;
  readonly attributes: Map<string, Attribute>;
  readonly idRange: SourceRange;
  readonly declarations: SourceRange[];
  readonly references: SourceRange[];
  readonly derivedClasses: Set<string>;
  readonly subgraphs: Set<string>;
}

interface SubgraphDraft {
  readonly id: string;
  readonly label?: string;
  readonly range: SourceRange;
  readonly nodeIds: Set<string>;
}

class GraphBuilder {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly nodes = new Map<string, NodeDraft>();
  private readonly edges: GraphEdge[] = [];
  private readonly graphAttributes = new Map<string, Attribute>();
  private readonly subgraphs: SubgraphDraft[] = [];
  private anonymousSubgraphs = 0;

  constructor(
    private readonly lineIndex: LineIndex,
    private readonly options: ParseOptions,
  ) {}

  build(root: ASTNode): ParseResult {
    const graphs = root.children.filter((child): child is GraphASTNode => child.type === 'Graph');
    const [first, ...extra] = graphs;
    if (!first) {
      this.report('graph_kind', 'error', 'No digraph found: a pipeline is one `digraph name { ... }`.', this.lineIndex.range(0, 0));
      return { diagnostics: this.diagnostics, lineIndex: this.lineIndex };
    }
    for (const graph of extra) this.report('graph_kind', 'error', 'Only one graph per file: this second graph is ignored.', this.range(graph));
    if (!first.directed) this.report('graph_kind', 'error', 'Pipelines must be directed: use `digraph`, and `->` for edges.', this.range(first));
    if (first.strict) this.report('graph_kind', 'error', '`strict` graphs are not supported: remove `strict`.', this.range(first));

    const scope: Scope = { nodeDefaults: new Map(), edgeDefaults: new Map(), subgraphs: [], classes: [] };
    this.walkStatements(first.children, scope, undefined);

    const graph: Graph = {
      name: first.id ? literalText(first.id) : '',
      attributes: this.graphAttributes,
      nodes: new Map([...this.nodes].map(([id, draft]) => [id, freezeNode(draft)])),
      edges: this.edges,
      subgraphs: this.subgraphs.map(freezeSubgraph),
      range: this.range(first),
      ...(first.id ? { nameRange: this.range(first.id) } : {}),
      ...(this.options.sourcePath ? { sourcePath: this.options.sourcePath } : {}),
    };
    return { graph, diagnostics: this.diagnostics, lineIndex: this.lineIndex };
  }

  private walkStatements(statements: readonly ASTNode[], scope: Scope, subgraph: SubgraphDraft | undefined): void {
    for (const statement of statements) {
      switch (statement.type) {
        case 'Attribute':
          this.assignGraphLevel(statement as AttributeASTNode, subgraph);
          break;
        case 'AttributeList': {
          const list = statement as ASTNode & { kind: 'Graph' | 'Node' | 'Edge'; children: AttributeASTNode[] };
          if (list.kind === 'Graph') for (const attr of list.children) this.assignGraphLevel(attr, subgraph);
          else {
            const target = list.kind === 'Node' ? scope.nodeDefaults : scope.edgeDefaults;
            for (const attr of list.children) target.set(...this.attributeEntry(attr, 'default'));
          }
          break;
        }
        case 'Node':
          this.declareNode(statement as NodeASTNode, scope, subgraph);
          break;
        case 'Edge':
          this.declareEdges(statement as EdgeASTNode, scope, subgraph);
          break;
        case 'Subgraph':
          this.enterSubgraph(statement as SubgraphASTNode, scope);
          break;
        default:
          break; // comments
      }
    }
  }

  private assignGraphLevel(attr: AttributeASTNode, subgraph: SubgraphDraft | undefined): void {
    if (subgraph) return; // subgraph attributes (label, rank, style) only shape rendering and derived classes
    const [key, attribute] = this.attributeEntry(attr, 'explicit');
    const previous = this.graphAttributes.get(key);
    if (previous && previous.value !== attribute.value) {
      this.report('duplicate_attribute', 'warning', `Graph attribute \`${key}\` is set twice; the later value wins.`, attribute.range, undefined, previous.range);
    }
    this.graphAttributes.set(key, attribute);
  }

  private enterSubgraph(node: SubgraphASTNode, parent: Scope): void {
    const id = node.id ? literalText(node.id) : `__anonymous_${++this.anonymousSubgraphs}`;
    const label = findSubgraphLabel(node);
    const draft: SubgraphDraft = { id, range: this.range(node), nodeIds: new Set(), ...(label !== undefined ? { label } : {}) };
    this.subgraphs.push(draft);
    const derived = label !== undefined ? deriveClass(label) : '';
    const scope: Scope = {
      nodeDefaults: new Map(parent.nodeDefaults),
      edgeDefaults: new Map(parent.edgeDefaults),
      subgraphs: [...parent.subgraphs, id],
      classes: derived ? [...parent.classes, derived] : parent.classes,
    };
    this.walkStatements(node.children, scope, draft);
  }

  private declareNode(statement: NodeASTNode, scope: Scope, subgraph: SubgraphDraft | undefined): void {
    const draft = this.touchNode(statement.id, scope, subgraph);
    if (!draft) return;
    draft.declarations.push(this.range(statement));
    for (const attr of statement.children.filter(isAttribute)) {
      const [key, attribute] = this.attributeEntry(attr, 'explicit');
      const previous = draft.attributes.get(key);
      if (previous?.origin === 'explicit' && previous.value !== attribute.value) {
        this.report(
          'duplicate_node_conflict',
          'warning',
          `Node \`${draft.id}\` sets \`${key}\` again with a different value ("${abbreviate(previous.value)}" → "${abbreviate(attribute.value)}"); the later one wins.`,
          attribute.range,
          draft.id,
          previous.range,
        );
      }
      draft.attributes.set(key, attribute);
    }
  }

  private declareEdges(statement: EdgeASTNode, scope: Scope, subgraph: SubgraphDraft | undefined): void {
    const groups = statement.targets.map((target) => {
      const refs = target.type === 'NodeRefGroup' ? target.children : [target];
      return refs.flatMap((ref) => {
        if (ref.port) this.report('port_ignored', 'warning', `Port \`${literalText(ref.port)}\` is ignored: pipelines route between nodes, not ports.`, this.range(ref.port));
        const draft = this.touchNode(ref.id, scope, subgraph);
        return draft ? [{ id: draft.id, range: this.range(ref.id) }] : [];
      });
    });
    const explicit = statement.children.filter(isAttribute).map((attr) => this.attributeEntry(attr, 'explicit'));
    const statementRange = explicit.length > 0 ? this.range(statement) : this.edgeChainRange(statement);
    for (let i = 0; i + 1 < groups.length; i++) {
      for (const from of groups[i] ?? []) {
        for (const to of groups[i + 1] ?? []) {
          const attributes = new Map(scope.edgeDefaults);
          for (const [key, attribute] of explicit) attributes.set(key, attribute);
          this.edges.push({ index: this.edges.length, from: from.id, to: to.id, attributes, range: statementRange, fromRange: from.range, toRange: to.range });
        }
      }
    }
  }

  private touchNode(idLiteral: LiteralASTNode, scope: Scope, subgraph: SubgraphDraft | undefined): NodeDraft | undefined {
    const idRange = this.range(idLiteral);
    if (idLiteral.quoted === 'html') {
      this.report('node_id_syntax', 'error', 'HTML-like ids are not supported: use a bare identifier.', idRange);
      return undefined;
    }
    const id = literalText(idLiteral);
    let draft = this.nodes.get(id);
    if (!draft) {
      if (!NODE_ID.test(id)) {
        this.report('node_id_syntax', 'warning', `Node id \`${id}\` is not a bare identifier ([A-Za-z_][A-Za-z0-9_]*); put display text in \`label\`.`, idRange, id);
      }
      draft = {
        id,
        attributes: new Map(scope.nodeDefaults),
        idRange,
        declarations: [],
        references: [],
        derivedClasses: new Set(scope.classes),
        subgraphs: new Set(scope.subgraphs),
      };
      this.nodes.set(id, draft);
    } else {
      for (const cls of scope.classes) draft.derivedClasses.add(cls);
      for (const sub of scope.subgraphs) draft.subgraphs.add(sub);
    }
    draft.references.push(idRange);
    subgraph?.nodeIds.add(id);
    return draft;
  }

  private attributeEntry(attr: AttributeASTNode, origin: Attribute['origin']): [string, Attribute & { range: SourceRange }] {
    const key = literalText(attr.key);
    if (attr.value.quoted === 'html') {
      this.report('html_value', 'error', `\`${key}\`: HTML-like values are not supported in pipelines; use a quoted string.`, this.range(attr.value));
    }
    const value = literalText(attr.value);
    return [
      key,
      {
        key,
        value,
        quoted: attr.value.quoted === true,
        origin,
        range: this.range(attr),
        keyRange: this.range(attr.key),
        valueRange: this.range(attr.value),
      },
    ];
  }

  /** A chain without an attribute list ends at its last target (the AST's location runs on over the whitespace after it). */
  private edgeChainRange(statement: EdgeASTNode): SourceRange {
    const start = statement.location?.start.offset ?? 0;
    return this.lineIndex.range(start, statement.targets.at(-1)?.location?.end.offset ?? start);
  }

  private range(node: { location?: { start: { offset: number }; end: { offset: number } } | null }): SourceRange {
    const location = node.location;
    if (!location) return this.lineIndex.range(0, 0);
    return this.lineIndex.range(location.start.offset, location.end.offset);
  }

  private report(rule: string, severity: Diagnostic['severity'], message: string, range: SourceRange, nodeId?: string, relatedRange?: SourceRange): void {
    this.diagnostics.push({
      rule,
      severity,
      message,
      range,
      ...(nodeId !== undefined ? { nodeId } : {}),
      ...(relatedRange ? { related: [{ message: 'first set here', range: relatedRange }] } : {}),
    });
  }
}

/** The text of a literal as written: quoted ones unescaped, bare ones with their dots and hyphens back. */
function literalText(literal: { value: string; quoted: boolean | 'html' }): string {
  return literal.quoted === true ? unescapeDotString(restoreQuoted(literal.value)) : restoreBare(literal.value);
}

function isAttribute(node: ASTNode): node is AttributeASTNode {
  return node.type === 'Attribute';
}

function findSubgraphLabel(node: SubgraphASTNode): string | undefined {
  for (const child of node.children) {
    if (child.type === 'Attribute' && literalText((child as AttributeASTNode).key) === 'label') {
      return literalText((child as AttributeASTNode).value);
    }
    if (child.type === 'AttributeList' && (child as ASTNode & { kind: string }).kind === 'Graph') {
      for (const attr of child.children as AttributeASTNode[]) {
        if (literalText(attr.key) === 'label') return literalText(attr.value);
      }
    }
  }
  return undefined;
}

/** Canonical 2.10: lowercase, spaces to hyphens, drop everything but [a-z0-9-]. */
function deriveClass(label: string): string {
  return label
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '');
}

function freezeNode(draft: NodeDraft): GraphNode {
  return {
    id: draft.id,
    attributes: draft.attributes,
    idRange: draft.idRange,
    declarations: draft.declarations,
    references: draft.references,
    derivedClasses: [...draft.derivedClasses],
    subgraphs: [...draft.subgraphs],
  };
}

function freezeSubgraph(draft: SubgraphDraft): Subgraph {
  return { id: draft.id, range: draft.range, nodeIds: [...draft.nodeIds], ...(draft.label !== undefined ? { label: draft.label } : {}) };
}

function abbreviate(value: string): string {
  const oneLine = value.replace(/\s+/g, ' ');
  return oneLine.length > 40 ? `${oneLine.slice(0, 37)}...` : oneLine;
}
