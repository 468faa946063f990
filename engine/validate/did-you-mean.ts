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

/**
 * The closest candidate within two edits, or undefined; the first of equally close ones. A candidate
 * must keep more than half of the word, so that `k` does not "correct" to every other one-letter name.
 */
export function didYouMean(word: string, candidates: Iterable<string>, maxDistance = 2): string | undefined {
  return closestCandidates(word, candidates, maxDistance)[0];
}

/** Every candidate at the smallest qualifying distance from `word`, in the order given (repeats once). */
export function closestCandidates(word: string, candidates: Iterable<string>, maxDistance = 2): string[] {
  let closest: string[] = [];
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    if (Math.abs(candidate.length - word.length) > maxDistance) continue;
    const distance = editDistance(word, candidate);
    if (distance > maxDistance || distance * 2 >= Math.max(word.length, candidate.length) || distance > bestDistance) continue;
    if (distance < bestDistance) {
      closest = [];
      bestDistance = distance;
    }
    if (!closest.includes(candidate)) closest.push(candidate);
  }
  return closest;
}
