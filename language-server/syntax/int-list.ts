/**
 * A growable list of 32-bit integers: the outline keeps its tokens and records as rows of these
 * (see outline.ts), so an edit copies and shifts numbers rather than allocating objects.
 */
export class IntList {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Int32Array(capacity);
  }

  /** A list starting with the first `count` numbers of `source`. */
  static prefix(source: Int32Array, count: number, capacity = count): IntList {
    const list = new IntList(Math.max(64, capacity));
    list.data.set(source.subarray(0, count));
    list.length = count;
    return list;
  }

  push(value: number): void {
    if (this.length === this.data.length) this.reserve(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Appends three numbers (a token row) with one check for room. */
  push3(a: number, b: number, c: number): void {
    if (this.length + 3 > this.data.length) this.reserve(this.length + 3);
    const data = this.data;
    data[this.length] = a;
    data[this.length + 1] = b;
    data[this.length + 2] = c;
    this.length += 3;
  }

  at(index: number): number {
    return this.data[index] as number;
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  /**
   * Appends the rows `[from, to)` of `source` (rows of `shifts.length` numbers), adding
   * `shifts[field]` to each field that is not -1 (an absent token or record).
   */
  appendRows(source: Int32Array, from: number, to: number, shifts: readonly number[]): void {
    const stride = shifts.length;
    const start = this.length;
    this.reserve(start + (to - from) * stride);
    const data = this.data;
    data.set(source.subarray(from * stride, to * stride), start);
    this.length = start + (to - from) * stride;
    for (let field = 0; field < stride; field++) {
      const shift = shifts[field] as number;
      if (shift === 0) continue;
      for (let k = start + field; k < this.length; k += stride) if ((data[k] as number) !== -1) data[k] = (data[k] as number) + shift;
    }
  }

  /** The numbers so far (a view: later pushes may or may not show in it). */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }

  private reserve(capacity: number): void {
    if (capacity <= this.data.length) return;
    const next = new Int32Array(Math.max(capacity, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}
