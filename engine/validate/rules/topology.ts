import type { SpanDiagnostic } from '../../model/diagnostics';
import { isConditional, type GraphNode } from '../../model/graph';
import { isBuiltinHandlerType } from '../../model/handler-types';
import { edgeSpan } from '../edge-range';
import type { Cycle } from '../graph-analysis';
import { analyze, isLoopRestartBackEdge } from '../graph-analysis';
import type { LintRule } from '../rule';
import { attributeRangeOf } from '../value-location';

function describe(cycle: Cycle): string {
  const shown = cycle.nodes.slice(0, 6).map((id) => `\`${id}\``);
  return `${shown.join(' → ')}${cycle.nodes.length > 6 ? ` … (${cycle.nodes.length} nodes)` : ''}`;
}

/** Ledger TOPO-003: no cycle at all (and no retry target jumping back), so nothing can retry or converge. */
export const acyclicGraphRule: LintRule = {
  name: 'acyclic_graph',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { graph } = context;
    const { cycles, hasRetryTargets } = analyze(context);
    if (graph.nodes.size === 0 || cycles.length > 0 || hasRetryTargets) return;
    yield {
      rule: 'acyclic_graph',
      code: 'TOPO-003',
      severity: 'warning',
      message: 'The pipeline has no cycle: nothing can retry or converge, so should this have been a recipe? If it is a deliberate one-pass pipeline, ignore this; otherwise add a corrective edge from a gate back to the work.',
      range: graph.nameRange ?? graph.range,
    };
  },
};

/** Ledger TOPO-004: a loop whose every way out is unconditional (or that has no way out). */
export const cycleNoConditionalExitRule: LintRule = {
  name: 'cycle_no_conditional_exit',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { graph } = context;
    const { cycles, handlerOf } = analyze(context);
    for (const cycle of cycles) {
      const gated = cycle.exits.some((edge) => {
        const source = graph.nodes.get(edge.from) as GraphNode;
        return isConditional(edge) || handlerOf(source) === 'wait.human';
      });
      if (gated) continue;
      const first = graph.nodes.get(cycle.nodes[0] as string) as GraphNode;
      const [exit] = cycle.exits;
      yield {
        rule: 'cycle_no_conditional_exit',
        code: 'TOPO-004',
        severity: 'warning',
        message: exit
          ? `The loop ${describe(cycle)} is left only through unconditional edges: nothing decides whether it has converged. Give the exit edge a condition on the gate's evidence (for example \`condition="context.tool.last_line=gate_pass"\`).`
          : `The loop ${describe(cycle)} has no way out: no edge leaves it, so the run can only end by exhausting its budget. Add a conditional edge from the gate to the next step or the exit.`,
        nodeId: first.id,
        ...(exit ? { edge: { from: exit.from, to: exit.to } } : {}),
        range: exit ? edgeSpan(exit) : first.idRange,
        related: cycle.exits.slice(1, 6).map((edge) => ({ message: `also leaves the loop unconditionally`, range: edgeSpan(edge) })),
      };
    }
  },
};

// Handlers whose verdict is evidence rather than an LLM's say-so.
const deterministicHandlers = new Set(['tool', 'wait.human', 'pipeline', 'stack.manager_loop']);

/** Ledger TOPO-005: a loop with no tool or human gate on it rests only on LLM say-so. */
export const cycleNoDeterministicExitRule: LintRule = {
  name: 'cycle_no_deterministic_exit',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { graph } = context;
    const { cycles, handlerOf } = analyze(context);
    for (const cycle of cycles) {
      const members = cycle.nodes.map((id) => graph.nodes.get(id) as GraphNode);
      if (members.some((node) => deterministicHandlers.has(handlerOf(node)) || !isBuiltinHandlerType(handlerOf(node)))) continue;
      const first = members[0] as GraphNode;
      yield {
        rule: 'cycle_no_deterministic_exit',
        code: 'TOPO-005',
        severity: 'warning',
        message: `The loop ${describe(cycle)} has no tool or human gate: whether it has converged rests only on an LLM's say-so. Add a parallelogram gate whose command tests the work (or a hexagon review) on the loop.`,
        nodeId: first.id,
        range: first.idRange,
      };
    }
  },
};

/** Ours, after the ledger's feedback_from note: a loop_restart loop with no feedback channel re-flips instead of descending. */
export const loopRestartWithoutFeedbackRule: LintRule = {
  name: 'loop_restart_without_feedback',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { graph } = context;
    const analysis = analyze(context);
    const reported = new Set<Cycle>();
    for (const edge of graph.edges) {
      const restart = edge.attributes.get('loop_restart');
      const cycle = analysis.cycleOf.get(edge.from);
      if (!restart || !cycle || !isLoopRestartBackEdge(analysis, edge) || reported.has(cycle)) continue;
      if (cycle.nodes.some((id) => (graph.nodes.get(id)?.attributes.get('feedback_from')?.value.trim() ?? '') !== '')) continue;
      reported.add(cycle);
      const range = attributeRangeOf(restart) ?? edgeSpan(edge);
      yield {
        rule: 'loop_restart_without_feedback',
        severity: 'warning',
        message: `The loop_restart loop ${describe(cycle)} has no feedback_from channel: each iteration starts in a fresh context and may repeat the last one's mistake. Declare \`feedback_from="<critic or gate id>"\` on the node that does the work (or make sure its prompt reads the gate's output file).`,
        edge: { from: edge.from, to: edge.to },
        range,
      };
    }
  },
};
