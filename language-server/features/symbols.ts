/** Document symbols: the graph, its nodes and subgraphs, as they nest in the text. */
import type { DocumentSymbol } from 'vscode-languageserver';
import { SymbolKind } from '../lsp-values';
import { resolveHandlerType } from '../../engine/model/handler-types';
import type { DocumentView } from '../analysis/document-analysis';
import { outlineFlow } from '../analysis/outline-flow';
import { offsetsToRange } from '../lsp-convert';
import type { Block } from '../syntax/outline-rows';
import { LIST, NODE_ID } from '../syntax/outline-rows';
import { tokenValue } from '../syntax/scanner';

interface NodeStatement {
  readonly id: string;
  /** Where the id is written. */
  readonly token: { readonly start: number; readonly end: number };
  readonly end: number;
}

/** A symbol and where it starts, for document order. */
interface Positioned {
  readonly start: number;
  readonly symbol: DocumentSymbol;
}

/**
 * Symbols nest as the text does, so breadcrumbs and sticky scroll name the statement the cursor is
 * in: the graph holds its nodes and subgraphs in document order, a subgraph its own. A node's
 * handler (tool, codergen, wait.human…) is its detail.
 */
export function documentSymbols(analysis: DocumentView): DocumentSymbol[] {
  const { outline, lineIndex } = analysis;
  const graphBlock = outline.blocks.find((b) => b.kind === 'graph');
  if (!graphBlock) return [];
  const range = (start: number, end: number) => offsetsToRange(lineIndex, start, end);
  // Read from the outline's rows (a 5,000-node text names ~25,000 node ids): the list of each node statement, by node id row.
  const listOf = new Int32Array(outline.count('nodeIds')).fill(-1);
  for (let list = outline.count('lists') - 1; list >= 0; list--) {
    for (let row = outline.field('lists', list, LIST.subjectsFrom); row < outline.field('lists', list, LIST.subjectsTo); row++) listOf[row] = list;
  }

  // A node's symbol is its first node statement, or its first edge mention when it has none.
  const statements = new Map<string, NodeStatement & { declared: boolean }>();
  for (let row = 0, count = outline.count('nodeIds'); row < count; row++) {
    const t = outline.field('nodeIds', row, NODE_ID.token);
    const declaration = outline.field('nodeIds', row, NODE_ID.declaration) === 1;
    const id = outline.valueOf(t);
    const existing = statements.get(id);
    if (existing && (existing.declared || !declaration)) continue;
    const token = { start: outline.startOf(t), end: outline.endOf(t) };
    const list = declaration ? (listOf[row] as number) : -1;
    const close = list >= 0 ? outline.field('lists', list, LIST.close) : -1;
    statements.set(id, { id, token, end: close >= 0 ? outline.endOf(close) : token.end, declared: declaration });
  }
  // As the engine resolved them (node defaults, stylesheet) without reading the model's graphs; else from the text.
  const resolved = analysis.model?.nodeDetails;
  const typed = outlineFlow(outline);
  const fromText = (id: string) => {
    const node = typed.nodes.get(id);
    return node && { handler: resolveHandlerType(node), label: node.attributes.get('label')?.value };
  };
  const detailOf = (id: string): string => {
    const detail = resolved?.get(id) ?? fromText(id);
    return detail ? [detail.handler, ...(detail.label ? [detail.label] : [])].join(' · ') : '';
  };
  const nodeSymbol = (statement: NodeStatement): DocumentSymbol => ({
    name: statement.id,
    detail: detailOf(statement.id),
    kind: SymbolKind.Object,
    range: range(statement.token.start, statement.end),
    selectionRange: range(statement.token.start, statement.token.end),
  });

  const end = (block: Block) => block.close?.end ?? outline.text.length;
  // One sweep in document order: each symbol goes to the innermost subgraph still open where it starts.
  const entries: Positioned[] = [];
  for (const statement of statements.values()) entries.push({ start: statement.token.start, symbol: nodeSymbol(statement) });
  const subgraphOf = new Map<DocumentSymbol, Block>();
  for (const block of outline.blocks) {
    if (block.kind !== 'subgraph') continue;
    const start = (block.keyword ?? block.open).start;
    const nameToken = block.name ?? block.keyword ?? block.open;
    const symbol: DocumentSymbol = {
      name: block.name ? tokenValue(block.name) : '(anonymous subgraph)',
      kind: SymbolKind.Namespace,
      range: range(start, end(block)),
      selectionRange: range(nameToken.start, nameToken.end),
      children: [],
    };
    subgraphOf.set(symbol, block);
    entries.push({ start, symbol });
  }
  entries.sort((a, b) => a.start - b.start);
  const graphChildren: DocumentSymbol[] = [];
  const open: { readonly block: Block; readonly children: DocumentSymbol[] }[] = [];
  for (const { start, symbol } of entries) {
    while (open.length > 0 && end((open.at(-1) as (typeof open)[number]).block) <= start) open.pop();
    (open.at(-1)?.children ?? graphChildren).push(symbol);
    const block = subgraphOf.get(symbol);
    if (block && symbol.children) open.push({ block, children: symbol.children });
  }

  const graphStart = (graphBlock.keyword ?? graphBlock.open).start;
  const nameToken = graphBlock.name ?? graphBlock.keyword ?? graphBlock.open;
  return [
    {
      name: graphBlock.name ? tokenValue(graphBlock.name) : 'digraph',
      detail: 'pipeline',
      kind: SymbolKind.Module,
      range: range(graphStart, end(graphBlock)),
      selectionRange: range(nameToken.start, nameToken.end),
      children: graphChildren,
    },
  ];
}
