/** A position in a source text: zero-based line and UTF-16 column (the LSP convention) and the offset. */
export interface Position {
  readonly line: number;
  readonly character: number;
  readonly offset: number;
}

/** A range shown to people and editors: line and column at both ends (diagnostics, LSP, the debugger). */
export interface SourceRange {
  readonly start: Position;
  readonly end: Position;
}

/**
 * A stretch of one source text as UTF-16 offsets, `end` exclusive: how the model keeps where things
 * are written (two numbers, no line or column; a `LineIndex` of the text shows it as a `SourceRange`).
 */
export interface SourceSpan {
  readonly start: number;
  readonly end: number;
}

/** Maps offsets of one text to positions. Built once per text; lookups are a binary search. */
export class LineIndex {
  private readonly lineStarts: number[] = [0];
  private lastLine = 0;

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 10) this.lineStarts.push(i + 1);
      else if (ch === 13 && text.charCodeAt(i + 1) !== 10) this.lineStarts.push(i + 1);
    }
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    // Lookups mostly walk forward through the text (a parser, a rule over statements in order):
    // the line of the last lookup or the one after it answers without a search.
    const hint = this.lastLine;
    for (let line = hint; line <= hint + 1 && line < this.lineStarts.length; line++) {
      const start = this.lineStarts[line] as number;
      if (start <= clamped && clamped < (this.lineStarts[line + 1] ?? Number.POSITIVE_INFINITY)) {
        this.lastLine = line;
        return { line, character: clamped - start, offset: clamped };
      }
    }
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.lineStarts[mid] ?? 0) <= clamped) low = mid;
      else high = mid - 1;
    }
    this.lastLine = low;
    return { line: low, character: clamped - (this.lineStarts[low] ?? 0), offset: clamped };
  }

  offsetAt(line: number, character: number): number {
    if (line < 0) return 0;
    if (line >= this.lineStarts.length) return this.text.length;
    const start = this.lineStarts[line] ?? 0;
    const next = this.lineStarts[line + 1] ?? this.text.length + 1;
    return Math.min(start + Math.max(0, character), next - 1, this.text.length);
  }

  range(startOffset: number, endOffset: number): SourceRange {
    return { start: this.positionAt(startOffset), end: this.positionAt(endOffset) };
  }

  rangeOf(span: SourceSpan): SourceRange {
    return this.range(span.start, span.end);
  }
}

export function formatPosition(position: Position): string {
  return `${position.line + 1}:${position.character + 1}`;
}
