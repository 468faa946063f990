/**
 * Caps on what one pipeline text may be. The parser reads edge chains in a loop and stops nesting at
 * the subgraph cap, so neither can overflow the stack; the caps sit far above any pipeline a person
 * writes and keep a pathological text (from a generator, or hostile) a clear error.
 */
export const PARSE_LIMITS = {
  /** A pipeline's text, in UTF-8 bytes (also the cap on reading a .dot file). */
  inputBytes: 8 * 1024 * 1024,
  /** `->` steps in one edge statement; a longer path is written as several edge statements. */
  edgeChainSteps: 2_000,
  /** Subgraphs inside subgraphs. */
  subgraphDepth: 200,
} as const;

/** The "too large" message when the text's UTF-8 size passes the cap, else undefined. */
export function inputTooLarge(text: string): string | undefined {
  const limit = PARSE_LIMITS.inputBytes;
  // A UTF-16 unit is 1 to 3 UTF-8 bytes: only a text near the cap needs counting.
  if (text.length * 3 <= limit) return undefined;
  const bytes = utf8Length(text);
  return bytes > limit ? `pipeline too large: ${bytes} bytes (limit ${limit})` : undefined;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
