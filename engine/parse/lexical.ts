// Lexical facts of the DOT dialect that both the engine's parser pre-pass and the language
// server's forgiving tokenizer rely on, so the two never disagree on where a token ends.

/** `[A-Za-z0-9_]` by char code. */
function isAsciiIdentifierChar(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || (code >= 48 && code <= 57);
}

/**
 * A dot or hyphen stays inside a bare identifier when an identifier character follows it
 * (canonical `QualifiedId` keys such as `human.default_choice`, `BareValue`s such as `gpt-4.1`),
 * so `a->b` still splits at the arrow.
 */
export function continuesBareIdentifier(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return (code === 46 || code === 45) && isAsciiIdentifierChar(text.charCodeAt(index + 1));
}

/** Whether only blanks precede `index` on its line (a `#` there starts a comment line). */
export function isAtLineStart(text: string, index: number): boolean {
  for (let j = index - 1; j >= 0; j--) {
    const c = text[j];
    if (c === '\n') return true;
    if (c !== ' ' && c !== '\t' && c !== '\r') return false;
  }
  return true;
}
