/** Folding: graph and subgraph bodies, multi-line attribute lists and strings, comments. */
import type { FoldingRange } from 'vscode-languageserver';
import { FoldingRangeKind } from '../lsp-values';
import type { DocumentView } from '../analysis/document-analysis';
import { BLOCK, LIST } from '../syntax/outline-rows';
import { COMMENT, HTML, STRING } from '../syntax/scanner';

export function foldingRanges(analysis: DocumentView): FoldingRange[] {
  const { outline, lineIndex } = analysis;
  const line = (offset: number) => lineIndex.positionAt(offset).line;
  const ranges: FoldingRange[] = [];
  /** A closer alone on its line (`}`, `]`) stays visible; one ending a line of content folds with it. */
  const startsItsLine = (offset: number): boolean => {
    // Back over the blanks only: a search for the line's start would cross a whole one-line text for each closer.
    for (let at = offset - 1; at >= 0; at--) {
      const char = outline.text.charCodeAt(at);
      if (char === 0x0a || char === 0x0d) return true;
      if (char !== 0x20 && char !== 0x09) return false;
    }
    return true;
  };
  const add = (startOffset: number, endOffset: number, closerStaysVisible: boolean, kind?: FoldingRangeKind) => {
    const startLine = line(startOffset);
    const endLine = line(endOffset) - (closerStaysVisible && startsItsLine(endOffset) ? 1 : 0);
    if (endLine > startLine) ranges.push({ startLine, endLine, ...(kind ? { kind } : {}) });
  };
  // From the outline's rows: a 5,000-node text has ~100,000 tokens, asked for again after edits.
  for (let row = 0, count = outline.count('blocks'); row < count; row++) {
    const close = outline.field('blocks', row, BLOCK.close);
    add(outline.startOf(outline.field('blocks', row, BLOCK.open)), close >= 0 ? outline.startOf(close) : outline.text.length, true);
  }
  for (let row = 0, count = outline.count('lists'); row < count; row++) {
    const close = outline.field('lists', row, LIST.close);
    if (close >= 0) add(outline.startOf(outline.field('lists', row, LIST.open)), outline.startOf(close), true);
  }
  let lineCommentRun: { start: number; end: number; lastLine: number } | undefined;
  const flushComments = () => {
    if (lineCommentRun) add(lineCommentRun.start, lineCommentRun.end, false, FoldingRangeKind.Comment);
    lineCommentRun = undefined;
  };
  for (let t = 0, count = outline.tokenCount; t < count; t++) {
    const kind = outline.kindOf(t);
    const start = outline.startOf(t);
    const end = outline.endOf(t);
    if (kind === COMMENT && !outline.text.startsWith('/*', start)) {
      const tokenLine = line(start);
      if (lineCommentRun && tokenLine === lineCommentRun.lastLine + 1) lineCommentRun = { ...lineCommentRun, end, lastLine: tokenLine };
      else {
        flushComments();
        lineCommentRun = { start, end, lastLine: tokenLine };
      }
      continue;
    }
    flushComments();
    if (kind === COMMENT) add(start, end, false, FoldingRangeKind.Comment);
    else if (kind === STRING || kind === HTML) add(start, end, false);
  }
  flushComments();
  return ranges;
}
