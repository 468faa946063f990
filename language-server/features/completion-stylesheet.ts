/** Completion inside `model_stylesheet="..."`: selectors, the three properties and their values. */
import type { CompletionItem } from 'vscode-languageserver';
import { CompletionItemKind } from '../lsp-values';
import { attributeSpec } from '../../engine/model/attributes';
import { shapes } from '../../engine/model/handler-types';
import { stylesheetProperties } from '../../engine/transform/stylesheet';
import type { TextCompletion } from './completion-condition';

export interface StylesheetFacts {
  readonly classes: readonly string[];
  readonly nodeIds: readonly string[];
  /** llm_model values already used in the graph. */
  readonly models: readonly string[];
}

export function completeStylesheet(text: string, index: number, facts: StylesheetFacts): TextCompletion {
  const before = stripComments(text.slice(0, index));
  const insideRule = before.lastIndexOf('{') > before.lastIndexOf('}');
  const wordMatch = /[\w.#*:-]*$/.exec(before)?.[0] ?? '';
  const wordEnd = index + (/^[\w-]*/.exec(text.slice(index))?.[0].length ?? 0);
  if (!insideRule) {
    const items: CompletionItem[] = [
      { label: '*', kind: CompletionItemKind.Operator, detail: 'every node', sortText: '0' },
      ...shapes.map((s) => ({ label: s.shape, kind: CompletionItemKind.TypeParameter, detail: `shape → ${s.handler}`, documentation: s.doc, sortText: `1${s.shape}` })),
      ...facts.classes.map((c) => ({ label: `.${c}`, kind: CompletionItemKind.Class, detail: 'class in use', sortText: `2${c}` })),
      ...facts.nodeIds.map((id) => ({ label: `#${id}`, kind: CompletionItemKind.Variable, detail: 'node', sortText: `3${id}` })),
    ];
    return { start: index - wordMatch.length, end: wordEnd, items };
  }
  const declaration = before.slice(Math.max(before.lastIndexOf('{'), before.lastIndexOf(';')) + 1);
  const valueMatch = /^\s*([\w-]+)\s*:\s*([\w.:/-]*)$/.exec(declaration);
  if (valueMatch) {
    const property = valueMatch[1] ?? '';
    const spec = attributeSpec(property);
    const values = spec?.type.kind === 'enum' ? spec.type.values.map((v) => ({ label: v.value, kind: CompletionItemKind.EnumMember, documentation: v.doc })) : [];
    const models = property === 'llm_model' ? facts.models.map((m) => ({ label: m, kind: CompletionItemKind.Value, detail: 'model used in this graph' })) : [];
    return { start: index - (valueMatch[2] ?? '').length, end: wordEnd, items: [...values, ...models] };
  }
  const propertyMatch = /^\s*([\w-]*)$/.exec(declaration);
  if (propertyMatch) {
    const items = stylesheetProperties.map((p) => ({ label: p, kind: CompletionItemKind.Property, documentation: attributeSpec(p)?.doc ?? '', insertText: `${p}: ` }));
    return { start: index - (propertyMatch[1] ?? '').length, end: wordEnd, items };
  }
  return { start: index, end: index, items: [] };
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?(\*\/|$)/g, (c) => ' '.repeat(c.length));
}
