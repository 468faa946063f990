// The recursive-descent grammar of DOT, driving the graph builder as it reads. Error-tolerant: a
// statement that does not parse is reported with its location and skipped to the next statement
// boundary (`;`, the enclosing `}`, or the next line that starts a statement), so one typo does not
// hide the rest of the file.
import { DotLexer } from './dot-lexer';
import type { Endpoint, GraphBuilder, Scope, SubgraphDraft } from './graph-builder';
import { PARSE_LIMITS } from './parse-limits';
import type { Literal, NodeRef, ParsedAttribute } from './parsed-syntax';

export interface SyntaxProblem {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

/** Text not read as it was meant; `garbled` when even which nodes it mentions is unknown (read inside out after an unclosed string). */
export interface UnreadSpan {
  readonly start: number;
  readonly end: number;
  readonly garbled?: true;
}

/** What a read graph statement produced: its builder, header facts and extent. */
export interface ReadGraph {
  readonly builder: GraphBuilder;
  readonly name?: Literal;
  readonly directed: boolean;
  readonly strict: boolean;
  readonly start: number;
  readonly end: number;
}

export interface GrammarResult {
  readonly graphs: readonly ReadGraph[];
  readonly problems: readonly SyntaxProblem[];
  /** The statements abandoned at a syntax error, from their start to where reading resumed: nothing of them reached the graph but the nodes they mention. */
  readonly unread: readonly UnreadSpan[];
  /** A parse limit the text passes (the only thing reported when there is one). */
  readonly limit?: SyntaxProblem;
}

/** Syntax errors kept per text; past this many the rest only repeat the damage. */
const MAX_PROBLEMS = 100;

/** Unwinds the statement being read to the grammar's recovery point. */
class StatementAbandoned extends Error {}

export function readDot(text: string, newBuilder: () => GraphBuilder): GrammarResult {
  const grammar = new DotGrammar(text, newBuilder);
  return grammar.readFile();
}

class DotGrammar {
  private readonly lexer: DotLexer;
  private readonly problems: SyntaxProblem[] = [];
  private readonly unread: UnreadSpan[] = [];
  private builder!: GraphBuilder;
  private directed = true;
  private silenced = false;
  private depth = 0;
  private deepNesting?: { offset: number; depth: number };
  private longChain?: { offset: number; steps: number };

  constructor(
    text: string,
    private readonly newBuilder: () => GraphBuilder,
  ) {
    this.lexer = new DotLexer(text, (issue) => this.problem(issue.message, issue.start, issue.end));
  }

  readFile(): GrammarResult {
    const graphs: ReadGraph[] = [];
    const lexer = this.lexer;
    while (!lexer.is('eof')) {
      if (!lexer.isKeyword('strict') && !lexer.isKeyword('graph') && !lexer.isKeyword('digraph')) {
        this.problem(`Expected "digraph" but ${lexer.describe()} found.`, lexer.start, lexer.end);
        break;
      }
      const graph = this.readGraph();
      if (!graph) break;
      graphs.push(graph);
    }
    const limit = this.limitProblem();
    return { graphs, problems: this.problems, unread: this.unread, ...(limit ? { limit } : {}) };
  }

  private readGraph(): ReadGraph | undefined {
    const lexer = this.lexer;
    const start = lexer.start;
    const strict = lexer.isKeyword('strict');
    if (strict) lexer.advance();
    if (!lexer.isKeyword('graph') && !lexer.isKeyword('digraph')) {
      this.problem(`Expected "digraph" or "graph" but ${lexer.describe()} found.`, lexer.start, lexer.end);
      return undefined;
    }
    const directed = lexer.isKeyword('digraph');
    this.directed = directed;
    lexer.advance();
    const name = this.isIdToken() ? this.takeLiteral() : undefined;
    if (!lexer.is('{')) {
      this.problem(`Expected "{" but ${lexer.describe()} found.`, lexer.start, lexer.end);
      return undefined;
    }
    lexer.advance();
    this.builder = this.newBuilder();
    const scope = this.builder.rootScope();
    this.readStatements(scope);
    const end = this.closeBrace();
    return { builder: this.builder, directed, strict, start, end, ...(name ? { name } : {}) };
  }

  /** Statements up to the closing `}` (left for the caller) or the end of input. */
  private readStatements(scope: Scope): void {
    const lexer = this.lexer;
    for (;;) {
      const kind = lexer.kind;
      if (kind === '}' || kind === 'eof') return;
      if (kind === ';') {
        lexer.advance();
        continue;
      }
      const start = lexer.start;
      lexer.multilineStringStart = -1;
      try {
        this.readStatement(scope);
      } catch (error) {
        if (!(error instanceof StatementAbandoned)) throw error;
        if (lexer.multilineStringStart >= 0) this.suspectUnclosedString(lexer.multilineStringStart);
        this.recover(start);
        this.unread.push({ start, end: Math.max(start, lexer.previousEnd) });
      }
    }
  }

  private readStatement(scope: Scope): void {
    const lexer = this.lexer;
    const start = lexer.start;
    if (lexer.isKeyword('node') || lexer.isKeyword('edge')) {
      const kind = lexer.isKeyword('node') ? 'node' : 'edge';
      lexer.advance();
      this.builder.defaults(kind, this.readAttributeLists(true).attributes, scope);
      return;
    }
    if (lexer.isKeyword('graph')) {
      lexer.advance();
      for (const attribute of this.readAttributeLists(true).attributes) this.builder.graphAttribute(attribute, scope);
      return;
    }
    if (lexer.isKeyword('subgraph') || lexer.is('{')) {
      const group = lexer.is('{') ? this.readRefGroup(scope, false) : undefined;
      if (group) {
        this.readEdgeChain(group, scope, start);
        return;
      }
      const endpoint = this.readSubgraph(scope);
      if (lexer.is('arrow') || lexer.is('line')) this.readEdgeChain(endpoint, scope, start);
      return;
    }
    if (!this.isIdToken()) this.fail(`Expected a statement (a node, an edge, \`key=value\`, "node", "edge", "graph" or "subgraph") but ${lexer.describe()} found.`);
    const id = this.takeLiteral();
    if (lexer.is('=')) {
      lexer.advance();
      const value = this.expectValue();
      this.builder.graphAttribute({ key: id, value }, scope);
      return;
    }
    const ref = this.readRefTail(id);
    if (lexer.is('arrow') || lexer.is('line')) {
      this.readEdgeChain(this.builder.nodeEndpoint(ref, scope, true), scope, start);
      return;
    }
    const node = this.builder.touch(ref, scope);
    const lists = this.readAttributeLists(false);
    if (node) this.builder.nodeStatement(node, lists.attributes, start, lists.end ?? (ref.port ?? ref.id).end);
  }

  /** `a -> b -> { c d } -> subgraph s { ... } [attrs]`, from its first operand on. */
  private readEdgeChain(first: Endpoint, scope: Scope, start: number): void {
    const lexer = this.lexer;
    const operands: Endpoint[] = [first];
    let lastEnd = lexer.previousEnd;
    let overflowAt: number | undefined;
    while (lexer.is('arrow') || lexer.is('line')) {
      if (operands.length === PARSE_LIMITS.edgeChainSteps + 1) overflowAt = lexer.start;
      if (lexer.is('arrow') !== this.directed) this.problem(this.directed ? 'In a digraph, edges are written `a -> b`, not `a -- b`.' : 'In a graph, edges are written `a -- b`, not `a -> b`.', lexer.start, lexer.end);
      lexer.advance();
      operands.push(this.readOperand(scope));
      lastEnd = lexer.previousEnd;
    }
    if (overflowAt !== undefined) this.longChain ??= { offset: overflowAt, steps: operands.length - 1 };
    const lists = this.readAttributeLists(false);
    this.builder.edgeStatement(operands, lists.attributes, scope, start, lists.attributes.length > 0 && lists.end !== undefined ? lists.end : lastEnd);
  }

  private readOperand(scope: Scope): Endpoint {
    const lexer = this.lexer;
    if (lexer.is('{')) return this.readRefGroup(scope, true) ?? this.readSubgraph(scope);
    if (lexer.isKeyword('subgraph')) return this.readSubgraph(scope);
    if (!this.isIdToken()) this.fail(`Expected a node id, "subgraph" or "{" after the edge operator but ${lexer.describe()} found.`);
    return this.builder.nodeEndpoint(this.readRefTail(this.takeLiteral()), scope, true);
  }

  /**
   * `{ a b c }` used as an edge operand is a group of node references, not a subgraph: it declares
   * nothing. Read as one when the braces hold only node ids and the group is an operand (after an
   * edge operator, or before one).
   */
  private readRefGroup(scope: Scope, afterOperator: boolean): Endpoint | undefined {
    const lexer = this.lexer;
    const mark = lexer.mark();
    const problemCount = this.problems.length;
    lexer.advance();
    const refs: NodeRef[] = [];
    while (this.isIdToken() && !this.isReservedWord()) {
      refs.push(this.readRefTail(this.takeLiteral()));
      if (lexer.is(',') || lexer.is(';')) lexer.advance();
    }
    const isGroup = lexer.is('}') && (lexer.advance(), afterOperator || lexer.is('arrow') || lexer.is('line'));
    if (!isGroup) {
      lexer.reset(mark);
      this.problems.length = problemCount;
      return undefined;
    }
    const nodes = refs.flatMap((ref) => this.builder.nodeEndpoint(ref, scope, true).nodes);
    return { nodes };
  }

  private readSubgraph(parent: Scope): Endpoint {
    const lexer = this.lexer;
    const start = lexer.start;
    let name: Literal | undefined;
    if (lexer.isKeyword('subgraph')) {
      lexer.advance();
      if (this.isIdToken()) name = this.takeLiteral();
    }
    if (!lexer.is('{')) this.fail(`Expected "{" but ${lexer.describe()} found.`);
    if (this.depth >= PARSE_LIMITS.subgraphDepth) return this.skipTooDeep();
    lexer.advance();
    const scope = this.builder.enterSubgraph(name, start, parent);
    const draft = scope.subgraph as SubgraphDraft;
    this.depth++;
    try {
      this.readStatements(scope);
    } finally {
      this.depth--;
    }
    draft.end = this.closeBrace();
    return this.builder.subgraphEndpoint(draft);
  }

  /** Past the nesting limit: measures how deep it goes and skips the block without recursing. */
  private skipTooDeep(): Endpoint {
    const lexer = this.lexer;
    let depth = this.depth;
    let deepest = depth;
    const offset = lexer.start;
    while (!lexer.is('eof')) {
      if (lexer.is('{')) deepest = Math.max(deepest, ++depth);
      else if (lexer.is('}') && --depth === this.depth) {
        lexer.advance();
        break;
      }
      lexer.advance();
    }
    if (!this.deepNesting) this.deepNesting = { offset, depth: deepest };
    else this.deepNesting.depth = Math.max(this.deepNesting.depth, deepest);
    return { nodes: [] };
  }

  /** `[a=1, b=2][c=3]`: every list in order; `end` is the last `]`'s end when there was a list. */
  private readAttributeLists(required: boolean): { attributes: ParsedAttribute[]; end?: number } {
    const lexer = this.lexer;
    if (required && !lexer.is('[')) this.fail(`Expected "[" but ${lexer.describe()} found.`);
    const attributes: ParsedAttribute[] = [];
    let end: number | undefined;
    while (lexer.is('[')) {
      lexer.advance();
      while (!lexer.is(']')) {
        if (!this.isIdToken()) this.fail(`Expected an attribute name or "]" but ${lexer.describe()} found.`);
        const key = this.takeLiteral();
        if (!lexer.is('=')) this.failAt(`Expected "=" after ${JSON.stringify(key.text)} but ${lexer.describe()} found.`, lexer.previousEnd, lexer.previousEnd);
        lexer.advance();
        attributes.push({ key, value: this.expectValue() });
        if (lexer.is(',') || lexer.is(';')) lexer.advance();
      }
      end = lexer.end;
      lexer.advance();
    }
    return end === undefined ? { attributes } : { attributes, end };
  }

  /** The id after `a` of `a:port:compass`, with the port when there is one. */
  private readRefTail(id: Literal): NodeRef {
    const lexer = this.lexer;
    if (!lexer.is(':')) return { id };
    lexer.advance();
    const port = this.expectValue();
    if (!lexer.is(':')) return { id, port };
    lexer.advance();
    const compass = this.expectValue();
    return { id, port: { text: `${port.text}:${compass.text}`, kind: port.kind, start: port.start, end: compass.end } };
  }

  private expectValue(): Literal {
    if (!this.isIdToken()) this.fail(`Expected a value (an id, a number, a "quoted" or <html> string) but ${this.lexer.describe()} found.`);
    return this.takeLiteral();
  }

  private closeBrace(): number {
    const lexer = this.lexer;
    if (!lexer.is('}')) {
      this.problem(`Expected "}" but ${lexer.describe()} found.`, lexer.start, lexer.end);
      return lexer.previousEnd;
    }
    const end = lexer.end;
    lexer.advance();
    return end;
  }

  private isIdToken(): boolean {
    const kind = this.lexer.kind;
    return kind === 'id' || kind === 'string' || kind === 'html';
  }

  private isReservedWord(): boolean {
    const lexer = this.lexer;
    return lexer.isKeyword('node') || lexer.isKeyword('edge') || lexer.isKeyword('graph') || lexer.isKeyword('subgraph') || lexer.isKeyword('digraph') || lexer.isKeyword('strict');
  }

  private takeLiteral(): Literal {
    const lexer = this.lexer;
    const literal: Literal = { text: lexer.value, kind: lexer.kind as Literal['kind'], start: lexer.start, end: lexer.end };
    lexer.advance();
    return literal;
  }

  /** Skips what is left of a broken statement: to `;`, the enclosing `}`, or the next line that starts a statement. */
  private recover(statementStart: number): void {
    const lexer = this.lexer;
    if (lexer.start === statementStart) lexer.advance();
    let depth = 0;
    while (!lexer.is('eof')) {
      const kind = lexer.kind;
      if (depth === 0) {
        if (kind === ';') {
          lexer.advance();
          return;
        }
        if (kind === '}') return;
        if (lexer.newlineBefore && (this.isIdToken() || kind === '{')) return;
      }
      if (kind === '{') depth++;
      else if (kind === '}') depth--;
      lexer.advance();
    }
  }

  private fail(message: string): never {
    this.failAt(message, this.lexer.start, this.lexer.end);
  }

  private failAt(message: string, start: number, end: number): never {
    this.problem(message, start, end);
    throw new StatementAbandoned();
  }

  private problem(message: string, start: number, end: number): void {
    if (!this.silenced && this.problems.length < MAX_PROBLEMS) this.problems.push({ message, start, end });
  }

  /**
   * A statement broke after a string that ran across lines: most likely its closing quote is
   * missing, which turns every later quote inside out. The error says so, and the errors after it
   * (all echoes of the one missing quote) are not reported.
   */
  private suspectUnclosedString(stringStart: number): void {
    const last = this.problems.at(-1);
    if (!last || this.silenced) return;
    const opened = this.lexer.text.slice(0, stringStart).split(/\r\n|\r|\n/);
    const where = `${opened.length}:${(opened.at(-1)?.length ?? 0) + 1}`;
    this.problems[this.problems.length - 1] = { ...last, message: `${last.message} The string opened at ${where} runs across lines: is its closing quote missing?` };
    this.silenced = true;
    // Every quote after it is read inside out: nothing from the string on is read as it was meant.
    this.unread.push({ start: stringStart, end: this.lexer.text.length, garbled: true });
  }

  private limitProblem(): SyntaxProblem | undefined {
    const deep = this.deepNesting;
    if (deep) return { start: deep.offset, end: deep.offset + 1, message: `pipeline too large: subgraphs nested ${deep.depth} deep (limit ${PARSE_LIMITS.subgraphDepth})` };
    const chain = this.longChain;
    if (chain) {
      return {
        start: chain.offset,
        end: chain.offset + 2,
        message: `pipeline too large: an edge chain of ${chain.steps} steps (limit ${PARSE_LIMITS.edgeChainSteps}); write it as several edge statements`,
      };
    }
    return undefined;
  }
}
