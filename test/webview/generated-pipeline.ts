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

/**
 * A chain of `chainLength` stages from the start node, then a random DAG (seeded, so the same every
 * run) of the remaining stages with retry edges back: its crossings keep WASM Graphviz busy for
 * minutes, while the chain's neighbourhood of the start node lays out in about a second.
 */
export function generateTangledPipeline(nodeCount: number, chainLength: number, seed = 1): string {
  let state = seed;
  // mulberry32
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const stages = nodeCount - 2;
  const lines = ['digraph tangled {', '  start [shape=Mdiamond]', '  exit [shape=Msquare]'];
  for (let i = 0; i < stages; i++) lines.push(`  n${i} [shape=box, label="Stage ${i}"]`);
  lines.push('  start -> n0');
  for (let i = 1; i < chainLength; i++) lines.push(`  n${i - 1} -> n${i}`);
  // A stage of the tangle, before `i`, counting the chain's last stage as its root.
  const earlier = (i: number) => `n${chainLength - 1 + Math.floor(random() * (i - chainLength + 1))}`;
  for (let i = chainLength; i < stages; i++) {
    lines.push(`  ${earlier(i)} -> n${i}`);
    if (random() < 0.5) lines.push(`  ${earlier(i)} -> n${i}`);
    if (random() < 0.2) lines.push(`  n${i} -> ${earlier(i)} [label="retry"]`);
  }
  lines.push(`  n${stages - 1} -> exit`, '}');
  return lines.join('\n');
}
