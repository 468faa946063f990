/** A realistic N-node pipeline: LLM steps, tool checks with retry loops, conditionals, a stylesheet. */
export function generatePipeline(nodeCount: number): string {
  const lines = [
    `digraph bench_${nodeCount} {`,
    '  goal="Keep the generated pipeline green"',
    '  default_max_retries=1',
    '  model_stylesheet="* { llm_model: model-a; } .critic { llm_model: model-b; reasoning_effort: low; }"',
    '  start [shape=Mdiamond]',
    '  done [shape=Msquare]',
  ];
  for (let k = 0; k < nodeCount; k++) {
    if (k % 3 === 0) lines.push(`  n${k} [shape=box, label="Step ${k}", prompt="Do step ${k} toward $goal"${k % 2 === 0 ? ', class="critic"' : ''}]`);
    else if (k % 3 === 1) lines.push(`  n${k} [shape=parallelogram, tool_command="make step${k}", outputs="result_${k}"]`);
    else lines.push(`  n${k} [shape=diamond, label="Check ${k}"]`);
  }
  lines.push('  start -> n0');
  for (let k = 0; k + 1 < nodeCount; k++) {
    if (k % 3 === 1) {
      lines.push(`  n${k} -> n${k + 1} [condition="outcome=success"]`);
      lines.push(`  n${k} -> n${k - 1} [condition="outcome!=success", label="retry"]`);
    } else lines.push(`  n${k} -> n${k + 1}`);
  }
  lines.push(`  n${nodeCount - 1} -> done`, '}', '');
  return lines.join('\n');
}

/** Where the bench asks for completion: a key inside a node list, and a key inside a condition. */
export function completionProbes(text: string, nodeCount: number): { name: string; offset: number }[] {
  // A tool node half-way down (k % 3 === 1): it has a list and a conditional edge to the next node.
  const middle = Math.floor(nodeCount / 6) * 3 + 1;
  const list = text.indexOf(`  n${middle} [`) + `  n${middle} [`.length;
  const conditionNeedle = `  n${middle} -> n${middle + 1} [condition="`;
  return [
    { name: 'attribute name', offset: list },
    { name: 'condition key', offset: text.indexOf(conditionNeedle) + conditionNeedle.length },
  ];
}
