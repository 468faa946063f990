/**
 * `$name` and `${name}` expansion (canonical §4.5 `$goal`; ledger `$param`, `${key}`).
 * Simple replacement, not a template language. A name with no value is left exactly as
 * written, so shell variables in tool commands keep working. `$$` is the escape for a literal `$`
 * (transform/dollar-escape.ts): never the start of a variable.
 */
const VARIABLE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_.]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

export interface VariableReference {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly braced: boolean;
}

export function findVariables(text: string): VariableReference[] {
  return [...text.matchAll(VARIABLE)]
    .filter((match) => match[0] !== '$$')
    .map((match) => ({
      name: (match[1] ?? match[2]) as string,
      start: match.index ?? 0,
      end: (match.index ?? 0) + match[0].length,
      braced: match[1] !== undefined,
    }));
}

/**
 * Replaces each variable `resolve` knows (prompts; tool commands go through runtime/expand.ts).
 * `keep` leaves `$$` as written for a later expansion (the transform before the run), `unescape`
 * turns it into `$` (the last expansion, at run time).
 */
export function expandVariables(text: string, escapes: 'keep' | 'unescape', resolve: (name: string) => string | undefined): string {
  if (!text.includes('$')) return text;
  return text.replace(VARIABLE, (whole, braced: string | undefined, bare: string | undefined) => {
    if (whole === '$$') return escapes === 'keep' ? whole : '$';
    const value = resolve((braced ?? bare) as string);
    return value === undefined ? whole : value;
  });
}
