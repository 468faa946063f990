import type { DurationUnit } from './duration';
import { shapes, handlerTypes } from './handler-types';
import { retryPresets } from './retry-presets';
import { questionTypes } from './question-types';

export type AttributeScope = 'graph' | 'node' | 'edge';

interface EnumValue {
  readonly value: string;
  readonly doc: string;
}

export type ValueType =
  | { readonly kind: 'string' }
  | { readonly kind: 'text' } // prompt-like: `$goal`, `$param`, `${key}` expand inside
  | { readonly kind: 'command' } // a shell command; pipeline variables reach it as environment variables
  | { readonly kind: 'integer'; readonly min?: number }
  | { readonly kind: 'number'; readonly min?: number; readonly max?: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'duration'; readonly bareUnit: DurationUnit }
  | { readonly kind: 'enum'; readonly values: readonly EnumValue[]; readonly open?: boolean }
  | { readonly kind: 'condition' }
  | { readonly kind: 'stylesheet' }
  | { readonly kind: 'node-ref' }
  | { readonly kind: 'node-ref-list' }
  | { readonly kind: 'path' }
  | { readonly kind: 'schema' } // inline JSON object or a path to one
  | { readonly kind: 'env' } // KEY=VALUE pairs (comma or newline separated) or a JSON object
  | { readonly kind: 'key-list' } // comma-separated context keys
  | { readonly kind: 'path-list' } // comma-separated paths
  | { readonly kind: 'graphviz' }; // rendering attribute, passed to Graphviz untouched

export interface AttributeSpec {
  readonly name: string;
  readonly scopes: readonly AttributeScope[];
  readonly type: ValueType;
  readonly default?: string;
  readonly doc: string;
  /** Where the behaviour is specified: `canonical §N` or `EXTENSIONS <entry>` or `ours`. */
  readonly reference: string;
  /** For a legacy spelling: the attribute it stands for. */
  readonly aliasOf?: string;
  /** Node attributes that only mean something to some handlers. */
  readonly handlers?: readonly string[];
}

const fidelityModes: readonly EnumValue[] = [
  { value: 'full', doc: 'Replay the thread transcript (same thread_id) into the next session.' },
  { value: 'truncate', doc: 'Only the graph goal and run id.' },
  { value: 'compact', doc: 'A structured summary of completed stages and key context (the default).' },
  { value: 'summary:low', doc: 'A brief summary, about 600 tokens.' },
  { value: 'summary:medium', doc: 'A moderate summary, about 1,500 tokens.' },
  { value: 'summary:high', doc: 'A detailed summary, about 3,000 tokens.' },
];

const effort: readonly EnumValue[] = [
  { value: 'low', doc: 'Least reasoning.' },
  { value: 'medium', doc: 'Moderate reasoning.' },
  { value: 'high', doc: 'Most reasoning (the default).' },
];

const providers: readonly EnumValue[] = [
  { value: 'openai', doc: 'OpenAI (OPENAI_API_KEY, optional OPENAI_BASE_URL).' },
  { value: 'anthropic', doc: 'Anthropic (ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL).' },
  { value: 'gemini', doc: 'Google Gemini (GEMINI_API_KEY or GOOGLE_API_KEY, optional GEMINI_BASE_URL).' },
];

const sandboxModes: readonly EnumValue[] = [
  { value: 'auto', doc: "Where bubblewrap runs: the agent's shell as in workspace, tool nodes and hooks as in workspace-network. Where it does not: unconfined, with one warning per run (the default)." },
  { value: 'off', doc: 'Unconfined: commands run with every right the user has.' },
  { value: 'workspace', doc: 'Writes only its working directory, its stage directory and a private /tmp; no network; secrets under $HOME hidden; sees no other process.' },
  { value: 'workspace-network', doc: 'As workspace, with the network, and the package caches (~/.npm, ~/.cache, …) writable.' },
];

const codergen = ['codergen'];
const tool = ['tool'];
const human = ['wait.human'];
const parallel = ['parallel'];
const manager = ['stack.manager_loop'];

const attractorAttributes: readonly AttributeSpec[] = [
  // Graph (canonical 2.5, Appendix A)
  { name: 'goal', scopes: ['graph'], type: { kind: 'text' }, default: '', doc: 'The pipeline goal. `$goal` in prompts and commands expands to it; mirrored into the context as `graph.goal`.', reference: 'canonical §2.5' },
  { name: 'label', scopes: ['graph', 'node', 'edge'], type: { kind: 'string' }, doc: 'Display name. On a node, the prompt when `prompt` is empty; on an edge, the routing key for preferred_label and the human gate choice (`[K] Label` sets an accelerator key).', reference: 'canonical §2.5–2.7' },
  { name: 'model_stylesheet', scopes: ['graph'], type: { kind: 'stylesheet' }, default: '', doc: 'CSS-like rules that set llm_model, llm_provider and reasoning_effort by `*`, shape, `.class` or `#id`.', reference: 'canonical §8' },
  { name: 'default_max_retries', scopes: ['graph'], type: { kind: 'integer', min: 0 }, default: '0', doc: 'Retries for nodes that omit max_retries.', reference: 'canonical §2.5; EXTENSIONS default_max_retries inheritance' },
  { name: 'default_max_retry', scopes: ['graph'], type: { kind: 'integer', min: 0 }, default: '0', doc: 'Legacy spelling of default_max_retries.', reference: 'EXTENSIONS default_max_retries alias', aliasOf: 'default_max_retries' },
  { name: 'retry_target', scopes: ['graph', 'node'], type: { kind: 'node-ref' }, default: '', doc: 'Node to jump to when this node fails after its retries (node), or when exit is reached with an unsatisfied goal gate (graph).', reference: 'canonical §3.4, §3.7' },
  { name: 'fallback_retry_target', scopes: ['graph', 'node'], type: { kind: 'node-ref' }, default: '', doc: 'Second choice when retry_target is missing.', reference: 'canonical §3.4, §3.7' },
  { name: 'default_fidelity', scopes: ['graph'], type: { kind: 'enum', values: fidelityModes }, default: '', doc: 'Context fidelity for nodes and edges that do not set one (runtime default: compact).', reference: 'canonical §5.4' },
  { name: 'max_pipeline_duration', scopes: ['graph'], type: { kind: 'duration', bareUnit: 'ms' }, doc: 'Wall-clock budget for the whole run; the running node is stopped when it runs out and the run fails. A bare number is milliseconds.', reference: 'EXTENSIONS max_pipeline_duration' },
  { name: 'max_steps', scopes: ['graph'], type: { kind: 'integer', min: 1 }, default: '1000', doc: 'Most node executions in one run before it fails with max_steps_exceeded.', reference: 'EXTENSIONS max_steps' },
  { name: 'snapshot_max_files', scopes: ['graph'], type: { kind: 'integer', min: 0 }, default: '20000', doc: 'Most files the per-visit workspace snapshots hold. A workspace over it is not snapshotted; a node that takes the snapshots past it is warned about and what it added is left out of every later snapshot (time travel leaves it as it is).', reference: 'EXTENSIONS WS1' },
  { name: 'snapshot_max_bytes', scopes: ['graph'], type: { kind: 'integer', min: 0 }, default: '209715200', doc: 'Most bytes the per-visit workspace snapshots hold (default 200 MiB), counted as snapshot_max_files is.', reference: 'EXTENSIONS WS1' },
  { name: 'stack.child_dotfile', scopes: ['graph', 'node'], type: { kind: 'path' }, doc: 'The child pipeline a manager loop runs once per cycle; without it, the in-graph child that starts at the manager\'s first outgoing edge.', reference: 'canonical §4.11', handlers: manager },
  { name: 'stack.child_workdir', scopes: ['graph', 'node'], type: { kind: 'path' }, doc: 'Working directory of the supervised child run (default: the run cwd).', reference: 'canonical Appendix A', handlers: manager },
  { name: 'tool_hooks.pre', scopes: ['graph', 'node'], type: { kind: 'command' }, doc: 'Shell command run before each agent tool call; a non-zero exit skips the call.', reference: 'canonical §9.7' },
  { name: 'sandbox', scopes: ['graph', 'node'], type: { kind: 'enum', values: sandboxModes }, default: 'auto', doc: "How this node's commands run (tool_command, the agent's shell, tool hooks), through bubblewrap. A mode named here that bwrap cannot give refuses the launch. `--sandbox MODE` sets the least confinement: a pipeline may ask for more, never less.", reference: 'EXTENSIONS sandbox', handlers: [...tool, ...codergen] },
  { name: 'sandbox_writable', scopes: ['graph', 'node'], type: { kind: 'path-list' }, doc: 'More paths a confined command may write, comma-separated: `~/` is $HOME, relative paths start at the working directory, a missing directory is created. Graph and node lists add up. Ignored when the run was started with `--sandbox workspace` or `workspace-network`.', reference: 'EXTENSIONS sandbox', handlers: [...tool, ...codergen] },
  { name: 'tool_hooks.post', scopes: ['graph', 'node'], type: { kind: 'command' }, doc: 'Shell command run after each agent tool call, for logging and audit.', reference: 'canonical §9.7' },

  // Node (canonical 2.6, Appendix A)
  { name: 'shape', scopes: ['node'], type: { kind: 'enum', values: shapes.map((s) => ({ value: s.shape, doc: s.doc })), open: true }, default: 'box', doc: 'The Graphviz shape, which picks the handler.', reference: 'canonical §2.8' },
  { name: 'type', scopes: ['node'], type: { kind: 'enum', values: handlerTypes.map((t) => ({ value: t, doc: `The ${t} handler.` })), open: true }, default: '', doc: 'Explicit handler type; overrides the shape. Custom handlers register by type.', reference: 'canonical §4.2' },
  { name: 'node_type', scopes: ['node'], type: { kind: 'enum', values: handlerTypes.map((t) => ({ value: t, doc: `The ${t} handler.` })), open: true }, doc: 'Internal spelling of `type`.', reference: 'EXTENSIONS type/node_type', aliasOf: 'type' },
  { name: 'prompt', scopes: ['node'], type: { kind: 'text' }, default: '', doc: 'The instruction for an LLM node (on a fan-in: the ranking question; on a manager loop: a description, as in the reference). `$goal`, `$param`, `${key}` and `$iteration` expand.', reference: 'canonical §2.6, §4.5', handlers: [...codergen, 'parallel.fan_in', ...manager] },
  { name: 'max_retries', scopes: ['node'], type: { kind: 'integer', min: 0 }, doc: 'Additional attempts after the first for RETRY outcomes, transient errors and must_write violations (a plain FAIL is never retried). Inherits default_max_retries.', reference: 'canonical §3.5; EXTENSIONS retry ladder' },
  { name: 'retry_policy', scopes: ['node'], type: { kind: 'enum', values: Object.entries(retryPresets).map(([value, preset]) => ({ value, doc: preset.doc })) }, default: 'standard', doc: "A preset retry policy: its backoff between attempts, and its attempts unless max_retries says otherwise (without one, the node's retries are max_retries or default_max_retries).", reference: 'canonical §3.6; EXTENSIONS retry_policy' },
  { name: 'goal_gate', scopes: ['node'], type: { kind: 'boolean' }, default: 'false', doc: 'The run may only exit once this node has an explicit SUCCESS or PARTIAL_SUCCESS verdict (prose does not count).', reference: 'canonical §3.4; EXTENSIONS fail-closed goal gates' },
  { name: 'fidelity', scopes: ['node', 'edge'], type: { kind: 'enum', values: fidelityModes }, doc: 'How much run history the LLM session receives. On an edge, overrides the target node.', reference: 'canonical §5.4', handlers: codergen },
  { name: 'default_thread_id', scopes: ['graph'], type: { kind: 'string' }, doc: 'Thread for `full`-fidelity nodes that name none (node and edge `thread_id` win).', reference: 'reference ledger (canonical §5.4 "graph-level default thread")', handlers: codergen },
  { name: 'thread_id', scopes: ['graph', 'node', 'edge'], type: { kind: 'string' }, doc: 'Transcript key for `full` fidelity: nodes with the same thread share one replayed history.', reference: 'canonical §5.4', handlers: codergen },
  { name: 'class', scopes: ['node'], type: { kind: 'string' }, default: '', doc: 'Comma-separated classes for model_stylesheet `.class` selectors.', reference: 'canonical §2.12' },
  { name: 'timeout', scopes: ['node'], type: { kind: 'duration', bareUnit: 's' }, doc: 'Longest the node may run; a bare number is seconds. On expiry the node fails (or is PARTIAL_SUCCESS with allow_partial).', reference: 'canonical §2.6; EXTENSIONS allow_partial on timeout' },
  { name: 'llm_model', scopes: ['graph', 'node'], type: { kind: 'string' }, doc: 'Model id for this LLM node; also settable by model_stylesheet.', reference: 'canonical §8.5', handlers: codergen },
  { name: 'llm_provider', scopes: ['graph', 'node'], type: { kind: 'enum', values: providers, open: true }, doc: 'Provider for this LLM node; inferred from the model when unset.', reference: 'canonical §8.5', handlers: codergen },
  { name: 'reasoning_effort', scopes: ['graph', 'node'], type: { kind: 'enum', values: effort }, default: 'high', doc: 'Reasoning depth for models that support it.', reference: 'canonical §8.4', handlers: codergen },
  { name: 'auto_status', scopes: ['node'], type: { kind: 'boolean' }, default: 'false', doc: 'A handler that writes no status is a SUCCESS ("auto-status: handler completed without writing status"): a SKIPPED result, or an LLM node that answered nothing. must_write still applies.', reference: 'canonical §2.6, Appendix C; EXTENSIONS R6 auto_status' },
  { name: 'allow_partial', scopes: ['node'], type: { kind: 'boolean' }, default: 'false', doc: 'On retry exhaustion or timeout, continue as PARTIAL_SUCCESS instead of failing.', reference: 'canonical §3.5; EXTENSIONS allow_partial' },
  { name: 'tool_command', scopes: ['node'], type: { kind: 'command' }, doc: 'The shell command of a tool node. Exit 0 is SUCCESS, non-zero FAIL; stdout lands in tool.output and its last line in tool.last_line. Pipeline variables (`$goal`, params, engine keys, declared `outputs`, `${context.key}`) reach it as environment variables, never as shell text; any other `$name` is the shell\'s.', reference: 'canonical §4.10; EXTENSIONS tool.last_line', handlers: tool },
  { name: 'parse_json', scopes: ['node'], type: { kind: 'boolean' }, default: 'false', doc: 'Parse stdout as a JSON object and merge its keys into the context.', reference: 'EXTENSIONS parse_json', handlers: tool },
  { name: 'tool_env', scopes: ['node'], type: { kind: 'env' }, doc: 'Extra environment for the command, entries separated by commas or newlines: a context key (exported under its upper-case name, `report_path` → `REPORT_PATH`), or `KEY=VALUE`; or a JSON object.', reference: 'EXTENSIONS tool_env', handlers: tool },
  { name: 'must_write', scopes: ['node'], type: { kind: 'path' }, doc: 'A file the node must leave behind: existing, modified after the node started, not blank. Relative to the run cwd.', reference: 'EXTENSIONS must_write' },
  { name: 'requires', scopes: ['node'], type: { kind: 'key-list' }, doc: 'Context keys that must be present; otherwise the node is SKIPPED.', reference: 'EXTENSIONS requires/outputs' },
  { name: 'outputs', scopes: ['node'], type: { kind: 'key-list' }, doc: 'Context keys the node promises to set; a missing one is a contract violation event.', reference: 'EXTENSIONS requires/outputs' },
  { name: 'runs_on', scopes: ['node'], type: { kind: 'enum', values: [{ value: 'success', doc: 'Only after a success (the default).' }, { value: 'failure', doc: 'Also reachable over a plain edge from a FAIL.' }, { value: 'always', doc: 'Reachable over a plain edge whatever the predecessor did.' }] }, default: 'success', doc: 'Whether a FAIL upstream may flow into this node over an unconditional edge (fail-fast otherwise).', reference: 'EXTENSIONS fail-fast with runs_on' },
  { name: 'continue_on_fail', scopes: ['node'], type: { kind: 'boolean' }, default: 'false', doc: 'Treat this node\'s FAIL as PARTIAL_SUCCESS for routing (never overrides must_write).', reference: 'EXTENSIONS continue_on_fail' },
  { name: 'feedback_from', scopes: ['node'], type: { kind: 'node-ref' }, doc: 'A critic node whose output is carried into this node\'s prompt on every loop_restart ($prior_critiques_<id>, 5 × 500 chars).', reference: 'EXTENSIONS feedback_from', handlers: codergen },
  { name: 'response_schema', scopes: ['node'], type: { kind: 'schema' }, doc: 'JSON Schema for structured output: inline JSON, or a file beside the .dot.', reference: 'EXTENSIONS response_schema', handlers: codergen },
  { name: 'dot_file', scopes: ['node'], type: { kind: 'path' }, doc: 'The child pipeline of a folder node, resolved beside this .dot file.', reference: 'EXTENSIONS shape=folder / dot_file', handlers: ['pipeline'] },
  { name: 'join_policy', scopes: ['node'], type: { kind: 'enum', values: [{ value: 'wait_all', doc: 'Wait for every branch; any failure makes the join PARTIAL_SUCCESS.' }, { value: 'first_success', doc: 'Done as soon as one branch succeeds; the rest are cancelled.' }, { value: 'k_of_n', doc: 'Done when k branches succeed.' }, { value: 'quorum', doc: 'Done when more than the quorum fraction of branches succeed.' }] }, default: 'wait_all', doc: 'When a fan-out is satisfied.', reference: 'canonical §4.8; EXTENSIONS join policies', handlers: parallel },
  { name: 'max_parallel', scopes: ['node'], type: { kind: 'integer', min: 1 }, default: '4', doc: 'Most branches running at once.', reference: 'canonical §4.8', handlers: parallel },
  { name: 'k', scopes: ['node'], type: { kind: 'integer', min: 1 }, doc: 'Successful branches needed by join_policy=k_of_n.', reference: 'EXTENSIONS join policies', handlers: parallel },
  { name: 'quorum', scopes: ['node'], type: { kind: 'number', min: 0, max: 1 }, default: '0.5', doc: 'Fraction of branches that must succeed (strictly more than it) for join_policy=quorum.', reference: 'EXTENSIONS join policies', handlers: parallel },
  { name: 'error_policy', scopes: ['node'], type: { kind: 'enum', values: [{ value: 'continue', doc: 'Failed branches count as failures; the others run on (the default).' }, { value: 'fail_fast', doc: 'The first failed branch cancels the rest and fails the fan-out.' }, { value: 'ignore', doc: 'Failed branches are left out of the join.' }] }, default: 'continue', doc: 'How branch failures affect the join.', reference: 'EXTENSIONS join policies', handlers: parallel },
  { name: 'human.default_choice', scopes: ['node'], type: { kind: 'string' }, doc: 'The choice (target id, key or label) taken when the gate times out.', reference: 'canonical §4.6, §6.5', handlers: human },
  { name: 'human.question_type', scopes: ['node'], type: { kind: 'enum', values: questionTypes }, default: 'multiple_choice', doc: "The gate's question type (canonical §6.2): multiple_choice, yes_no or confirmation; `human.freeform` adds a free-text answer to any.", reference: 'canonical §6.2; EXTENSIONS R6 question types', handlers: human },
  { name: 'human.freeform', scopes: ['node'], type: { kind: 'boolean' }, default: 'false', doc: 'Also accept a free-text answer, stored in human.gate.answer.', reference: 'EXTENSIONS freeform human gates', handlers: human },
  { name: 'manager.poll_interval', scopes: ['node'], type: { kind: 'duration', bareUnit: 's' }, default: '0s', doc: 'Wait between two sprints of the child (with the `wait` action); a bare number is seconds.', reference: 'canonical §4.11; reference default 0s', handlers: manager },
  { name: 'manager.max_cycles', scopes: ['node'], type: { kind: 'integer', min: 1 }, default: '1000', doc: 'Most sprints (child runs) before the manager fails.', reference: 'canonical §4.11', handlers: manager },
  { name: 'manager.stop_condition', scopes: ['node'], type: { kind: 'condition' }, doc: 'Condition over the last sprint\'s outcome and the context (`manager.*`, `stack.child.*`) that ends supervision with the sprint\'s status; without one, a successful sprint ends it.', reference: 'canonical §4.11', handlers: manager },
  { name: 'manager.actions', scopes: ['node'], type: { kind: 'string' }, default: 'observe,wait', doc: 'Comma-separated cycle actions: observe, steer (the next sprint gets `manager.steering`), wait (poll_interval between sprints).', reference: 'canonical §4.11', handlers: manager },
  { name: 'stack.child_autostart', scopes: ['node'], type: { kind: 'boolean' }, default: 'true', doc: 'Run the child; false: the loop only evaluates its stop condition over the context.', reference: 'canonical §4.11', handlers: manager },

  // Edge (canonical 2.7)
  { name: 'condition', scopes: ['edge'], type: { kind: 'condition' }, default: '', doc: 'Guard: `key=value` / `key!=value` clauses joined by `&&` over outcome, preferred_label and context.*.', reference: 'canonical §10' },
  { name: 'weight', scopes: ['edge'], type: { kind: 'integer' }, default: '0', doc: 'Priority among eligible edges; higher wins, ties break on target id.', reference: 'canonical §3.3' },
  { name: 'loop_restart', scopes: ['edge'], type: { kind: 'boolean' }, default: 'false', doc: 'Start a new iteration: $iteration increments, completed nodes reset, context is kept, feedback_from channels are fed.', reference: 'canonical §2.7; EXTENSIONS per-iteration records' },
];

/**
 * Graphviz rendering attributes and the elements Graphviz uses each on ("Used By" in its attribute
 * reference): G graph (and subgraphs, clusters), N node, E edge. A node offered `arrowhead` or an
 * edge `rankdir` would be offered something Graphviz ignores there.
 */
const graphvizAttributeUse: Readonly<Record<string, string>> = {
  arrowhead: 'E', arrowsize: 'E', arrowtail: 'E', bgcolor: 'G', center: 'G', color: 'ENG', colorscheme: 'ENG',
  comment: 'ENG', compound: 'G', concentrate: 'G', constraint: 'E', decorate: 'E', dir: 'E', dpi: 'G',
  fillcolor: 'NEG', fixedsize: 'N', fontcolor: 'ENG', fontname: 'ENG', fontpath: 'G', fontsize: 'ENG',
  forcelabels: 'G', gradientangle: 'NG', group: 'N', headclip: 'E', headlabel: 'E', headport: 'E', height: 'N',
  href: 'GNE', id: 'GNE', image: 'N', imagescale: 'N', labelangle: 'E', labeldistance: 'E', labelfloat: 'E',
  labelfontcolor: 'E', labelfontname: 'E', labelfontsize: 'E', labeljust: 'G', labelloc: 'NG', landscape: 'G',
  layout: 'G', lhead: 'E', ltail: 'E', margin: 'NG', minlen: 'E', mode: 'G', newrank: 'G', nodesep: 'G',
  nojustify: 'GNE', ordering: 'GN', orientation: 'NG', outputorder: 'G', pad: 'G', penwidth: 'GNE',
  peripheries: 'NG', rank: 'G', rankdir: 'G', ranksep: 'G', ratio: 'G', regular: 'N', rotate: 'G', samehead: 'E',
  sametail: 'E', searchsize: 'G', sides: 'N', size: 'G', skew: 'N', splines: 'G', style: 'ENG', stylesheet: 'G',
  tailclip: 'E', taillabel: 'E', tailport: 'E', target: 'ENG', tooltip: 'NEG', URL: 'ENG', width: 'N', xlabel: 'EN',
  xlp: 'NE',
};

const scopeLetters: Readonly<Record<string, AttributeScope>> = { G: 'graph', N: 'node', E: 'edge' };

const graphvizAttributes: readonly AttributeSpec[] = Object.entries(graphvizAttributeUse).map(([name, use]) => ({
  name,
  scopes: [...use].map((letter) => scopeLetters[letter] as AttributeScope),
  type: { kind: 'graphviz' },
  doc: `Graphviz rendering attribute \`${name}\`; no effect on execution.`,
  reference: 'Graphviz',
}));

/** Every attribute the engine knows, Attractor's first. The single source for validation, completion, hover and docs. */
export const attributeTable: readonly AttributeSpec[] = [...attractorAttributes, ...graphvizAttributes];

const byName = new Map(attributeTable.map((spec) => [spec.name, spec]));

export function attributeSpec(name: string): AttributeSpec | undefined {
  return byName.get(name);
}

export function attributesFor(scope: AttributeScope): AttributeSpec[] {
  return attributeTable.filter((spec) => spec.scopes.includes(scope));
}
