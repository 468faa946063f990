import type { Graph } from '../model/graph';
import { expandVariables } from '../transform/variables';
import { stringifyContextValue } from '../conditions/condition';
import { commandVariableNames, resolveCommandVariable } from '../transform/command-variables';
import type { QuoteContext } from '../transform/shell-references';
import { findShellReferences } from '../transform/shell-references';
import { unescapeDollars } from '../transform/dollar-escape';
import type { RunContext } from './context';
import { PRIOR_CRITIQUES_PREFIX } from './feedback';

/** The text of a pipeline variable: the graph goal for `goal`, else the context value. */
export function lookup(graph: Graph, context: RunContext, name: string): string | undefined {
  if (name === 'goal') return graph.attributes.get('goal')?.value ?? '';
  const value = context.get(name);
  return value === undefined || value === null ? undefined : stringifyContextValue(value);
}

/** Prompts and gate labels: `$goal`, params and plain context keys (dotted keys stay literal, as the ledger specifies); `$$` is `$`. */
export function expandPrompt(text: string, graph: Graph, context: RunContext): string {
  return expandVariables(text, 'unescape', (name) => {
    if (name.includes('.')) return undefined;
    const value = lookup(graph, context, name);
    // An empty critique channel (first iteration) must not leave the placeholder in the prompt.
    return value ?? (name.startsWith(PRIOR_CRITIQUES_PREFIX) ? '' : undefined);
  });
}

/** A tool command whose pipeline variables are references to environment variables holding the values. */
interface ExpandedCommand {
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
}

export type CommandExpansion = { readonly ok: true; readonly value: ExpandedCommand } | { readonly ok: false; readonly error: string };

const VARIABLE_PREFIX = 'ATTRACTOR_VAR_';

/**
 * Tool commands: each pipeline variable (see command-variables.ts) becomes `${ATTRACTOR_VAR_…}`,
 * written for the quoting context it stands in, and its value travels in the environment. Bash
 * never parses a value, so no value can become code; the text of the command is the author's.
 */
export function expandCommand(source: string, graph: Graph, context: RunContext, paramNames: Iterable<string>): CommandExpansion {
  if (!source.includes('$')) return { ok: true, value: { command: source, env: {} } };
  const { text, escaped } = unescapeDollars(source);
  const names = commandVariableNames(graph, paramNames);
  const variables = new Map<string, string>();
  const env: Record<string, string> = {};
  let command = '';
  let copied = 0;
  for (const reference of findShellReferences(text)) {
    // A `$` written `$$` is bash's own: `$${x}` is the shell's `${x}`.
    const resolved = escaped.has(reference.start) ? undefined : resolveCommandVariable(reference, names);
    const spelling = resolved && referenceFor(reference.context);
    if (!resolved || !spelling) continue;
    const value = lookup(graph, context, resolved.key) ?? '';
    if (value.includes('\0')) return { ok: false, error: `the value of ${resolved.key} holds a NUL byte, which no shell variable can carry` };
    if (reference.context === 'arithmetic' && !/^[+-]?\d+$/.test(value.trim())) {
      return { ok: false, error: `${resolved.key} stands where bash evaluates its value as an expression (arithmetic, a subscript, \`-v\`), but the value is not an integer: ${JSON.stringify(value.slice(0, 80))}` };
    }
    const variable = variableFor(resolved.key, variables);
    env[variable] = value;
    command += text.slice(copied, reference.start) + spelling(variable);
    copied = resolved.end;
  }
  return { ok: true, value: { command: command + text.slice(copied), env } };
}

/** How a reference to the variable is written where the author's reference stood; undefined where bash expands nothing. */
function referenceFor(context: QuoteContext): ((variable: string) => string) | undefined {
  switch (context) {
    case 'unquoted':
      return (variable) => `"\${${variable}}"`;
    case 'double':
    case 'heredoc':
    case 'arithmetic':
      return (variable) => `\${${variable}}`;
    case 'single':
      return (variable) => `'"\${${variable}}"'`;
    case 'ansi':
      return (variable) => `'"\${${variable}}"$'`;
    case 'quoted-heredoc':
    case 'comment':
      return undefined;
  }
}

/** `tool.output` → ATTRACTOR_VAR_tool_output; two keys that read alike get distinct names. */
function variableFor(key: string, variables: Map<string, string>): string {
  const known = variables.get(key);
  if (known) return known;
  const base = `${VARIABLE_PREFIX}${key.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const taken = new Set(variables.values());
  let variable = base;
  for (let n = 2; taken.has(variable); n += 1) variable = `${base}_${n}`;
  variables.set(key, variable);
  return variable;
}
