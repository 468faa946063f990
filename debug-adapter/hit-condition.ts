/** A DAP hit condition over a visit or traversal count: `3`, `==3`, `>=3`, `>3`, `<3`, `<=3`, `%2`. */
export type HitCondition = (count: number) => boolean;

export function parseHitCondition(text: string): { ok: true; test: HitCondition } | { ok: false; message: string } {
  const match = /^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$/.exec(text);
  if (!match) return { ok: false, message: `hit count "${text}" is not one of N, ==N, >=N, >N, <N, <=N, %N` };
  const n = Number(match[2]);
  switch (match[1]) {
    case undefined:
    case '==':
      return { ok: true, test: (count) => count === n };
    case '>=':
      return { ok: true, test: (count) => count >= n };
    case '>':
      return { ok: true, test: (count) => count > n };
    case '<':
      return { ok: true, test: (count) => count < n };
    case '<=':
      return { ok: true, test: (count) => count <= n };
    default:
      if (n === 0) return { ok: false, message: 'hit count %0 divides by zero' };
      return { ok: true, test: (count) => count % n === 0 };
  }
}
