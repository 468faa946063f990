/** Pipeline idioms offered at statement starts (snippet syntax: $1 tab stops, \$ a literal dollar). */
export interface PipelineSnippet {
  readonly label: string;
  readonly detail: string;
  readonly body: string;
}

export const snippets: readonly PipelineSnippet[] = [
  {
    label: 'convergence loop',
    detail: 'work, check with a tool, loop until it passes',
    body: [
      '${1:implement} [shape=box, prompt="${2:Work toward \\$goal}"]',
      '${3:check} [shape=parallelogram, tool_command="${4:npm test}"]',
      '$1 -> $3',
      '$3 -> ${5:done} [condition="outcome=success"]',
      '$3 -> $1 [condition="outcome!=success", loop_restart=true]',
      '$0',
    ].join('\n'),
  },
  {
    label: 'human gate',
    detail: 'a person approves or sends back',
    body: [
      '${1:review} [shape=hexagon, label="${2:Approve the change?}"]',
      '$1 -> ${3:approved} [label="[A] Approve"]',
      '$1 -> ${4:rework} [label="[R] Rework"]',
      '$0',
    ].join('\n'),
  },
  {
    label: 'fan-out / fan-in',
    detail: 'run branches in parallel and join them',
    body: [
      '${1:fan_out} [shape=component, join_policy=wait_all]',
      '${2:branch_a} [shape=box, prompt="${3:First approach to \\$goal}"]',
      '${4:branch_b} [shape=box, prompt="${5:Second approach to \\$goal}"]',
      '${6:join} [shape=tripleoctagon, prompt="${7:Pick the best result}"]',
      '$1 -> $2',
      '$1 -> $4',
      '$2 -> $6',
      '$4 -> $6',
      '$0',
    ].join('\n'),
  },
];
