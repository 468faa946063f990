/**
 * `$$` is a literal `$` wherever the engine expands values (tool commands, prompts, gate labels), as
 * in the reference's substitution: `for f in $$(ls)` reaches bash as `for f in $(ls)`, and the
 * shell's process id is `$$$$`. Pairs are read left to right, so `$$$x` is a `$` and then `$x`.
 */
export interface Unescaped {
  /** The text with every `$$` turned into `$`. */
  readonly text: string;
  /** Positions in `text` of the `$`s that were `$$`: never the start of a pipeline variable. */
  readonly escaped: ReadonlySet<number>;
}

export function unescapeDollars(text: string): Unescaped {
  if (!text.includes('$$')) return { text, escaped: new Set() };
  const escaped = new Set<number>();
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '$' && text[i + 1] === '$') {
      escaped.add(out.length);
      i++;
    }
    out += text[i];
  }
  return { text: out, escaped };
}

/** Where a position of the unescaped text stands in the source (each earlier escape took one more character). */
export function sourceOffset(unescaped: Unescaped, offset: number): number {
  let shift = 0;
  for (const position of unescaped.escaped) if (position < offset) shift++;
  return offset + shift;
}
