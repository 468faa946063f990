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

/**
 * Maps offsets of one text to positions. The line starts are found on the first lookup (a view of
 * a text that nobody asks positions of costs nothing); lookups are a binary search.
 */
export class LineIndex {
  private starts: number[] | undefined;
  private lastLine = 0;

  constructor(readonly text: string) {}

  private get lineStarts(): number[] {
    this.starts ??= lineStartsIn(this.text, 1, this.text.length, [0]);
    return this.starts;
  }

  /**
   * The index of `text`, which is this one's text with `[start, oldEnd)` replaced by what is now
   * `[start, newEnd)`: the line starts are this index's, moved past the edit, when it has them.
   */
  edited(text: string, start: number, oldEnd: number, newEnd: number): LineIndex {
    const next = new LineIndex(text);
    const old = this.starts;
    if (!old) return next;
    // A line start depends on the two characters before and at it: those around the edit are found again.
    const head = firstAbove(old, Math.max(1, start) - 1);
    const tail = firstAbove(old, oldEnd + 1);
    const around = lineStartsIn(text, Math.max(1, start), Math.min(newEnd + 1, text.length), []);
    // The line starts of a large text are copied once at their final length, not grown start by start.
    const starts = around.length === tail - head ? old.slice() : old.slice(0, head).concat(around, old.slice(tail));
    for (let k = 0; k < around.length; k++) starts[head + k] = around[k] as number;
    const delta = newEnd - oldEnd;
    if (delta !== 0) for (let k = head + around.length; k < starts.length; k++) starts[k] = (starts[k] as number) + delta;
    next.starts = starts;
    return next;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    const lineStarts = this.lineStarts;
    // Lookups mostly walk forward through the text (a parser, a rule over statements in order):
    // the line of the last lookup or the one after it answers without a search.
    const hint = this.lastLine;
    for (let line = hint; line <= hint + 1 && line < lineStarts.length; line++) {
      const start = lineStarts[line] as number;
      if (start <= clamped && clamped < (lineStarts[line + 1] ?? Number.POSITIVE_INFINITY)) {
        this.lastLine = line;
        return { line, character: clamped - start, offset: clamped };
      }
    }
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= clamped) low = mid;
      else high = mid - 1;
    }
    this.lastLine = low;
    return { line: low, character: clamped - (lineStarts[low] ?? 0), offset: clamped };
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

/** The index of the first of the ascending `values` above `limit` (their length if none is). */
function firstAbove(values: readonly number[], limit: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((values[mid] as number) > limit) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** Appends to `starts` the line starts p in [from, to] (a line starts after `\n`, or after `\r` not before `\n`). */
function lineStartsIn(text: string, from: number, to: number, starts: number[]): number[] {
  if (to - from > 256 && !text.includes('\r')) {
    // Most texts end lines with `\n` alone: jump from one to the next.
    for (let newline = text.indexOf('\n', from - 1); newline >= 0 && newline < to; newline = text.indexOf('\n', newline + 1)) starts.push(newline + 1);
    return starts;
  }
  for (let p = from; p <= to; p++) {
    const ch = text.charCodeAt(p - 1);
    if (ch === 10 || (ch === 13 && text.charCodeAt(p) !== 10)) starts.push(p);
  }
  return starts;
}

export function formatPosition(position: Position): string {
  return `${position.line + 1}:${position.character + 1}`;
}
