import type { SpanDiagnostic } from '../../model/diagnostics';
import type { Attribute, Graph, GraphNode } from '../../model/graph';
import { commandVariableNames, resolveCommandVariable } from '../../transform/command-variables';
import type { ShellReference } from '../../transform/shell-references';
import { findShellReferences } from '../../transform/shell-references';
import { sourceOffset, unescapeDollars } from '../../transform/dollar-escape';
import { analyze } from '../graph-analysis';
import type { LintRule, RuleContext } from '../rule';
import { valueSpanRange } from '../value-location';

/**
 * The `$name` forms in a tool_command whose meaning a reader cannot tell at a glance: a pipeline
 * variable where bash would read text literally or as another program, a name that is both a
 * pipeline variable and a shell variable the command sets, and a name that looks meant for the
 * context but is the shell's (specs/EXTENSIONS.md, "values reach tool commands as environment
 * variables").
 */
const INTERPRETER_ARGUMENT = /(?:\beval|\b(?:ba|z|da|k)?sh\s+-c|\bpython3?\s+-c|\bnode\s+-e|\bperl\s+-e|\bruby\s+-e|\bawk)\s+(?:-\S+\s+)*["'][^"'\n]*$/;
// Where bash takes a word as a variable name and evaluates a subscript in it (`unset 'a[$(…)]'` runs).
const NAME_POSITION = /(?:\bunset|\bread(?:\s+-[A-Za-z]+)*|\bprintf\s+-v|\b(?:declare|local|typeset)\s+-n)\s+["']?$/;
const ASSIGNMENT = /(?:^|[\s;&|(])([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=/g;
const LOOP_OR_DECLARATION = /\b(?:for|select)\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b|\b(?:local|export|declare|typeset|readonly)\s+(?:-\w+\s+)*([A-Za-z_][A-Za-z0-9_]*)/g;
// `read -r -p prompt a b`: options, the arguments of -a -d -i -n -N -p -t -u, then the names it sets.
const READ = /\bread\b((?:\s+(?:-[A-Za-z]*[adinNptu]\s+\S+|-[A-Za-z]+|[A-Za-z_][A-Za-z0-9_]*))+)/g;

function shellVariablesSetBy(command: string): Set<string> {
  const names = new Set<string>();
  for (const match of command.matchAll(ASSIGNMENT)) names.add(match[1] as string);
  for (const match of command.matchAll(LOOP_OR_DECLARATION)) names.add((match[1] ?? match[2]) as string);
  for (const match of command.matchAll(READ)) {
    for (const word of (match[1] as string).trim().split(/\s+/)) if (/^[A-Za-z_]\w*$/.test(word)) names.add(word);
  }
  return names;
}

/** Keys the edge conditions read as `context.key`: evidence that the author means a context key. */
function conditionKeys(graph: Graph): Set<string> {
  // Pipelines repeat the same few conditions: each distinct text is scanned once.
  const texts = new Set<string>();
  for (const edge of graph.edges) texts.add(edge.attributes.get('condition')?.value ?? '');
  const keys = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(/\bcontext\.([A-Za-z_][\w.]*)/g)) keys.add(match[1] as string);
  return keys;
}

function message(node: GraphNode, reference: ShellReference, command: string, key: string | undefined, shellVariables: ReadonlySet<string>, conditionKeys: ReadonlySet<string>): string | undefined {
  const written = command.slice(reference.start, reference.end);
  const where = `\`${node.id}\`: \`${written}\``;
  if (key === undefined) {
    // Bash reads `$f.txt` as `$f` then `.txt`; `${a.b}` is a bash error.
    const shellName = reference.braced ? reference.name : (reference.name.split('.')[0] as string);
    const expands = reference.context !== 'single' && reference.context !== 'ansi' && reference.context !== 'quoted-heredoc';
    if (!expands || shellVariables.has(shellName) || !(shellName.includes('.') || conditionKeys.has(shellName))) return undefined;
    return `\`${node.id}\`: \`${command.slice(reference.start, reference.start + 1 + (reference.braced ? reference.name.length + 2 : shellName.length))}\` is no pipeline variable (goal, an engine key, a declared \`outputs\` key) and this command never sets it, so bash reads its own \`${shellName}\` unless the run passes \`--param ${shellName}=…\`. For a context key set at run time (parse_json, a model's context_updates) write \`\${context.${reference.name}}\`, or declare the key in its writer's \`outputs\`.`;
  }
  if (reference.context === 'quoted-heredoc') return `${where} stands in a quoted here-document (\`<<'EOF'\`), where bash expands nothing: it stays literal text. Unquote the delimiter (\`<<EOF\`) to substitute the value.`;
  if (reference.context === 'single' || reference.context === 'ansi') {
    return `${where} stands inside '…', where bash reads \`$\` literally; Attractor substitutes the value of ${key} here all the same (closing the quote around it). If this text is a program for another interpreter, the value becomes part of its code: export the key with \`tool_env="${key}"\` and read the environment variable instead.`;
  }
  if (reference.context === 'double' && INTERPRETER_ARGUMENT.test(command.slice(0, reference.start))) {
    return `${where} is substituted into text that another interpreter runs as code (\`sh -c\`, \`eval\`, \`python -c\`...): the value is data to this shell but code to that one. Export the key with \`tool_env="${key}"\` and read the environment variable in the inner program.`;
  }
  if (NAME_POSITION.test(command.slice(0, reference.start))) {
    return `${where} hands the value of ${key} to bash as a variable name, and bash evaluates a subscript in a name (\`a[$(…)]\` runs): use a fixed name in the command and the value as data.`;
  }
  if (!reference.name.startsWith('context.') && shellVariables.has(reference.name)) {
    return `${where} is both the pipeline variable ${key} and a shell variable this command sets: Attractor substitutes the pipeline value at every \`$${reference.name}\`. Rename the shell variable, or write \`\${context.${key}}\` where the pipeline value is meant.`;
  }
  return undefined;
}

function* ambiguities(context: RuleContext): Iterable<{ node: GraphNode; attribute: Attribute; at: { start: number; end: number }; message: string }> {
  const { handlerOf } = analyze(context);
  const names = commandVariableNames(context.graph);
  const readByConditions = conditionKeys(context.graph);
  for (const node of context.graph.nodes.values()) {
    const attribute = node.attributes.get('tool_command');
    if (!attribute || handlerOf(node) !== 'tool' || !attribute.value.includes('$')) continue;
    // What bash receives, `$$` read as `$` (a `$` written `$$` is bash's own).
    const command = unescapeDollars(attribute.value);
    const shellVariables = shellVariablesSetBy(command.text);
    for (const reference of findShellReferences(command.text)) {
      if (reference.context === 'comment' || command.escaped.has(reference.start)) continue;
      const text = message(node, reference, command.text, resolveCommandVariable(reference, names)?.key, shellVariables, readByConditions);
      const at = { start: sourceOffset(command, reference.start), end: sourceOffset(command, reference.end) };
      if (text) yield { node, attribute, at, message: text };
    }
  }
}

export const ambiguousCommandVariableRule: LintRule = {
  name: 'ambiguous_command_variable',
  tier: 'lint',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    for (const found of ambiguities(context)) {
      const range = valueSpanRange(context.lineIndex, found.attribute, found.at.start, found.at.end);
      yield { rule: 'ambiguous_command_variable', severity: 'warning', message: found.message, nodeId: found.node.id, ...(range ? { range } : {}) };
    }
  },
};
