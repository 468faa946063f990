/** Completion inside `condition="..."`: keys, operators, status values and labels, `&&`. */
import type { CompletionItem } from 'vscode-languageserver';
import { CompletionItemKind } from '../lsp-values';
import type { ContextKey } from '../analysis/context-keys';

export const statusValues: readonly { value: string; doc: string }[] = [
  { value: 'success', doc: 'The node reported SUCCESS.' },
  { value: 'fail', doc: 'The node reported FAIL.' },
  { value: 'partial_success', doc: 'The node reported PARTIAL_SUCCESS (also allow_partial and continue_on_fail).' },
  { value: 'retry', doc: 'The node asked to be retried.' },
  { value: 'skipped', doc: 'The node was skipped (missing `requires` keys).' },
];

export interface ConditionFacts {
  /** Context keys written upstream of the edge. */
  readonly contextKeys: readonly ContextKey[];
  /** Labels of the edges leaving the same source node (for preferred_label). */
  readonly labels: readonly string[];
}

/** A completion relative to the condition text: items replace [start, end) of the text. */
export interface TextCompletion {
  readonly start: number;
  readonly end: number;
  readonly items: readonly CompletionItem[];
}

export function completeCondition(text: string, index: number, facts: ConditionFacts): TextCompletion {
  const before = text.slice(0, index);
  const clauseStart = before.lastIndexOf('&&') < 0 ? 0 : before.lastIndexOf('&&') + 2;
  const clause = before.slice(clauseStart);
  const wordEnd = index + (/^[\w.]*/.exec(text.slice(index))?.[0].length ?? 0);

  const keyTyping = /^\s*([\w.]*)$/.exec(clause);
  if (keyTyping) {
    const start = index - (keyTyping[1] ?? '').length;
    return { start, end: wordEnd, items: keyItems(facts) };
  }
  const valueTyping = /^\s*([\w.]+)\s*(!=|=)\s*"?([\w.:\-/+@]*)$/.exec(clause);
  if (valueTyping) {
    const start = index - (valueTyping[3] ?? '').length;
    return { start, end: wordEnd, items: valueItems(valueTyping[1] ?? '', facts) };
  }
  if (/^\s*[\w.]+\s+$/.test(clause)) {
    return { start: index, end: index, items: ['=', '!='].map((op) => ({ label: op, kind: CompletionItemKind.Operator, detail: op === '=' ? 'equals' : 'differs from' })) };
  }
  if (/^\s*[\w.]+\s*(!=|=)\s*("[^"]*"|[\w.:\-/+@]+)\s+$/.test(clause)) {
    return { start: index, end: index, items: [{ label: '&&', kind: CompletionItemKind.Operator, detail: 'and: every clause must hold', insertText: '&& ' }] };
  }
  return { start: index, end: index, items: [] };
}

/** The key items of each list of context keys: typing in a condition asks for the same keys (hundreds in a large pipeline) again and again. */
const keyItemsOf = new WeakMap<readonly ContextKey[], readonly CompletionItem[]>();

function keyItems(facts: ConditionFacts): readonly CompletionItem[] {
  const known = keyItemsOf.get(facts.contextKeys);
  if (known) return known;
  const items = [
    { label: 'outcome', kind: CompletionItemKind.Keyword, detail: 'status of the node just run', documentation: 'success, fail, partial_success, retry or skipped; the preferred label when the node reported one.', sortText: '0outcome' },
    { label: 'preferred_label', kind: CompletionItemKind.Keyword, detail: 'label the node asked to follow', sortText: '0preferred_label' },
    // `textEdit` is set where the condition sits (completion.ts): a slot for it from the start makes
    // each placed copy of hundreds of items a plain object, not one grown by a property.
    ...facts.contextKeys.map((k) => ({ label: `context.${k.key}`, kind: CompletionItemKind.Variable, detail: `written by ${k.writer}`, sortText: `1${k.key}`, textEdit: undefined })),
  ];
  keyItemsOf.set(facts.contextKeys, items);
  return items;
}

function valueItems(key: string, facts: ConditionFacts): CompletionItem[] {
  if (key === 'outcome') {
    return [
      ...statusValues.map((s) => ({ label: s.value, kind: CompletionItemKind.EnumMember, documentation: s.doc })),
      ...facts.labels.map((label) => ({ label: quoteIfNeeded(label), kind: CompletionItemKind.Value, detail: 'an edge label (a preferred label resolves `outcome`)' })),
    ];
  }
  if (key === 'preferred_label') return facts.labels.map((label) => ({ label: quoteIfNeeded(label), kind: CompletionItemKind.Value, detail: 'edge label' }));
  return [];
}

/** Inside a DOT string a quoted literal needs escaped quotes. */
function quoteIfNeeded(value: string): string {
  return /^[\w.:\-/+@]+$/.test(value) ? value : `\\"${value}\\"`;
}
