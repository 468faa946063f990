import type { Range } from 'vscode-languageserver';
import type { LineIndex, SourceRange } from '../engine/model/source';

export function toLspRange(range: SourceRange): Range {
  return { start: { line: range.start.line, character: range.start.character }, end: { line: range.end.line, character: range.end.character } };
}

export function offsetsToRange(lineIndex: LineIndex, start: number, end: number): Range {
  return toLspRange(lineIndex.range(start, end));
}
