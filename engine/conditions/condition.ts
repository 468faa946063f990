/**
 * The edge condition language (canonical §10): `Clause ( '&&' Clause )*`,
 * `Clause ::= Key ('=' | '!=') Literal`, keys `outcome`, `preferred_label`, `context.<path>`
 * or a bare context key. Parsed with columns so editors can point at the offending character.
 */

type ConditionKey =
  | { readonly kind: 'outcome' }
  | { readonly kind: 'preferred_label' }
  | { readonly kind: 'context'; readonly path: string } // written `context.<path>`
  | { readonly kind: 'bare'; readonly path: string }; // any other key: a direct context lookup

interface Span {
  /** Zero-based offsets into the condition text. */
  readonly start: number;
  readonly end: number;
}

export interface Clause {
  readonly key: ConditionKey;
  readonly keyText: string;
  readonly operator: '=' | '!=';
  readonly literal: string;
  readonly span: Span;
  readonly keySpan: Span;
  readonly literalSpan: Span;
}

export interface Condition {
  readonly text: string;
  /** Empty for the empty condition, which always holds. */
  readonly clauses: readonly Clause[];
}

interface ConditionError {
  readonly message: string;
  readonly span: Span;
}

export type ConditionParse = { ok: true; condition: Condition } | { ok: false; error: ConditionError };

// Character classes as code tests: every lint reads every edge condition, and a regular
// expression per character made the parse the bulk of that.
const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isDigit = (code: number) => code >= 48 && code <= 57;
/** [A-Za-z_] */
const isKeyStart = (code: number) => isLetter(code) || code === 95;
/** [A-Za-z0-9_.] */
const isKeyChar = (code: number) => isKeyStart(code) || isDigit(code) || code === 46;
/** [A-Za-z0-9_.:\-/+@] */
const isBareLiteralChar = (code: number) => isKeyChar(code) || code === 58 || code === 45 || code === 47 || code === 43 || code === 64;
/** /\s/: the ASCII blanks directly, anything else through the expression (Unicode spaces). */
const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(String.fromCharCode(code)));

export function parseCondition(text: string): ConditionParse {
  const clauses: Clause[] = [];
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
  };
  const fail = (message: string, start: number, end = start + 1): ConditionParse => ({
    ok: false,
    error: { message: `${message} (column ${start + 1})`, span: { start, end: Math.min(Math.max(end, start), n) } },
  });

  skipSpace();
  if (i === n) return { ok: true, condition: { text, clauses } };
  for (;;) {
    skipSpace();
    const keyStart = i;
    if (i >= n || !isKeyStart(text.charCodeAt(i))) {
      return fail(i >= n ? 'expected a key after `&&`' : `expected a key (outcome, preferred_label or context.<name>) but found \`${text[i]}\``, i);
    }
    while (i < n && isKeyChar(text.charCodeAt(i))) i++;
    const keyText = text.slice(keyStart, i);
    if (keyText.endsWith('.') || keyText.includes('..')) return fail(`\`${keyText}\` is not a valid key path`, keyStart, i);
    if (keyText === 'context') return fail('`context` needs a key: write `context.<name>`', keyStart, i);
    const keySpan = { start: keyStart, end: i };
    skipSpace();
    let operator: '=' | '!=';
    if (text.startsWith('!=', i)) {
      operator = '!=';
      i += 2;
    } else if (text[i] === '=' && text[i + 1] === '=') {
      return fail('use `=` for equality, not `==`', i, i + 2);
    } else if (text[i] === '=') {
      operator = '=';
      i += 1;
    } else {
      const found = i < n ? `\`${text[i]}\`` : 'the end of the condition';
      return fail(`expected \`=\` or \`!=\` after \`${keyText}\` but found ${found}`, i);
    }
    skipSpace();
    const literalStart = i;
    let literal: string;
    if (text[i] === '"') {
      i++;
      let value = '';
      while (i < n && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < n) {
          const next = text[i + 1];
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
          i += 2;
        } else value += text[i++];
      }
      if (i >= n) return fail('unterminated string literal', literalStart, n);
      i++;
      literal = value;
    } else {
      while (i < n && isBareLiteralChar(text.charCodeAt(i))) i++;
      literal = text.slice(literalStart, i);
      if (literal === '') {
        const found = i < n ? `\`${text[i]}\`` : 'the end of the condition';
        return fail(`expected a value after \`${operator}\` but found ${found} (quote values with spaces or symbols)`, i);
      }
    }
    const literalSpan = { start: literalStart, end: i };
    clauses.push({ key: classifyKey(keyText), keyText, operator, literal, span: { start: keyStart, end: i }, keySpan, literalSpan });
    skipSpace();
    if (i >= n) break;
    if (text.startsWith('&&', i)) {
      i += 2;
      continue;
    }
    if (text.startsWith('||', i)) return fail('`||` is not part of the condition language: use two edges instead', i, i + 2);
    return fail(`expected \`&&\` or the end of the condition but found \`${text[i]}\``, i);
  }
  return { ok: true, condition: { text, clauses } };
}

function classifyKey(keyText: string): ConditionKey {
  if (keyText === 'outcome') return { kind: 'outcome' };
  if (keyText === 'preferred_label') return { kind: 'preferred_label' };
  if (keyText.startsWith('context.')) return { kind: 'context', path: keyText.slice('context.'.length) };
  return { kind: 'bare', path: keyText };
}

/** What a condition is evaluated against: the outcome of the node just run and the run context. */
export interface ConditionInput {
  readonly status: string;
  readonly preferredLabel?: string;
  readonly lookup: (key: string) => unknown;
}

function resolveConditionKey(key: ConditionKey, input: ConditionInput): string {
  switch (key.kind) {
    // Ledger: `outcome` resolves to the reported preferred_label when one is set.
    case 'outcome':
      return input.preferredLabel ? input.preferredLabel : input.status;
    case 'preferred_label':
      return input.preferredLabel ?? '';
    case 'context':
      return stringifyContextValue(input.lookup(`context.${key.path}`) ?? input.lookup(key.path));
    case 'bare':
      return stringifyContextValue(input.lookup(key.path));
  }
}

export function evaluateCondition(condition: Condition, input: ConditionInput): boolean {
  return condition.clauses.every((clause) => {
    const actual = resolveConditionKey(clause.key, input);
    return clause.operator === '=' ? actual === clause.literal : actual !== clause.literal;
  });
}

export function stringifyContextValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}
