import type { Graph } from '../model/graph';
import type { ShellReference } from './shell-references';

/**
 * Which `$name` in a tool_command is a pipeline variable and which is the shell's own. Only names
 * fixed before the run starts are pipeline variables: `$goal`, launch parameters, the engine's
 * keys, the keys some node declares in `outputs`, and any key through the explicit
 * `${context.key}` form. A key that a model (context_updates), a tool (parse_json) or a human sets
 * at run time never turns an author's `$f` into a pipeline variable (specs/EXTENSIONS.md).
 */
const engineKeys: readonly string[] = [
  'goal',
  'graph.goal',
  'run_id',
  'iteration',
  'loop_count',
  'current_node',
  'last_stage',
  'last_response',
  'outcome',
  'preferred_label',
  'tool.output',
  'tool.last_line',
  'human.gate.selected',
  'human.gate.label',
  'human.gate.answer',
  'human.gate.timed_out',
  'human.gate.attachments',
  'parallel.success_count',
  'parallel.fail_count',
  'parallel.ignored',
  'parallel.fan_in.best_id',
  'parallel.fan_in.best_outcome',
  'parallel.fan_in.method',
  'stack.child.status',
  'stack.child.outcome',
  'stack.child.failure_reason',
  'stack.child.active_node',
  'stack.child.last_node',
  'stack.child.last_status',
  'stack.child.completed_count',
  'stack.child.retry_count',
  'stack.manager.cycles',
  'stack.manager.steers',
  'manager.cycles',
  'manager.cycles_completed',
  'manager.last_child_status',
  'manager.steering',
];

const CONTEXT_PREFIX = 'context.';

/** The names a graph's tool commands may use as pipeline variables, given the run's parameters. */
export function commandVariableNames(graph: Graph, paramNames: Iterable<string> = []): ReadonlySet<string> {
  const names = new Set([...engineKeys, ...paramNames]);
  for (const name of graph.attributes.keys()) names.add(`graph.${name}`);
  for (const node of graph.nodes.values()) {
    const outputs = node.attributes.get('outputs')?.value;
    if (outputs) for (const key of outputs.split(',')) if (key.trim()) names.add(key.trim());
  }
  return names;
}

export interface ResolvedVariable {
  /** The context key (`goal` for the graph goal). */
  readonly key: string;
  /** Where the reference ends in the command: a bare `$tool.output.txt` ends after `output`. */
  readonly end: number;
}

/**
 * The pipeline variable `reference` names, or undefined when it is the shell's. A bare dotted
 * reference takes its longest known prefix (`$tool.output.txt` is `tool.output` then `.txt`).
 */
export function resolveCommandVariable(reference: ShellReference, names: ReadonlySet<string>): ResolvedVariable | undefined {
  if (reference.name.startsWith(CONTEXT_PREFIX) && reference.name.length > CONTEXT_PREFIX.length) {
    return { key: reference.name.slice(CONTEXT_PREFIX.length), end: reference.end };
  }
  if (reference.braced) return names.has(reference.name) ? { key: reference.name, end: reference.end } : undefined;
  const segments = reference.name.split('.');
  for (let count = segments.length; count > 0; count -= 1) {
    const name = segments.slice(0, count).join('.');
    if (names.has(name)) return { key: name, end: reference.start + 1 + name.length };
  }
  return undefined;
}
