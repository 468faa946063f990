import type { Severity } from '../model/diagnostics';

/** What docs/rules.md says about a rule; generated into the docs, and available to editors (hover, code descriptions). */
export interface RuleDoc {
  readonly severity: Severity;
  readonly code?: string;
  /** Where the rule comes from: the canonical spec, the reference ledger, or ours. */
  readonly source: string;
  readonly catches: string;
  readonly fix: string;
  /** An offending snippet and its repair, in DOT. */
  readonly example?: { readonly bad: string; readonly good: string };
}

export const ruleDocs: Readonly<Record<string, RuleDoc>> = {
  start_node: {
    severity: 'error',
    source: 'canonical §7.2',
    catches: 'A pipeline with no start node, or more than one. The start node is the one with `shape=Mdiamond` or `type="start"` (or, with neither shape nor type, the id `start`/`Start`).',
    fix: 'Keep exactly one `start [shape=Mdiamond]` and point it at the first step.',
  },
  terminal_node: {
    severity: 'error',
    source: 'canonical §7.2',
    catches: 'A pipeline with no exit node, or more than one (`shape=Msquare` or `type="exit"`, or the id `exit`/`end` with neither shape nor type).',
    fix: 'Keep exactly one `done [shape=Msquare]`; route every way of finishing into it.',
  },
  reachability: {
    severity: 'error',
    source: 'canonical §7.2',
    catches: 'A node no path from the start node reaches: it can never run.',
    fix: 'Add an edge into it from the step that should precede it, or delete it.',
  },
  edge_target_exists: {
    severity: 'warning',
    source: 'canonical §7.2 (an error there; a warning here, as DOT and the reference admit the node)',
    catches: 'An edge to an id that no node statement declares, once per such node. DOT and the reference create it implicitly, as an LLM node whose prompt is its id; often it is a typo. The start and exit recognised by their ids need no statement.',
    fix: 'Declare the node (the quick fix writes `id [prompt="id"]`, exactly how it runs, for you to complete), or, for a near-miss of a declared id, correct it (the quick fix offers the closest).',
    example: { bad: 'work -> tset', good: 'work -> test' },
  },
  start_no_incoming: {
    severity: 'error',
    source: 'canonical §7.2',
    catches: 'An edge into the start node.',
    fix: 'Point the edge at the first real step instead; use `loop_restart=true` to start a new iteration.',
  },
  exit_no_outgoing: {
    severity: 'error',
    source: 'canonical §7.2',
    catches: 'An edge out of the exit node: reaching the exit ends the run, so it never runs.',
    fix: 'Remove the edge.',
  },
  condition_syntax: {
    severity: 'error',
    source: 'canonical §7.2, §10',
    catches: 'An edge `condition` (or `manager.stop_condition`) outside the grammar `key=value` / `key!=value` joined by `&&`: `==`, `||`, `>`, a missing value... The range is the offending character.',
    fix: 'Write clauses as `outcome=success`, `context.tool.last_line=gate_pass`; use two edges instead of `||`.',
    example: { bad: 'a -> b [condition="outcome==success"]', good: 'a -> b [condition="outcome=success"]' },
  },
  stylesheet_syntax: {
    severity: 'error',
    source: 'canonical §7.2, §8',
    catches: 'A `model_stylesheet` that does not parse: a bad selector, a missing brace, an unknown property. The range points inside the stylesheet.',
    fix: 'Rules are `* | shape | .class | #id { llm_model: ...; llm_provider: ...; reasoning_effort: ...; }`.',
  },
  type_known: {
    severity: 'warning',
    source: 'canonical §7.2',
    catches: 'A `type` (or `node_type`) no built-in or registered custom handler serves.',
    fix: 'Correct the spelling (the quick fix offers the closest type) or register the custom handler.',
  },
  fidelity_valid: {
    severity: 'warning',
    source: 'canonical §7.2',
    catches: '`fidelity` (node or edge) or `default_fidelity` outside full, truncate, compact, summary:low, summary:medium, summary:high.',
    fix: 'Use one of the six modes; the quick fix offers the closest.',
  },
  retry_target_exists: {
    severity: 'warning',
    source: 'canonical §7.2',
    catches: '`retry_target` or `fallback_retry_target` (node or graph) naming a node that does not exist.',
    fix: 'Name an existing node; the quick fix offers the closest id.',
  },
  goal_gate_has_retry: {
    severity: 'warning',
    source: 'canonical §7.2',
    catches: 'A `goal_gate=true` node with no retry_target or fallback_retry_target, on the node or the graph: reaching the exit with the gate unsatisfied then fails the run outright. A gate with a `loop_restart=true` edge back into its own loop (the bundle README\'s convergence loop) has its retry path and is exempt.',
    fix: 'Add `retry_target="<the node that does the work>"` to the gate or the graph.',
  },
  prompt_on_llm_nodes: {
    severity: 'warning',
    source: 'canonical §7.2',
    catches: 'A node that runs the LLM handler (a box, or any shape without a handler) with neither `prompt` nor `label`. An implicit node (only edges mention it) is left to `edge_target_exists`.',
    fix: 'Add a prompt saying what the node must do, or give it the shape of the handler you meant.',
  },
  retry_budget_non_negative: {
    severity: 'error',
    source: 'reference ledger (retry budgets are Integers)',
    catches: '`max_retries`, `default_max_retries` or the legacy `default_max_retry` that is negative, a boolean, fractional or not a number: the reference silently truncated or coerced these.',
    fix: 'Write a whole number of extra attempts, 0 or more.',
  },
  tool_command_requires_tool_handler: {
    severity: 'error',
    source: 'reference ledger (stricter than canonical)',
    catches: 'A `tool_command` on a node whose handler is a built-in other than tool (a box, a diamond...): the command would never run. Custom handler types are exempt.',
    fix: 'Make it a tool node (`shape=parallelogram`; the quick fix does this when the node has no prompt) or remove the command.',
  },
  dead_conditional_edge: {
    severity: 'error',
    code: 'TOPO-001',
    source: 'reference ledger TOPO-001',
    catches: 'An edge whose outcome clauses no outcome of its source can satisfy, for every node whose outcomes the engine fixes: a start node or a diamond always succeeds (a failure never reaches a diamond over a plain edge), a tool node ends in success or fail, a human gate in success or fail (RETRY never reaches edge selection). The node\'s own `requires` (skipped), `timeout`/`must_write` (fail) and `allow_partial`/`continue_on_fail` (partial_success) widen the set. LLM, parallel, folder and custom nodes are open and never reported; a value that is no outcome at all (`outcome=sucess`) is `outcome_value`\'s.',
    fix: 'Route on context at the diamond (`context.x=...` and `context.x!=...` make the routing total; the quick fix writes the complement of the one other condition), or move the outcome test onto the edge out of the node that can fail.',
    example: { bad: 'route -> fixup [condition="outcome=fail"]\nroute -> done [condition="context.tests=green"]', good: 'route -> fixup [condition="context.tests!=green"]\nroute -> done [condition="context.tests=green"]' },
  },
  stale_label_collision: {
    severity: 'warning',
    code: 'TOPO-002',
    source: 'reference ledger TOPO-002; bundle README "a failed tool node leaves tool.last_line stale"',
    catches: 'On a tool node, an edge testing `tool.last_line` beside an `outcome=fail` edge: a failed run does not refresh tool.last_line, so on a retry visit both can match on the previous pass\'s evidence.',
    fix: 'Pair the label test with the node\'s own outcome (the quick fix appends `&& outcome=success`).',
    example: { bad: 'gate -> done [condition="context.tool.last_line=ok"]', good: 'gate -> done [condition="context.tool.last_line=ok && outcome=success"]' },
  },
  acyclic_graph: {
    severity: 'warning',
    code: 'TOPO-003',
    source: 'reference ledger TOPO-003',
    catches: 'A pipeline with no cycle at all: nothing can retry or converge. "If your pipeline graph has no cycle, it should probably have been a recipe."',
    fix: 'Add a corrective edge from a gate back to the work, or keep it as a deliberate one-pass pipeline (for example a sub-pipeline whose parent loops).',
  },
  cycle_no_conditional_exit: {
    severity: 'warning',
    code: 'TOPO-004',
    source: 'reference ledger TOPO-004',
    catches: 'A loop (strongly connected component) whose every way out is unconditional, or that has no way out. Edges out of a human gate count as gated.',
    fix: 'Put a condition on the gate\'s exit edge (`condition="context.tool.last_line=gate_pass"`).',
  },
  cycle_no_deterministic_exit: {
    severity: 'warning',
    code: 'TOPO-005',
    source: 'reference ledger TOPO-005',
    catches: 'A loop with no tool, human, sub-pipeline or manager node on it: whether it has converged rests only on an LLM\'s say-so.',
    fix: 'Add a parallelogram gate whose command tests the work, or a hexagon review, to the loop.',
  },
  fail_routed_to_exit: {
    severity: 'warning',
    code: 'TOPO-006',
    source: 'ours (specs/EXTENSIONS.md)',
    catches: 'An edge whose condition admits a failure (`outcome=fail`, `outcome!=success`) straight into the exit node: the failure ends the run as a success unless a goal gate objects. Not from a node that cannot fail (a start node, a diamond): that edge is dead, and TOPO-001 says so.',
    fix: 'Route the failure to a step that recovers or back into the loop; or remove the edge, so the failure fails the run (fail-fast).',
  },
  'CMD-001': {
    severity: 'warning',
    code: 'CMD-001',
    source: 'bundle README, "Why the redirection matters"',
    catches: 'A tool command that pipes the tested command into a filter (tail, head, grep, sed, awk, cut, sort, tee, wc...) without `set -o pipefail`, where that pipeline decides the node\'s exit status: the filter\'s status becomes the verdict, so a failing test looks like success. Only pipelines after which nothing but `fi`/`done`/`esac`/`}` (or another branch of the same `if`) runs count, and every statement under `set -e`; a pipe tested by `if`/`elif`/`while`/`until`, a background job, or a mid-script statement more commands follow decides nothing. Pure producers (`echo`, `cat file`) on the left are fine.',
    fix: 'Redirect to a file and test the command\'s own status (the quick fix turns `| tail -5` into `> <node>_output.txt 2>&1`); where the filter computes something, prefix `set -o pipefail;` (the other quick fix; tool nodes run in bash).',
    example: { bad: 'tool_command="pytest -q | tail -5 && echo gate_pass || echo gate_fail"', good: 'tool_command="pytest -q > test_output.txt 2>&1 && echo gate_pass || echo gate_fail"' },
  },
  'CMD-002': {
    severity: 'warning',
    code: 'CMD-002',
    source: 'ours, after the bundle README\'s CMD-001',
    catches: '`cmd | filter && echo token`: the pass token is printed when the filter succeeds, not when the command does, so a label-routed gate passes a red run.',
    fix: 'The same repair as CMD-001: redirect instead of piping.',
  },
  unknown_attribute: {
    severity: 'warning',
    source: 'ours (attribute table)',
    catches: 'An attribute the table does not know for its element (graph, node or edge), including one that belongs to another element (`timeout` on the graph). Nodes with a custom handler type are exempt.',
    fix: 'Correct the spelling (the quick fix renames the key to the closest known attribute) or move it to the right element.',
    example: { bad: 'work [promt="..."]', good: 'work [prompt="..."]' },
  },
  attribute_value: {
    severity: 'error',
    source: 'ours (attribute table; stricter than canonical, see specs/EXTENSIONS.md)',
    catches: 'A value that does not fit its attribute\'s type: integers (and their minimum), booleans (`true`/`false`, quoted or not), durations (`250ms`, `30s`, `5m`, `1h`), numbers in range, enums (an open enum such as shape or llm_provider only warns; a node with an explicit `type` may draw itself with any Graphviz shape), tool_env entries, requires/outputs key lists, stylesheet property values, and feedback_from naming a node that does not exist.',
    fix: 'Write a value of the documented type; for near misses (`yes` for a boolean, `hihg`, a misspelt node id) the quick fix writes the correction.',
  },
  must_write_placement: {
    severity: 'warning',
    source: 'ours',
    catches: '`must_write` on a node that writes nothing (start, exit, diamond, fan-out, fan-in): the contract can never be met, so the node always fails.',
    fix: 'Put must_write on the node that produces the file (the quick fix removes it here).',
  },
  loop_restart_without_feedback: {
    severity: 'warning',
    source: 'ours, after the reference ledger\'s feedback_from entry',
    catches: 'A `loop_restart=true` loop with no `feedback_from` on any of its nodes: each iteration starts in a fresh context and may re-flip the same coin instead of descending.',
    fix: 'Declare `feedback_from="<critic or gate id>"` on the node that does the work.',
  },
  folder_requires_dot_file: {
    severity: 'error',
    source: 'ours (reference ledger shape=folder / dot_file)',
    catches: 'A `shape=folder` sub-pipeline node without `dot_file`.',
    fix: 'Add `dot_file="child.dot"`, a path resolved beside this file.',
  },
  dot_file_exists: {
    severity: 'error',
    source: 'ours (stricter than the reference, which fails at run time)',
    catches: '`dot_file` or `stack.child_dotfile` naming a file that does not exist beside this .dot (checked when the graph has a file; values with `$` are expanded at run time and skipped).',
    fix: 'Correct the path; it is relative to the directory of this .dot file.',
  },
  outcome_value: {
    severity: 'warning',
    source: 'ours (issue 14: data flow)',
    catches: 'An `outcome=` / `outcome!=` clause out of a node that reports no label (a tool, a gate, a diamond, a folder, a manager, a fan-out or fan-in) whose value is not one of success, partial_success, fail, retry, skipped (compared exactly): `outcome=sucess` never holds, `outcome!=sucess` always does. Out of an LLM node or a custom handler `outcome` is the label it reports when it reports one (`outcome=process`), so any value may hold there and the rule is quiet.',
    fix: 'Correct the value (the quick fix offers the closest outcome).',
    example: { bad: 'gate -> done [condition="outcome=sucess"]', good: 'gate -> done [condition="outcome=success"]' },
  },
  context_key_unwritten: {
    severity: 'warning',
    source: 'ours (issue 14: data flow)',
    catches: 'A condition on a context key that no node upstream of the edge can write: none declares it in `outputs`, none is a parse_json tool, a structured-output node or a custom handler, no upstream handler sets it (a tool\'s `tool.last_line`, a gate\'s `human.gate.*`, a manager\'s `stack.child.*`), and it is neither a key the engine always sets (`iteration`, `graph.goal`...) nor a launch parameter the pipeline uses as `$key`. At run time it is always empty there.',
    fix: 'Correct the key (the quick fix offers the closest key written upstream), declare it in `outputs` on the node that sets it, or pass it with `--param`.',
    example: { bad: 'plan [prompt="...", outputs="plan_ready"]\ncheck -> work [condition="context.plan_redy=true"]', good: 'check -> work [condition="context.plan_ready=true"]' },
  },
  ambiguous_command_variable: {
    severity: 'warning',
    source: 'ours (specs/EXTENSIONS.md, values reach tool commands as environment variables)',
    catches: "A `$name` in a tool_command whose meaning is unclear: a pipeline variable inside `'…'` (bash would print it literally; Attractor substitutes it), in a quoted here-document (stays literal), or in the text of `sh -c`/`eval`/`python -c` (the value becomes that program's code); a pipeline variable where bash takes a variable name (`unset`, `read`, `printf -v`: a subscript in the value runs); a pipeline variable the command also sets as its own shell variable (`for f in …` with an `outputs` key `f`); a name that is no pipeline variable, that the command never sets and that is meant for the context — dotted, or read by an edge condition as `context.name` (a context key written at run time is reached only as `${context.key}`).",
    fix: 'Write `${context.key}` for a context value, rename shell variables that collide with pipeline variables, and hand values to inner programs through `tool_env="key"` (an environment variable) instead of splicing them into the program text.',
    example: { bad: `tool_command="python3 -c 'print(\\"$last_response\\")'"`, good: 'tool_env="last_response", tool_command="python3 -c \'import os; print(os.environ[\\"LAST_RESPONSE\\"])\'"' },
  },
  dollar_escape: {
    severity: 'warning',
    source: 'ours (specs/EXTENSIONS.md §S3: `$$` is a literal `$`, as in the reference)',
    catches: "A `$$` whose meaning differs from what it looks like. `$$` is the escape for a literal `$` wherever values are expanded (tool commands, prompts, gate labels), so `for f in $$(ls)` reaches bash as `$(ls)`; a `$$` that nothing bash expands follows (`tmp.$$`, `echo $$`) gives bash a lone `$`, not its process id; and `$$` right before a pipeline variable (`$${goal}`) keeps the name, where the reference engine would put the value after the `$`.",
    fix: 'For the shell\'s process id write `$$$$` (the quick fix); for a `$` followed by a pipeline value write `$$${key}`; for bash\'s own variable keep `$${name}` and rename it if it clashes with a pipeline variable.',
    example: { bad: 'tool_command="mktemp /tmp/run.$$"', good: 'tool_command="mktemp /tmp/run.$$$$"' },
  },
  question_type_edges: {
    severity: 'error',
    source: 'ours (canonical §6.2 YES_NO)',
    catches: 'A human gate with `human.question_type=yes_no` whose outgoing edges are not exactly one yes edge (its label keyed `Y`: `[Y] Deploy`, `Yes`) and one no edge (keyed `N`): an answer could not pick an edge.',
    fix: 'Label the two edges `[Y] …` and `[N] …`, or ask a multiple_choice question.',
    example: { bad: 'ask [shape=hexagon, "human.question_type"=yes_no]\nask -> deploy [label="Go"]', good: 'ask -> deploy [label="[Y] Yes"]\nask -> wait [label="[N] No"]' },
  },
};

/** Diagnostics that come from the parser, the transforms or the CLI rather than from a rule. */
export const frontEndDocs: Readonly<Record<string, RuleDoc>> = {
  syntax: {
    severity: 'error',
    source: 'parser',
    catches: 'Text that is not DOT. Each broken statement is reported where it broke; the statements read whole are still linted (nothing runs a half-read pipeline).',
    fix: 'Correct the text at the location given; quote values with spaces or symbols, and ids with dots.',
  },
  graph_kind: {
    severity: 'error',
    source: 'parser',
    catches: 'No `digraph`, more than one graph in the file, an undirected `graph`, or a `strict` graph.',
    fix: 'One `digraph name { ... }` per file, with `->` edges.',
  },
  duplicate_node_conflict: {
    severity: 'warning',
    source: 'parser',
    catches: 'A node declared twice with different values for the same attribute; the later one wins. Related information points at the first value.',
    fix: 'Keep one declaration, or make the values agree.',
  },
  duplicate_attribute: {
    severity: 'warning',
    source: 'parser',
    catches: 'A graph attribute set twice with different values; the later one wins.',
    fix: 'Set it once.',
  },
  node_id_syntax: {
    severity: 'warning',
    source: 'parser (specs/EXTENSIONS.md §4); an HTML-like id is an error',
    catches: 'A node id outside `[A-Za-z_][A-Za-z0-9_]*` (quoted text, a number); an HTML-like `<...>` id cannot be used at all.',
    fix: 'Use a bare identifier and put display text in `label`.',
  },
  port_ignored: {
    severity: 'warning',
    source: 'parser',
    catches: 'An edge endpoint with a port (`a:out -> b`): pipelines route between nodes.',
    fix: 'Remove the port.',
  },
  html_value: {
    severity: 'error',
    source: 'parser',
    catches: 'An HTML-like `<...>` attribute value.',
    fix: 'Use a quoted string.',
  },
  response_schema: {
    severity: 'error',
    source: 'transform (reference ledger response_schema)',
    catches: 'A `response_schema` that is neither an inline JSON object nor a readable file holding one (resolved beside the .dot).',
    fix: 'Give an inline `{...}` JSON Schema, or the path of a .json file beside the pipeline.',
  },
  io: {
    severity: 'error',
    source: 'CLI',
    catches: 'A file named on the command line that cannot be read.',
    fix: 'Check the path and permissions.',
  },
};

/** The title docs/rules.md gives a rule: `rule_name`, or `rule_name (TOPO-001)` when its code differs. */
export function ruleHeading(rule: string, code: string | undefined): string {
  return code && code !== rule ? `${rule} (${code})` : rule;
}

/**
 * The anchor a Markdown preview (VS Code, GitHub) gives a rule's heading: lower case, spaces to
 * dashes, punctuation dropped. Links to a rule use this, so `CMD-001` is `#cmd-001` like every other.
 */
export function ruleAnchor(rule: string, code: string | undefined): string {
  return ruleHeading(rule, code)
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^\p{L}\p{N}_-]/gu, '');
}
