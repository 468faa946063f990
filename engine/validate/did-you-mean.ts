/** Optimal-string-alignment distance (Levenshtein plus adjacent transposition), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  if (s === t) return 0;
  const rows: number[][] = [];
  for (let i = 0; i <= s.length; i++) rows.push(Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (rows[s.length] as number[])[t.length] as number;
}

/** Three rows of the distance table, reused by every comparison (grown to the longest string met). */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)] as const;

/**
 * editDistance of two lower-cased strings when it is at most `limit`, else `limit + 1`: only the cells
 * within `limit` of the diagonal can hold a smaller distance, so the cost is linear in the length.
 */
function distanceWithin(s: string, t: string, limit: number): number {
  if (s === t) return 0;
  const over = limit + 1;
  if (Math.abs(s.length - t.length) > limit) return over;
  if (rows[0].length < t.length + 2) rows = [new Int32Array(t.length * 2 + 2), new Int32Array(t.length * 2 + 2), new Int32Array(t.length * 2 + 2)];
  let [before, above, row] = rows;
  // Row 0, and the cell just past its band that row 1 reads.
  for (let j = 0; j <= Math.min(t.length, limit); j++) above[j] = j;
  if (limit + 1 <= t.length) above[limit + 1] = over;
  for (let i = 1; i <= s.length; i++) {
    const low = Math.max(1, i - limit);
    const high = Math.min(t.length, i + limit);
    // The cell left of the band: column 0 (i deletions) or out of reach.
    row[low - 1] = low === 1 && i <= limit ? i : over;
    for (let j = low; j <= high; j++) {
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + (s.charCodeAt(i - 1) === t.charCodeAt(j - 1) ? 0 : 1));
      if (i > 1 && j > 1 && s.charCodeAt(i - 1) === t.charCodeAt(j - 2) && s.charCodeAt(i - 2) === t.charCodeAt(j - 1)) best = Math.min(best, (before[j - 2] as number) + 1);
      row[j] = Math.min(best, over);
    }
    // The cell right of the band, which the next row reads above it.
    if (high + 1 <= t.length) row[high + 1] = over;
    [before, above, row] = [above, row, before];
  }
  return above[t.length] as number;
}

/**
 * The closest candidate within two edits, or undefined; the first of equally close ones. A candidate
 * must keep more than half of the word, so that `k` does not "correct" to every other one-letter name.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  return closestCandidates(word, candidates)[0];
}

/** Every candidate at the smallest qualifying distance from `word`, in the order given (repeats once). */
export function closestCandidates(word: string, candidates: Iterable<string>): string[] {
  return nearest(word, word.toLowerCase(), distinct(candidates));
}

/** How many edits a suggestion may be away from the word. */
const MAX_DISTANCE = 2;

interface Candidate {
  readonly candidate: string;
  readonly lower: string;
}

function distinct(candidates: Iterable<string>): Candidate[] {
  return [...new Set(candidates)].map((candidate) => ({ candidate, lower: candidate.toLowerCase() }));
}

/** closestCandidates over distinct candidates, given in their order. */
function nearest(word: string, lowerWord: string, candidates: Iterable<Candidate>): string[] {
  let closest: string[] = [];
  let bestDistance = Infinity;
  for (const { candidate, lower } of candidates) {
    if (candidate === word) continue;
    if (Math.abs(candidate.length - word.length) > MAX_DISTANCE) continue;
    const distance = distanceWithin(lowerWord, lower, MAX_DISTANCE);
    if (distance > MAX_DISTANCE || distance * 2 >= Math.max(word.length, candidate.length) || distance > bestDistance) continue;
    if (distance < bestDistance) {
      closest = [];
      bestDistance = distance;
    }
    closest.push(candidate);
  }
  return closest;
}

/**
 * Names longer than this are kept in a plain list rather than the index: a name has about L²/2
 * two-deletion variants, and names past a few dozen characters are few.
 */
const INDEXED_LENGTH = 32;
const FEW = 16;

/**
 * didYouMean for many words against one list of candidates (every node id of a large graph), without
 * comparing each word with each candidate. Two strings within two edits of one another (insertions,
 * deletions, substitutions, adjacent transpositions) become the same string after at most two
 * deletions from each: the index keys every candidate by a hash of each of its
 * deletion variants, and a word looks up its own; the few candidates found are checked exactly.
 * The answers are those of `closestCandidates` over the same list.
 */
export class Speller {
  private readonly candidates: Candidate[];
  /** Built on the first word that needs it: most rules that hold a speller never ask it. */
  private index: { readonly byVariant: ReadonlyMap<number, readonly number[]>; readonly long: readonly number[] } | undefined;

  constructor(candidates: Iterable<string>) {
    this.candidates = distinct(candidates);
  }

  /** As didYouMean(word, candidates). */
  suggest(word: string): string | undefined {
    return this.closest(word)[0];
  }

  /** As closestCandidates(word, candidates). */
  closest(word: string): string[] {
    const lower = word.toLowerCase();
    // Against a handful of candidates, comparing with each costs less than hashing the word's variants.
    if (this.candidates.length <= FEW) return nearest(word, lower, this.candidates);
    this.index ??= indexOf(this.candidates);
    const found = new Set<number>(this.index.long);
    if (lower.length <= INDEXED_LENGTH + MAX_DISTANCE) {
      for (const variant of deletionVariants(lower)) for (const index of this.index.byVariant.get(variant) ?? []) found.add(index);
    }
    const inOrder = [...found].sort((a, b) => a - b).map((index) => this.candidates[index] as Candidate);
    return nearest(word, lower, inOrder);
  }
}

/** The candidates by the hash of each of their deletion variants; those too long to index apart. */
function indexOf(candidates: readonly Candidate[]): { byVariant: Map<number, number[]>; long: number[] } {
  const byVariant = new Map<number, number[]>();
  const long: number[] = [];
  candidates.forEach(({ lower }, index) => {
    if (lower.length > INDEXED_LENGTH) return void long.push(index);
    for (const variant of deletionVariants(lower)) {
      const holders = byVariant.get(variant);
      if (!holders) byVariant.set(variant, [index]);
      else holders.push(index);
    }
  });
  return { byVariant, long };
}

// Polynomial hashes modulo two primes below 2^26, so that products stay exact in a double; the pair
// makes one 52-bit key. A collision only costs an extra exact comparison.
const PRIMES = [67_108_859, 67_108_837] as const;
const BASE = 131_071;

/** Hashes of `text` with every choice of at most two code units removed (MAX_DISTANCE). */
function deletionVariants(text: string): Set<number> {
  const p = new PolynomialHash(text, PRIMES[0]);
  const q = new PolynomialHash(text, PRIMES[1]);
  const n = text.length;
  const variants = new Set<number>([p.without(n, n) * 2 ** 26 + q.without(n, n)]);
  for (let i = 0; i < n; i++) {
    variants.add(p.without(i, n) * 2 ** 26 + q.without(i, n));
    for (let j = i + 1; j < n; j++) variants.add(p.without(i, j) * 2 ** 26 + q.without(i, j));
  }
  return variants;
}

/** A string's polynomial hash modulo one prime, and those of the string with one or two code units left out. */
class PolynomialHash {
  private readonly prefix: number[];
  private readonly power: number[];

  constructor(
    private readonly text: string,
    private readonly modulus: number,
  ) {
    this.prefix = [0];
    this.power = [1];
    for (let i = 0; i < text.length; i++) {
      this.prefix.push(((this.prefix[i] as number) * BASE + text.charCodeAt(i) + 1) % modulus);
      this.power.push(((this.power[i] as number) * BASE) % modulus);
    }
  }

  /** The hash without the code units at `i` and `j` (i < j; either equal to the length leaves out nothing there). */
  without(i: number, j: number): number {
    const n = this.text.length;
    let hash = this.piece(0, i);
    if (i < n) hash = this.append(hash, Math.min(i + 1, j), j);
    if (j < n) hash = this.append(hash, j + 1, n);
    return hash;
  }

  private append(hash: number, from: number, to: number): number {
    return (hash * (this.power[to - from] as number) + this.piece(from, to)) % this.modulus;
  }

  /** The hash of text[from, to). */
  private piece(from: number, to: number): number {
    const m = this.modulus;
    return ((((this.prefix[to] as number) - (((this.prefix[from] as number) * (this.power[to - from] as number)) % m)) % m) + m) % m;
  }
}
