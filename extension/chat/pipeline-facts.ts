import { buildAdjacency, isConditional } from '../../engine/model/graph';
import type { Adjacency, Graph, GraphEdge } from '../../engine/model/graph';
import type { Diagnostic } from '../../engine/model/diagnostics';
import { shapes } from '../../engine/model/handler-types';
import { preparePipeline } from '../../engine/prepare';
import { analyze } from '../../engine/validate/graph-analysis';
import { ruleDocs } from '../../engine/validate/rule-docs';

/** A loop in the graph and what decides whether it has converged. */
interface LoopFacts {
  readonly nodes: readonly string[];
  /** Shell nodes in the loop with a conditional edge leaving it: deterministic evidence gates. */
  readonly toolGates: readonly string[];
  /** Edges that leave the loop: the only ways out. */
  readonly exits: readonly string[];
  readonly restartEdges: readonly string[];
}

/** What can be said about a pipeline without a model: the facts /explain phrases and /attractorify checks. */
export interface PipelineFacts {
  readonly name: string;
  readonly goal?: string;
  readonly nodes: readonly { readonly id: string; readonly handler: string; readonly detail?: string }[];
  readonly routes: readonly string[];
  readonly loops: readonly LoopFacts[];
  readonly budgets: readonly string[];
  readonly gates: readonly string[];
  readonly feedback: readonly string[];
  /** Paths on which an LLM worker of a gated loop reaches the exit without passing any of its gates. */
  readonly ungatedExits: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

export type PipelineAnalysis = { readonly ok: true; readonly facts: PipelineFacts } | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

const graphBudgets = ['default_max_retries', 'default_max_retry', 'max_pipeline_duration', 'max_steps'];
const nodeBudgets = ['max_retries', 'timeout', 'manager.max_cycles'];

export function analyzePipeline(text: string, sourcePath?: string): PipelineAnalysis {
  const prepared = preparePipeline(text, { ...(sourcePath ? { sourcePath } : {}), mode: 'lint' });
  if (!prepared.graph) return { ok: false, diagnostics: prepared.diagnostics };
  return { ok: true, facts: factsOf(prepared.graph, prepared.lineIndex, prepared.diagnostics) };
}

function factsOf(graph: Graph, lineIndex: Parameters<typeof analyze>[0]['lineIndex'], diagnostics: readonly Diagnostic[]): PipelineFacts {
  const adjacency = buildAdjacency(graph);
  const analysis = analyze({ graph, adjacency, lineIndex, knownHandlerTypes: new Set(), fileExists: () => true });
  const value = (attributes: Graph['attributes'], key: string) => attributes.get(key)?.value;
  const nodes = [...graph.nodes.values()];
  const loops = analysis.cycles.map((cycle): LoopFacts => ({
    nodes: cycle.nodes,
    toolGates: cycle.nodes.filter((id) => {
      const node = graph.nodes.get(id);
      return node !== undefined && analysis.handlerOf(node) === 'tool' && cycle.exits.some((edge) => edge.from === id && isConditional(edge));
    }),
    exits: cycle.exits.map(describeEdge),
    restartEdges: graph.edges.filter((edge) => analysis.cycleOf.get(edge.from) === cycle && analysis.cycleOf.get(edge.to) === cycle && value(edge.attributes, 'loop_restart') === 'true').map(describeEdge),
  }));
  return {
    name: graph.name,
    ...(value(graph.attributes, 'goal') ? { goal: value(graph.attributes, 'goal') } : {}),
    nodes: nodes.map((node) => {
      const handler = analysis.handlerOf(node);
      const detail = value(node.attributes, 'tool_command') ?? value(node.attributes, 'prompt') ?? value(node.attributes, 'dot_file');
      return { id: node.id, handler, ...(detail ? { detail: detail.length > 160 ? `${detail.slice(0, 157)}...` : detail } : {}) };
    }),
    routes: graph.edges.map(describeEdge),
    loops,
    budgets: [
      ...graphBudgets.flatMap((key) => (value(graph.attributes, key) ? [`graph ${key}=${value(graph.attributes, key)}`] : [])),
      ...nodes.flatMap((node) => nodeBudgets.flatMap((key) => (value(node.attributes, key) ? [`${node.id} ${key}=${value(node.attributes, key)}`] : []))),
    ],
    gates: nodes.flatMap((node) =>
      value(node.attributes, 'goal_gate') === 'true' ? [`${node.id} is a goal gate${value(node.attributes, 'retry_target') ? ` (retry_target=${value(node.attributes, 'retry_target')})` : ''}`] : [],
    ),
    feedback: nodes.flatMap((node) => (value(node.attributes, 'feedback_from') ? [`${node.id} gets ${value(node.attributes, 'feedback_from')}'s output on every loop_restart`] : [])),
    ungatedExits: ungatedExits(graph, adjacency, analysis, loops),
    diagnostics,
  };
}

/** For each LLM worker in a gated loop, the shortest path to the exit that passes none of the loop gates. */
function ungatedExits(graph: Graph, adjacency: Adjacency, analysis: ReturnType<typeof analyze>, loops: readonly LoopFacts[]): string[] {
  const gates = new Set(loops.flatMap((loop) => loop.toolGates));
  const exit = analysis.exit?.id;
  if (exit === undefined || gates.size === 0) return [];
  const isWorker = (id: string): boolean => {
    const node = graph.nodes.get(id);
    return node !== undefined && analysis.handlerOf(node) === 'codergen';
  };
  const workers = loops.filter((loop) => loop.toolGates.length > 0).flatMap((loop) => loop.nodes.filter(isWorker));
  return [...new Set(workers)].flatMap((worker) => {
    const cameFrom = new Map<string, string | undefined>([[worker, undefined]]);
    const queue = [worker];
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      if (id === exit) {
        const path: string[] = [];
        for (let step: string | undefined = id; step !== undefined; step = cameFrom.get(step)) path.unshift(step);
        return [path.join(' -> ')];
      }
      for (const edge of adjacency.outgoing.get(id) ?? []) {
        if (gates.has(edge.to) || cameFrom.has(edge.to)) continue;
        cameFrom.set(edge.to, id);
        queue.push(edge.to);
      }
    }
    return [];
  });
}

function describeEdge(edge: GraphEdge): string {
  const condition = edge.attributes.get('condition')?.value;
  const label = edge.attributes.get('label')?.value;
  const restart = edge.attributes.get('loop_restart')?.value === 'true';
  const notes = [condition ? `when ${condition}` : label ? `label "${label}"` : 'unconditional', ...(restart ? ['loop_restart'] : [])];
  return `${edge.from} -> ${edge.to} (${notes.join(', ')})`;
}

/** Markdown the model phrases for /explain (and the answer itself when no model is available). */
export function formatFacts(facts: PipelineFacts): string {
  const shapeDoc = new Map(shapes.map((info) => [info.handler as string, info.doc]));
  const lines = [`### Pipeline \`${facts.name || '(unnamed)'}\``, ...(facts.goal ? [`Goal: ${facts.goal}`] : []), '', '**Nodes**'];
  for (const node of facts.nodes) lines.push(`- \`${node.id}\` (${node.handler}): ${shapeDoc.get(node.handler) ?? 'custom handler'}${node.detail ? ` — \`\` ${node.detail.replace(/\n/g, ' ')} \`\`` : ''}`);
  lines.push('', '**Routes**', ...facts.routes.map((route) => `- ${route}`));
  lines.push('', '**Loops**');
  if (facts.loops.length === 0) lines.push('- none: nothing can retry or converge (a graph without a cycle is a list with extra syntax)');
  for (const loop of facts.loops) {
    const gate = loop.toolGates.length > 0 ? `gated by the shell node(s) ${loop.toolGates.map((id) => `\`${id}\``).join(', ')}` : 'no deterministic (shell) gate decides the exit';
    lines.push(`- ${loop.nodes.join(' → ')}: ${gate}; exits: ${loop.exits.join('; ') || 'none'}${loop.restartEdges.length > 0 ? `; restarts: ${loop.restartEdges.join('; ')}` : ''}`);
  }
  lines.push('', '**Gates and budgets**', ...[...facts.gates, ...facts.feedback, ...facts.budgets].map((line) => `- ${line}`));
  if (facts.gates.length + facts.feedback.length + facts.budgets.length === 0) lines.push('- none declared (engine defaults apply)');
  lines.push('', '**Lint**');
  if (facts.diagnostics.length === 0) lines.push('- no findings');
  for (const d of facts.diagnostics) {
    const doc = ruleDocs[d.rule];
    lines.push(`- line ${d.range ? d.range.start.line + 1 : '?'}: ${d.severity} \`${d.code ?? d.rule}\` ${d.message}${doc ? ` — catches: ${doc.catches} Fix: ${doc.fix}` : ''}`);
  }
  return lines.join('\n');
}

/** The structural half of the three-question test, for a drafted pipeline. */
export function convergenceProblems(facts: PipelineFacts): string[] {
  if (facts.loops.length === 0) return ['the draft has no cycle: add a corrective back-edge from the gate to the worker with loop_restart=true'];
  if (!facts.loops.some((loop) => loop.toolGates.length > 0)) {
    return ['no loop is gated by a shell node (shape=parallelogram with tool_command) whose conditional edge leaves the loop: the exit must depend on machine-checkable evidence'];
  }
  // Question 3: one bad answer from a worker must not be able to end the run.
  return facts.ungatedExits.map((path) => `the worker reaches the exit without passing the gate (${path}): route every path to the exit through the shell gate's pass edge`);
}
