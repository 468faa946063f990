/** Folding: graph and subgraph bodies, multi-line attribute lists and strings, comments. */
import type { FoldingRange } from 'vscode-languageserver';
import { FoldingRangeKind } from 'vscode-languageserver';
import type { DocumentView } from '../analysis/document-analysis';

export function foldingRanges(analysis: DocumentView): FoldingRange[] {
  const { outline, lineIndex } = analysis;
  const line = (offset: number) => lineIndex.positionAt(offset).line;
  const ranges: FoldingRange[] = [];
  /** A closer alone on its line (`}`, `]`) stays visible; one ending a line of content folds with it. */
  const startsItsLine = (offset: number) => outline.text.slice(outline.text.lastIndexOf('\n', offset - 1) + 1, offset).trim() === '';
  const add = (startOffset: number, endOffset: number, closerStaysVisible: boolean, kind?: FoldingRangeKind) => {
    const startLine = line(startOffset);
    const endLine = line(endOffset) - (closerStaysVisible && startsItsLine(endOffset) ? 1 : 0);
    if (endLine > startLine) ranges.push({ startLine, endLine, ...(kind ? { kind } : {}) });
  };
  for (const block of outline.blocks) add(block.open.start, block.close?.start ?? outline.text.length, true);
  for (const list of outline.lists) if (list.close) add(list.open.start, list.close.start, true);
  let lineCommentRun: { start: number; end: number; lastLine: number } | undefined;
  const flushComments = () => {
    if (lineCommentRun) add(lineCommentRun.start, lineCommentRun.end, false, FoldingRangeKind.Comment);
    lineCommentRun = undefined;
  };
  for (const token of outline.tokens) {
    if (token.kind === 'comment' && !token.text.startsWith('/*')) {
      const tokenLine = line(token.start);
      if (lineCommentRun && tokenLine === lineCommentRun.lastLine + 1) lineCommentRun = { ...lineCommentRun, end: token.end, lastLine: tokenLine };
      else {
        flushComments();
        lineCommentRun = { start: token.start, end: token.end, lastLine: tokenLine };
      }
      continue;
    }
    flushComments();
    if (token.kind === 'comment') add(token.start, token.end, false, FoldingRangeKind.Comment);
    else if (token.kind === 'string' || token.kind === 'html') add(token.start, token.end, false);
  }
  flushComments();
  return ranges;
}
