import type { SpanDiagnostic } from '../../model/diagnostics';
import type { Attribute, GraphNode } from '../../model/graph';
import { commandVariableNames } from '../../transform/command-variables';
import { replaceInValueEdit } from '../fixes';
import { analyze } from '../graph-analysis';
import type { LintRule, RuleContext } from '../rule';
import { valueSpanRange } from '../value-location';

// After `$$` bash sees one `$`: these make it the start of something bash expands.
const EXPANDS_AFTER = /[A-Za-z0-9_({[\]'"?!#*@$-]/;
const NAME_AFTER = /^\{([A-Za-z_][A-Za-z0-9_.]*)\}|^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)/;

const commandKeys = ['tool_command'];
const shownKeys = ['prompt', 'label'];
const promptKeys = ['prompt'];

interface Escape {
  readonly start: number;
  /** The pipeline variable written right after it (`$${goal}`, `$$goal`). */
  readonly variable?: { readonly name: string; readonly end: number };
  /** Nothing bash expands follows: it receives a lone `$`. */
  readonly lone: boolean;
}

/** Each `$$` of a value, paired left to right as the engine reads them. */
function escapesIn(value: string, isVariable: (name: string) => boolean): Escape[] {
  const found: Escape[] = [];
  for (let i = value.indexOf('$$'); i >= 0; i = value.indexOf('$$', i)) {
    // `$$$$`: bash receives `$$`, its process id, as the author meant.
    if (value.startsWith('$$$$', i)) {
      i += 4;
      continue;
    }
    const after = i + 2;
    const match = NAME_AFTER.exec(value.slice(after));
    const name = match ? ((match[1] ?? match[2]) as string) : undefined;
    const known = name === undefined ? undefined : [name, ...prefixesOf(name)].find(isVariable);
    const end = known === undefined || !match ? after : after + (match[1] !== undefined ? match[0].length : known.length);
    found.push({ start: i, ...(known !== undefined ? { variable: { name: known, end } } : {}), lone: !EXPANDS_AFTER.test(value[after] ?? '') });
    i = after;
  }
  return found;
}

/** `a.b.c` → `a.b`, `a`: a bare dotted reference stands for its longest known prefix. */
function prefixesOf(name: string): string[] {
  const segments = name.split('.');
  return segments.slice(1).map((_, index) => segments.slice(0, segments.length - 1 - index).join('.'));
}

function diagnostic(context: RuleContext, node: GraphNode, attribute: Attribute, key: string, escape: Escape): SpanDiagnostic | undefined {
  const where = `\`${node.id}\` ${key}`;
  if (escape.variable) {
    const written = attribute.value.slice(escape.start, escape.variable.end);
    const range = valueSpanRange(context.lineIndex, attribute, escape.start, escape.variable.end);
    const target = key === 'tool_command' ? 'bash receives' : 'the text keeps';
    const message = `${where}: \`${written}\` — \`$$\` is a literal \`$\`, so ${target} \`${written.slice(1)}\` and not the value of ${escape.variable.name}; the reference engine would put the value after the \`$\`. Write \`$$\${${escape.variable.name}}\` for a \`$\` then the value, or \`\${${escape.variable.name}}\` for the value alone.`;
    return { rule: 'dollar_escape', severity: 'warning', message, nodeId: node.id, ...(range ? { range } : {}) };
  }
  if (!escape.lone || key !== 'tool_command') return undefined;
  const range = valueSpanRange(context.lineIndex, attribute, escape.start, escape.start + 2);
  const edit = replaceInValueEdit(context.lineIndex, attribute, escape.start, escape.start + 2, '$$$$');
  const message = `${where}: \`$$\` is a literal \`$\` (the reference's escape), so bash receives a lone \`$\` here, not its process id. Write \`$$$$\` for the shell's \`$$\`, or \`$\` for a dollar sign.`;
  return {
    rule: 'dollar_escape',
    severity: 'warning',
    message,
    nodeId: node.id,
    ...(range ? { range } : {}),
    ...(edit ? { fix: { title: 'Write `$$$$` (the shell\'s process id)', edits: [edit] } } : {}),
  };
}

/**
 * `$$` forms whose meaning differs from what they look like: a lone `$` reaching bash where the
 * shell's `$$` (its process id) was likely meant, and `$$` before a pipeline variable, which the
 * reference engine would substitute after the `$` (specs/EXTENSIONS.md §S3).
 */
export const dollarEscapeRule: LintRule = {
  name: 'dollar_escape',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { handlerOf } = analyze(context);
    const names = commandVariableNames(context.graph);
    const isVariable = (name: string) => names.has(name) || name.startsWith('context.');
    for (const node of context.graph.nodes.values()) {
      const handler = handlerOf(node);
      // Where the engine expands: commands, and the text an LLM node or a gate shows (prompt, else label).
      const keys = handler === 'tool' ? commandKeys : handler === 'codergen' || handler === 'wait.human' ? shownKeys : promptKeys;
      for (const key of keys) {
        const attribute = node.attributes.get(key);
        if (!attribute?.value.includes('$$')) continue;
        for (const escape of escapesIn(attribute.value, isVariable)) {
          const found = diagnostic(context, node, attribute, key, escape);
          if (found) yield found;
        }
      }
    }
  },
};
