/** Document symbols: the graph, its nodes grouped by handler, and subgraphs with their members. */
import type { DocumentSymbol } from 'vscode-languageserver';
import { SymbolKind } from 'vscode-languageserver';
import type { GraphNode } from '../../engine/model/graph';
import { handlerTypes, resolveHandlerType } from '../../engine/model/handler-types';
import type { DocumentView } from '../analysis/document-analysis';
import { offsetsToRange } from '../lsp-convert';
import type { AttributeList } from '../syntax/outline';
import type { Token } from '../syntax/scanner';
import { tokenValue } from '../syntax/scanner';

interface NodeStatement {
  readonly id: string;
  readonly token: Token;
  readonly end: number;
}

export function documentSymbols(analysis: DocumentView): DocumentSymbol[] {
  const { outline, lineIndex } = analysis;
  const graphBlock = outline.blocks.find((b) => b.kind === 'graph');
  if (!graphBlock) return [];
  const range = (start: number, end: number) => offsetsToRange(lineIndex, start, end);
  const listsBySubject = new Map<number, AttributeList>();
  for (const list of outline.lists) for (const subject of list.subjects) if (!listsBySubject.has(subject.start)) listsBySubject.set(subject.start, list);

  // A node's symbol is its first node statement, or its first edge mention when it has none.
  const statements = new Map<string, NodeStatement & { declared: boolean }>();
  for (const { token, declaration } of outline.nodeIds) {
    const id = tokenValue(token);
    const existing = statements.get(id);
    if (existing && (existing.declared || !declaration)) continue;
    const list = declaration ? listsBySubject.get(token.start) : undefined;
    statements.set(id, { id, token, end: list?.close?.end ?? token.end, declared: declaration });
  }
  const nodeSymbol = (statement: NodeStatement, node: GraphNode | undefined): DocumentSymbol => ({
    name: statement.id,
    detail: node ? (node.attributes.get('label')?.value ?? node.attributes.get('shape')?.value ?? '') : '',
    kind: SymbolKind.Object,
    range: range(statement.token.start, statement.end),
    selectionRange: range(statement.token.start, statement.token.end),
  });

  const graph = analysis.model?.graph;
  const groups = new Map<string, DocumentSymbol[]>();
  for (const statement of statements.values()) {
    const node = graph?.nodes.get(statement.id);
    const handler = node ? resolveHandlerType(node) : 'unknown';
    groups.set(handler, [...(groups.get(handler) ?? []), nodeSymbol(statement, node)]);
  }
  const order = (h: string) => ((handlerTypes as readonly string[]).indexOf(h) + 1 || handlerTypes.length + 1);
  const handlerSymbols: DocumentSymbol[] = [...groups]
    .sort(([a], [b]) => order(a) - order(b))
    .map(([handler, children]) => ({
      name: handler,
      detail: `${children.length} node${children.length === 1 ? '' : 's'}`,
      kind: SymbolKind.Class,
      range: { start: children[0]?.range.start ?? range(0, 0).start, end: children.reduce((end, c) => (c.range.end.line > end.line || (c.range.end.line === end.line && c.range.end.character > end.character) ? c.range.end : end), children[0]?.range.end ?? range(0, 0).end) },
      selectionRange: children[0]?.selectionRange ?? range(0, 0),
      children,
    }));

  const subgraphSymbols: DocumentSymbol[] = outline.blocks
    .filter((b) => b.kind === 'subgraph')
    .map((block) => {
      const start = (block.keyword ?? block.open).start;
      const end = block.close?.end ?? outline.text.length;
      const members = outline.nodeIds.filter((o) => o.declaration && o.token.start > block.open.start && o.token.end <= end);
      return {
        name: block.name ? tokenValue(block.name) : '(anonymous subgraph)',
        kind: SymbolKind.Namespace,
        range: range(start, end),
        selectionRange: range((block.name ?? block.keyword ?? block.open).start, (block.name ?? block.keyword ?? block.open).end),
        children: members.map(({ token }) => nodeSymbol({ id: tokenValue(token), token, end: listsBySubject.get(token.start)?.close?.end ?? token.end }, graph?.nodes.get(tokenValue(token)))),
      };
    });

  const graphStart = (graphBlock.keyword ?? graphBlock.open).start;
  const nameToken = graphBlock.name ?? graphBlock.keyword ?? graphBlock.open;
  return [
    {
      name: graphBlock.name ? tokenValue(graphBlock.name) : 'digraph',
      detail: 'pipeline',
      kind: SymbolKind.Module,
      range: range(graphStart, graphBlock.close?.end ?? outline.text.length),
      selectionRange: range(nameToken.start, nameToken.end),
      children: [...handlerSymbols, ...subgraphSymbols],
    },
  ];
}
