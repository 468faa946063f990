import type { Token } from './scanner';

/** A token's value with the document offset of each character, to map engine spans back to the text. */
export interface TokenContent {
  readonly value: string;
  /** offsets[k] is the document offset of value[k]; one extra entry marks the end of the content. */
  readonly offsets: readonly number[];
}

/** Decodes like the engine (`\"`, `\n`, `\t`, `\\`, backslash-newline) while remembering where each character came from. */
export function tokenContent(token: Token): TokenContent {
  if (token.kind !== 'string') {
    return { value: token.text, offsets: Array.from({ length: token.text.length + 1 }, (_, k) => token.start + k) };
  }
  const raw = token.text;
  const contentEnd = token.terminated ? raw.length - 1 : raw.length;
  let value = '';
  const offsets: number[] = [];
  for (let k = 1; k < contentEnd; k++) {
    const ch = raw[k] as string;
    const next = raw[k + 1];
    if (ch === '\\' && k + 1 < contentEnd) {
      const decoded = next === 'n' ? '\n' : next === 't' ? '\t' : next === '\\' ? '\\' : next === '"' ? '"' : next === '\n' ? '' : undefined;
      if (decoded !== undefined) {
        if (decoded) {
          value += decoded;
          offsets.push(token.start + k);
        }
        k++;
        continue;
      }
    }
    value += ch;
    offsets.push(token.start + k);
  }
  offsets.push(token.start + contentEnd);
  return { value, offsets };
}

/** The index into the value of the character at (or just before) a document offset. */
export function valueIndexAt(content: TokenContent, offset: number): number {
  let index = 0;
  while (index < content.offsets.length - 1 && (content.offsets[index] as number) < offset) index++;
  return index;
}

/** Maps a span of the value back to document offsets. */
export function documentSpan(content: TokenContent, start: number, end: number): { start: number; end: number } {
  const last = content.offsets.length - 1;
  const at = (k: number) => content.offsets[Math.max(0, Math.min(k, last))] as number;
  return { start: at(start), end: end > start ? at(end - 1) + 1 : at(end) };
}
