/**
 * Rows of numbers (an outline's tokens, code indexes, record tables and marks: outline-rows.ts)
 * kept as pieces of arrays that are never written again, each piece with a shift per field still
 * to add to its numbers (all but -1, an absent token or record). An edit that adds a token moves
 * the offset or index of every row after it: the updated rows are the previous ones before the
 * edit, the few read again, and the previous ones after it as one piece with the move as its
 * shifts — nothing copied (incremental-outline.ts). Small pieces next to each other are merged and
 * too many pieces are flattened into one array, so reading stays a lookup in a few pieces.
 */

/** Numbers `[from, to)` of `data` (whole rows), to read with `shifts[field]` added (none: as they are). */
export interface Piece {
  readonly data: Int32Array;
  readonly from: number;
  readonly to: number;
  readonly shifts: readonly number[] | undefined;
}

/** Pieces shorter than this (in numbers) are merged with a short neighbour. */
const SHORT = 4096;
/** More pieces than this are flattened into one array. */
const MOST_PIECES = 12;

export class RowStore {
  /** The whole rows when they are one array read as it is: most outlines (every fresh one). */
  private readonly flat: Int32Array | undefined;
  /** Where each piece starts in the rows. */
  private readonly starts: number[];
  /** The piece read last: reads mostly go forward through one piece. */
  private last = 0;

  private constructor(
    readonly stride: number,
    private readonly pieces: readonly Piece[],
    readonly length: number,
  ) {
    const only = pieces.length === 1 ? pieces[0] : undefined;
    this.flat = pieces.length === 0 ? new Int32Array(0) : only && only.shifts === undefined ? only.data.subarray(only.from, only.to) : undefined;
    this.starts = [];
    let start = 0;
    for (const piece of pieces) {
      this.starts.push(start);
      start += piece.to - piece.from;
    }
  }

  /** Rows of `stride` numbers that are `data` as it is. */
  static of(data: Int32Array, stride: number): RowStore {
    return new RowStore(stride, [{ data, from: 0, to: data.length, shifts: undefined }], data.length);
  }

  /** The rows of `parts` one after the other (merging short pieces, flattening too many). */
  static join(stride: number, parts: readonly Piece[]): RowStore {
    const pieces: Piece[] = [];
    for (const piece of parts) {
      if (piece.to === piece.from) continue;
      const before = pieces.at(-1);
      if (before && before.to - before.from < SHORT && piece.to - piece.from < SHORT) pieces[pieces.length - 1] = flatten([before, piece], stride);
      else pieces.push(piece);
    }
    const length = pieces.reduce((sum, piece) => sum + piece.to - piece.from, 0);
    return new RowStore(stride, pieces.length > MOST_PIECES ? [flatten(pieces, stride)] : pieces, length);
  }

  get rowCount(): number {
    return this.length / this.stride;
  }

  /** Number `index` (below `length`). */
  at(index: number): number {
    const flat = this.flat;
    if (flat !== undefined) return flat[index] as number;
    let k = this.last;
    let start = this.starts[k] as number;
    let piece = this.pieces[k] as Piece;
    if (index < start || index >= start + piece.to - piece.from) {
      k = this.pieceAt(index);
      this.last = k;
      start = this.starts[k] as number;
      piece = this.pieces[k] as Piece;
    }
    const value = piece.data[piece.from + index - start] as number;
    const shifts = piece.shifts;
    return shifts === undefined || value === -1 ? value : value + (shifts[(index - start) % this.stride] as number);
  }

  /** The pieces of rows `[from, to)`, with `shifts[field]` added to what they read (none: as they are). */
  slice(fromRow: number, toRow: number, shifts?: readonly number[]): Piece[] {
    const from = fromRow * this.stride;
    const to = toRow * this.stride;
    const moves = shifts !== undefined && shifts.some((shift) => shift !== 0) ? shifts : undefined;
    const result: Piece[] = [];
    if (to <= from) return result;
    for (let k = this.pieceAt(from); k < this.pieces.length; k++) {
      const start = this.starts[k] as number;
      if (start >= to) break;
      const piece = this.pieces[k] as Piece;
      const end = start + piece.to - piece.from;
      result.push({
        data: piece.data,
        from: piece.from + Math.max(0, from - start),
        to: piece.from + Math.min(end, to) - start,
        shifts: addShifts(piece.shifts, moves),
      });
    }
    return result;
  }

  /** Numbers `[from, to)` as a new array. */
  copy(from = 0, to = this.length): Int32Array {
    const result = new Int32Array(to - from);
    for (let index = from; index < to; index++) result[index - from] = this.at(index);
    return result;
  }

  /** The index of the piece holding number `index` (the last piece for `length`). */
  private pieceAt(index: number): number {
    let low = 0;
    let high = this.pieces.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.starts[mid] as number) <= index) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

function addShifts(a: readonly number[] | undefined, b: readonly number[] | undefined): readonly number[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a.map((shift, field) => shift + (b[field] as number));
}

/** The pieces' numbers, shifts added, as one piece of a new array. */
function flatten(pieces: readonly Piece[], stride: number): Piece {
  const data = new Int32Array(pieces.reduce((sum, piece) => sum + piece.to - piece.from, 0));
  let at = 0;
  for (const { data: source, from, to, shifts } of pieces) {
    data.set(source.subarray(from, to), at);
    if (shifts !== undefined)
      for (let field = 0; field < stride; field++) {
        const shift = shifts[field] as number;
        if (shift === 0) continue;
        for (let k = at + field; k < at + to - from; k += stride) if ((data[k] as number) !== -1) data[k] = (data[k] as number) + shift;
      }
    at += to - from;
  }
  return { data, from: 0, to: data.length, shifts: undefined };
}
