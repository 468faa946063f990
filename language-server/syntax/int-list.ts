import type { Piece } from './row-store';
import { RowStore } from './row-store';

const EMPTY = RowStore.of(new Int32Array(0), 1);

/**
 * A growable list of 32-bit integers: the outline's tokens and records are written into these,
 * then kept as row stores (row-store.ts).
 *
 * A list made with `over` starts with numbers it does not copy (another store's first `base`):
 * an outline update reads on from a statement in the middle of a table, and when what it reads
 * turns out to be what was there, the update keeps the previous table and copies nothing.
 */
export class IntList {
  /** The numbers from `base` on. */
  private data: Int32Array;
  length = 0;
  private base = 0;
  /** Holds the numbers before `base`. */
  private under: RowStore = EMPTY;

  constructor(capacity = 64) {
    this.data = new Int32Array(capacity);
  }

  /** A list starting with the first `count` numbers of `source`. */
  static prefix(source: RowStore, count: number, capacity = count): IntList {
    const list = new IntList(Math.max(64, capacity));
    list.data.set(source.copy(0, count));
    list.length = count;
    return list;
  }

  /** A list starting with the first `count` numbers of `source`, not copied (read-only: `set` only writes after them). */
  static over(source: RowStore, count: number): IntList {
    const list = new IntList();
    list.under = source;
    list.base = count;
    list.length = count;
    return list;
  }

  /** Where the numbers not taken from another array start. */
  get ownFrom(): number {
    return this.base;
  }

  push(value: number): void {
    if (this.length - this.base === this.data.length) this.reserve(this.length - this.base + 1);
    this.data[this.length++ - this.base] = value;
  }

  /** Appends three numbers (a token row) with one check for room. */
  push3(a: number, b: number, c: number): void {
    const at = this.length - this.base;
    if (at + 3 > this.data.length) this.reserve(at + 3);
    const data = this.data;
    data[at] = a;
    data[at + 1] = b;
    data[at + 2] = c;
    this.length += 3;
  }

  /** Appends four numbers with one check for room. */
  push4(a: number, b: number, c: number, d: number): void {
    const at = this.length - this.base;
    if (at + 4 > this.data.length) this.reserve(at + 4);
    const data = this.data;
    data[at] = a;
    data[at + 1] = b;
    data[at + 2] = c;
    data[at + 3] = d;
    this.length += 4;
  }

  at(index: number): number {
    return index < this.base ? this.under.at(index) : (this.data[index - this.base] as number);
  }

  set(index: number, value: number): void {
    if (index < this.base) throw new RangeError(`IntList: ${index} is not the list's own to set`);
    this.data[index - this.base] = value;
  }

  /** Whether the numbers from `ownFrom` on are those of `source` from the same index. */
  ownEquals(source: RowStore): boolean {
    const count = this.length - this.base;
    if (this.base + count > source.length) return false;
    const data = this.data;
    for (let k = 0; k < count; k++) if (data[k] !== source.at(this.base + k)) return false;
    return true;
  }

  /**
   * Appends the rows `[from, to)` of `source` (rows of `shifts.length` numbers), adding
   * `shifts[field]` to each field that is not -1 (an absent token or record).
   */
  appendRows(source: RowStore, from: number, to: number, shifts: readonly number[]): void {
    const stride = shifts.length;
    const start = this.length - this.base;
    this.reserve(start + (to - from) * stride);
    const data = this.data;
    data.set(source.copy(from * stride, to * stride), start);
    const end = start + (to - from) * stride;
    this.length = this.base + end;
    for (let field = 0; field < stride; field++) {
      const shift = shifts[field] as number;
      if (shift === 0) continue;
      for (let k = start + field; k < end; k += stride) if ((data[k] as number) !== -1) data[k] = (data[k] as number) + shift;
    }
  }

  /**
   * The rows so far (of `stride` numbers), then the pieces `rest`: what was taken from another
   * store stays its pieces, nothing is copied. The list is not to be written after.
   */
  store(stride: number, rest: readonly Piece[] = []): RowStore {
    const own: Piece = { data: this.data, from: 0, to: this.length - this.base, shifts: undefined };
    return RowStore.join(stride, [...this.under.slice(0, this.base / stride), own, ...rest]);
  }

  /** Copies the numbers taken from another store in, with room for `more` numbers after them. */
  own(more: number): void {
    if (this.base === 0) return;
    const next = new Int32Array(Math.max(64, this.length + more));
    next.set(this.under.copy(0, this.base));
    next.set(this.data.subarray(0, this.length - this.base), this.base);
    this.data = next;
    this.under = EMPTY;
    this.base = 0;
  }

  /** Room for `capacity` numbers after `base`. */
  private reserve(capacity: number): void {
    if (capacity <= this.data.length) return;
    const next = new Int32Array(Math.max(capacity, this.data.length * 2));
    next.set(this.data.subarray(0, this.length - this.base));
    this.data = next;
  }
}
