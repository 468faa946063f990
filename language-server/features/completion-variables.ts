/** `$goal`, `$iteration`, `$prior_critiques_<id>` and `${context.key}` inside prompts and tool commands. */
import type { CompletionItem } from 'vscode-languageserver';
import { CompletionItemKind } from '../lsp-values';
import type { ContextKey } from '../analysis/context-keys';
import type { TextCompletion } from './completion-condition';

export interface VariableFacts {
  readonly goal?: string;
  /** Nodes whose critic output reaches this node through feedback_from. */
  readonly critiquedNodeIds: readonly string[];
  readonly contextKeys: readonly ContextKey[];
  /** `$names` written elsewhere in the pipeline: launch parameters (`--param`) or context keys. */
  readonly usedNames: readonly string[];
}

export function completeVariables(text: string, index: number, facts: VariableFacts): TextCompletion | undefined {
  const match = /\$(\{?)([\w.]*)$/.exec(text.slice(0, index));
  if (!match) return undefined;
  const braced = match[1] === '{';
  const start = index - match[0].length;
  const wordEnd = index + (/^[\w.]*\}?/.exec(text.slice(index))?.[0].length ?? 0);
  const variable = (name: string, detail: string, documentation?: string): CompletionItem => ({
    label: `$${name}`,
    kind: CompletionItemKind.Variable,
    detail,
    ...(documentation ? { documentation } : {}),
    insertText: braced || name.includes('.') ? `\${${name}}` : `$${name}`,
    filterText: braced ? `\${${name}` : `$${name}`,
  });
  const items: CompletionItem[] = [
    variable('goal', 'the graph goal', facts.goal ? `Expands to: ${facts.goal}` : 'The graph has no `goal` yet.'),
    variable('iteration', 'loop_restart count, from 0'),
    variable('loop_count', 'loop_restart count, from 0'),
    ...facts.critiquedNodeIds.map((id) => variable(`prior_critiques_${id}`, `critiques fed back to \`${id}\` (feedback_from)`)),
    ...facts.contextKeys.map((k) => variable(k.key, `context key written by ${k.writer}`)),
    ...facts.usedNames.map((name) => variable(name, 'used elsewhere in this pipeline (a --param or context key)')),
  ];
  const unique = items.filter((item, k) => items.findIndex((other) => other.label === item.label) === k);
  return { start, end: wordEnd, items: unique };
}
