// The DOT lexer of the one parser: one token of lookahead, read on demand straight from the text,
// with the Attractor additions read natively (qualified keys and dotted/hyphenated bare values,
// raw line breaks inside quoted strings) and comments skipped as trivia.
import { continuesBareIdentifier, isAtLineStart } from './lexical';

export type TokenKind =
  | 'id' // bare identifier or numeral (keywords are ids; the grammar tells them apart)
  | 'string' // "quoted", possibly several joined with `+`
  | 'html' // <html-like>
  | 'arrow' // ->
  | 'line' // --
  | '{'
  | '}'
  | '['
  | ']'
  | '='
  | ';'
  | ','
  | ':'
  | 'eof';

/** A lexical problem: the lexer reports it and goes on with the next token. */
export interface LexicalIssue {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

const PUNCTUATION: Readonly<Record<number, TokenKind>> = {
  123: '{',
  125: '}',
  91: '[',
  93: ']',
  61: '=',
  59: ';',
  44: ',',
  58: ':',
};

/** Identifier characters of DOT: ASCII letters, digits, `_`, and everything from U+0080 on. */
function isIdentifierChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code >= 128;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

export interface LexerMark {
  readonly kind: TokenKind;
  readonly start: number;
  readonly end: number;
  readonly value: string;
  readonly newlineBefore: boolean;
  readonly previousEnd: number;
  readonly position: number;
}

export class DotLexer {
  kind: TokenKind = 'eof';
  /** Offsets of the current token in the text. */
  start = 0;
  end = 0;
  /** The current token's value: an id's text, a string's unescaped content, an html id's inner text. */
  value = '';
  /** Whether a line break separates the current token from the one before it. */
  newlineBefore = false;
  /** End offset of the previous token (where "expected X after Y" points). */
  previousEnd = 0;
  /** Start of the first quoted string since this was last set to -1 that ran across a line break (a missing closing quote looks like one). */
  multilineStringStart = -1;
  private position: number;

  constructor(
    readonly text: string,
    private readonly onIssue: (issue: LexicalIssue) => void,
  ) {
    // A UTF-8 byte-order mark (editors on Windows write one) is whitespace: offsets stay the same.
    this.position = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    this.advance();
  }

  /** Moves to the next token. */
  advance(): void {
    this.previousEnd = this.end;
    this.newlineBefore = false;
    this.skipTrivia();
    const text = this.text;
    let start = this.position;
    while (start < text.length && !this.startsToken(start)) {
      this.onIssue({ message: `Unexpected character ${JSON.stringify(text[start])}.`, start, end: start + 1 });
      this.position = start + 1;
      this.skipTrivia();
      start = this.position;
    }
    this.start = start;
    if (start >= text.length) {
      this.kind = 'eof';
      this.end = start;
      this.value = '';
      return;
    }
    const code = text.charCodeAt(start);
    const punctuation = PUNCTUATION[code];
    if (punctuation) {
      this.token(punctuation, start + 1);
    } else if (code === 34 /* " */) {
      this.readStrings();
    } else if (code === 60 /* < */) {
      this.readHtml();
    } else if (code === 45 /* - */ && text.charCodeAt(start + 1) === 62 /* > */) {
      this.token('arrow', start + 2);
    } else if (code === 45 && text.charCodeAt(start + 1) === 45) {
      this.token('line', start + 2);
    } else {
      this.readBare();
    }
  }

  is(kind: TokenKind): boolean {
    return this.kind === kind;
  }

  /** A snapshot to come back to after looking ahead. */
  mark(): LexerMark {
    return { kind: this.kind, start: this.start, end: this.end, value: this.value, newlineBefore: this.newlineBefore, previousEnd: this.previousEnd, position: this.position };
  }

  reset(mark: LexerMark): void {
    ({ kind: this.kind, start: this.start, end: this.end, value: this.value, newlineBefore: this.newlineBefore, previousEnd: this.previousEnd, position: this.position } = mark);
  }

  /** The current token as an error message names it. */
  describe(): string {
    if (this.kind === 'eof') return 'end of input';
    const token = this.text.slice(this.start, Math.min(this.end, this.start + 40));
    const firstLine = /^[^\r\n]*/.exec(token)?.[0] ?? token;
    return JSON.stringify(firstLine.length < this.end - this.start ? `${firstLine}…` : firstLine);
  }

  /** Whether the current token is the keyword (DOT keywords are case-insensitive). */
  isKeyword(keyword: 'strict' | 'graph' | 'digraph' | 'node' | 'edge' | 'subgraph'): boolean {
    return this.kind === 'id' && this.value.length === keyword.length && this.value.toLowerCase() === keyword;
  }

  private token(kind: TokenKind, end: number): void {
    this.kind = kind;
    this.end = end;
    this.position = end;
    this.value = '';
  }

  private skipTrivia(): void {
    const text = this.text;
    const length = text.length;
    let i = this.position;
    while (i < length) {
      const code = text.charCodeAt(i);
      if (code === 10 || code === 13) {
        this.newlineBefore = true;
        i++;
      } else if (code <= 32) {
        i++;
      } else if (code === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
        i = lineEnd(text, i);
      } else if (code === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
        const close = text.indexOf('*/', i + 2);
        if (close < 0) this.onIssue({ message: 'Unterminated comment: `/*` has no `*/`.', start: i, end: i + 2 });
        const end = close < 0 ? length : close + 2;
        if (!this.newlineBefore && hasLineBreak(text, i, end)) this.newlineBefore = true;
        i = end;
      } else if (code === 35 /* # */ && isAtLineStart(text, i)) {
        i = lineEnd(text, i);
      } else break;
    }
    this.position = i;
  }

  private startsToken(at: number): boolean {
    const text = this.text;
    const code = text.charCodeAt(at);
    if (PUNCTUATION[code] || code === 34 || code === 60 || isIdentifierChar(code)) return true;
    const next = text.charCodeAt(at + 1);
    if (code === 46) return isDigit(next); // .5
    if (code !== 45) return false;
    return next === 62 || next === 45 || isDigit(next) || (next === 46 && isDigit(text.charCodeAt(at + 2))); // -> -- -1 -.5
  }

  /** A bare id or numeral; a dot or hyphen stays inside when an identifier character follows. */
  private readBare(): void {
    const text = this.text;
    let i = this.position + 1;
    for (;;) {
      if (isIdentifierChar(text.charCodeAt(i))) i++;
      else if (continuesBareIdentifier(text, i)) i += 2;
      else break;
    }
    this.kind = 'id';
    this.end = i;
    this.position = i;
    this.value = text.slice(this.start, i);
  }

  /** One quoted string, or several joined with `+` (DOT concatenation), as one token. */
  private readStrings(): void {
    const newlineBefore = this.newlineBefore;
    let raw = this.readQuoted();
    let end = this.position;
    for (;;) {
      const before = this.position;
      this.skipTrivia();
      if (this.text.charCodeAt(this.position) !== 43 /* + */) {
        this.position = before;
        break;
      }
      const plus = this.position;
      this.position++;
      this.skipTrivia();
      if (this.text.charCodeAt(this.position) !== 34) {
        this.onIssue({ message: 'Expected a quoted string after `+`.', start: plus, end: plus + 1 });
        break;
      }
      raw += this.readQuoted();
      end = this.position;
    }
    this.newlineBefore = newlineBefore;
    if (this.multilineStringStart < 0 && hasLineBreak(this.text, this.start, end)) this.multilineStringStart = this.start;
    this.kind = 'string';
    this.end = end;
    this.value = unescapeDotString(raw);
  }

  /** The raw content of the quoted string at the position; the position moves past its closing quote. */
  private readQuoted(): string {
    const text = this.text;
    const open = this.position;
    let i = open + 1;
    for (;;) {
      const close = text.indexOf('"', i);
      if (close < 0) {
        this.onIssue({ message: 'Unterminated string: this `"` has no closing quote.', start: open, end: open + 1 });
        this.position = text.length;
        return text.slice(open + 1);
      }
      if (!isEscaped(text, close)) {
        this.position = close + 1;
        return text.slice(open + 1, close);
      }
      i = close + 1;
    }
  }

  private readHtml(): void {
    const text = this.text;
    let depth = 0;
    for (let i = this.start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 60) depth++;
      else if (code === 62 && --depth === 0) {
        this.kind = 'html';
        this.end = i + 1;
        this.position = i + 1;
        this.value = text.slice(this.start + 1, i);
        return;
      }
    }
    this.onIssue({ message: 'Unterminated HTML string: this `<` has no matching `>`.', start: this.start, end: this.start + 1 });
    this.kind = 'html';
    this.end = text.length;
    this.position = text.length;
    this.value = text.slice(this.start + 1);
  }
}

/** Whether the character at `index` follows an odd run of backslashes. */
function isEscaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let j = index - 1; j >= 0 && text.charCodeAt(j) === 92; j--) backslashes++;
  return backslashes % 2 === 1;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

function hasLineBreak(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13) return true;
  }
  return false;
}

/**
 * Resolves the DOT string escapes the Attractor grammar defines (canonical 2.2): \" \n \t \\.
 * Other backslash sequences (Graphviz's \l, \N ...) are kept as written.
 */
function unescapeDotString(value: string): string {
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
