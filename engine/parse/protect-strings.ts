/**
 * ts-graphviz's grammar is stricter than what Attractor pipelines legitimately write:
 * - it refuses raw line breaks (and U+2028/U+2029) inside quoted strings, which multi-line prompts
 *   and stylesheets use freely;
 * - it refuses dots and hyphens inside bare identifiers, which the canonical grammar allows
 *   (`QualifiedId` keys such as `human.default_choice`, `BareValue`s such as `gpt-4.1`).
 * Comments are stripped before parsing (canonical DoD 11.1): the grammar admits them only in some
 * places, e.g. not between an attribute and the comma after it in a `graph [ ... ]` list.
 * This pre-pass swaps each such character for a stand-in of the same length that the parser
 * accepts, so every offset it reports still points at the original text; `restoreQuoted` and
 * `restoreBare` undo it in parsed quoted and bare literals respectively.
 */
import { continuesBareIdentifier, isAsciiIdentifierChar, isAtLineStart } from './lexical';

const LF_STANDIN = '\uE000';
const CR_STANDIN = '\uE001';
const STANDINS: Readonly<Record<string, string>> = { '\n': LF_STANDIN, '\r': CR_STANDIN, '\u2028': '\uE002', '\u2029': '\uE003' };
const ORIGINALS = new Map(Object.entries(STANDINS).map(([original, standin]) => [standin, original]));
const STANDIN_PATTERN = /[\uE000-\uE003]/g;
// Letters (Glagolitic) the parser's identifier class accepts; they stand only in bare tokens.
const BARE_STANDINS: Readonly<Record<string, string>> = { '.': '\u2C00', '-': '\u2C01' };
const BARE_ORIGINALS = new Map(Object.entries(BARE_STANDINS).map(([original, standin]) => [standin, original]));
const BARE_STANDIN_PATTERN = /[\u2C00\u2C01]/g;
const IDENTIFIER_START = /[A-Za-z_]/;

export function protectForParser(text: string): string {
  let out = '';
  let segmentStart = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i];
    const next = text[i + 1];
    if ((ch === '/' && (next === '/' || next === '*')) || (ch === '#' && isAtLineStart(text, i))) {
      const end = ch === '/' && next === '*' ? blockCommentEnd(text, i) : skipUntilLineEnd(text, i);
      out += text.slice(segmentStart, i) + blankOut(text.slice(i, end));
      segmentStart = i = end;
    } else if (ch === '"') {
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < n && text[i + 1] !== '\n' && text[i + 1] !== '\r') {
          i += 2;
          continue;
        }
        const standin = STANDINS[text[i] as string];
        if (standin) {
          out += text.slice(segmentStart, i) + standin;
          segmentStart = i + 1;
        }
        i++;
      }
      i++;
    } else if (IDENTIFIER_START.test(ch ?? '') && !isAsciiIdentifierChar(text.charCodeAt(i - 1))) {
      i++;
      for (;;) {
        if (isAsciiIdentifierChar(text.charCodeAt(i))) i++;
        else if (continuesBareIdentifier(text, i)) {
          out += text.slice(segmentStart, i) + BARE_STANDINS[text[i] as string];
          segmentStart = i + 1;
          i++;
        } else break;
      }
    } else {
      i++;
    }
  }
  return segmentStart === 0 ? text : out + text.slice(segmentStart);
}

/** Restores the line breaks protected inside a quoted literal. */
export function restoreQuoted(value: string): string {
  return value.replace(STANDIN_PATTERN, (standin) => ORIGINALS.get(standin) ?? standin);
}

/** Restores the dots and hyphens protected inside a bare literal. */
export function restoreBare(value: string): string {
  return value.replace(BARE_STANDIN_PATTERN, (standin) => BARE_ORIGINALS.get(standin) ?? standin);
}

function blockCommentEnd(text: string, from: number): number {
  const end = text.indexOf('*/', from + 2);
  return end < 0 ? text.length : end + 2;
}

/** A comment becomes blanks of its length (line breaks kept), so the parser never sees it. */
function blankOut(comment: string): string {
  return comment.replace(/[^\r\n]/g, ' ');
}

function skipUntilLineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

/**
 * Resolves the DOT string escapes the Attractor grammar defines (canonical 2.2): \" \n \t \\.
 * Other backslash sequences (Graphviz's \l, \N ...) are kept as written.
 */
export function unescapeDotString(value: string): string {
  if (!value.includes('\\')) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch !== '\\' || i + 1 >= value.length) {
      out += ch;
      continue;
    }
    const next = value[i + 1];
    if (next === 'n') out += '\n';
    else if (next === 't') out += '\t';
    else if (next === '\\') out += '\\';
    else if (next === '"') out += '"';
    else if (next === '\n') out += '';
    else {
      out += ch;
      continue;
    }
    i++;
  }
  return out;
}
