// Generates pipelines of a given size for render tests and benches: a chain of stages with side
// branches and a loop back every few stages, shaped like real Attractor graphs.

export function generatePipeline(nodeCount: number): string {
  const lines = ['digraph generated {', '  graph [goal="generated"]', '  start [shape=Mdiamond]', '  exit [shape=Msquare]'];
  const stages = Math.max(nodeCount - 2, 1);
  for (let i = 0; i < stages; i++) {
    const shape = i % 7 === 3 ? 'diamond' : i % 5 === 4 ? 'parallelogram' : 'box';
    lines.push(`  n${i} [shape=${shape}, label="Stage ${i}", prompt="Do step ${i} of the work"]`);
  }
  lines.push('  start -> n0');
  for (let i = 1; i < stages; i++) {
    const from = i % 3 === 0 ? Math.max(0, i - 2) : i - 1;
    lines.push(`  n${from} -> n${i}`);
    if (i % 10 === 9) lines.push(`  n${i} -> n${i - 8} [label="retry", loop_restart=true]`);
  }
  lines.push(`  n${stages - 1} -> exit`);
  lines.push('}');
  return lines.join('\n');
}
