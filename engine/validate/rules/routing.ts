import type { Clause } from '../../conditions/condition';
import type { SpanDiagnostic } from '../../model/diagnostics';
import { isConditional, keySpanOf, valueSpanOf, type Graph, type GraphEdge } from '../../model/graph';
import type { LineIndex } from '../../model/source';
import { ownerOf, writtenAttributes } from '../attribute-walk';
import { Speller } from '../did-you-mean';
import { edgeSpan } from '../edge-range';
import type { EdgeCondition } from '../edge-conditions';
import { admitsOutcome, edgeCondition, holdsFor, lastLineClauses, outcomeClauses } from '../edge-conditions';
import { appendToValueEdit, replaceValueEdit } from '../fixes';
import { analyze, isLoopRestartBackEdge } from '../graph-analysis';
import { knownOutcomes } from '../possible-outcomes';
import { isStageStatus } from '../../model/stage-status';
import type { LintRule } from '../rule';
import { valueRangeOf, valueSpanRange } from '../value-location';

/** Canonical §7.2: retry_target and fallback_retry_target (node or graph) name existing nodes. */
export const retryTargetExistsRule: LintRule = {
  name: 'retry_target_exists',
  tier: 'validate',
  restsOn: 'statement',
  *check({ graph }): Iterable<SpanDiagnostic> {
    let ids: Speller | undefined;
    for (const written of writtenAttributes(graph).withKey('retry_target', 'fallback_retry_target')) {
      const { attribute, scope } = written;
      if (scope === 'edge') continue;
      const target = attribute.value.trim();
      if (target === '' || graph.nodes.has(target)) continue;
      const suggestion = (ids ??= new Speller(graph.nodes.keys())).suggest(target);
      const edit = suggestion ? replaceValueEdit(attribute, suggestion) : undefined;
      const range = valueRangeOf(attribute);
      yield {
        rule: 'retry_target_exists',
        severity: 'warning',
        message: `\`${attribute.key}\` names \`${target}\`, which is not a node${suggestion ? `: did you mean \`${suggestion}\`?` : '; the retry falls through to the next target or fails. Use an existing node id.'}`,
        ...ownerOf(written),
        ...(range ? { range } : {}),
        ...(edit ? { fix: { title: `Change to \`${suggestion}\``, edits: [edit] } } : {}),
      };
    }
  },
};

/**
 * Canonical §7.2: a goal gate should say where to go when it is unsatisfied at exit (node or graph
 * retry target). A gate with a loop_restart edge back into its loop has that path already (the
 * bundle README's convergence loop), so it is exempt, as in the reference.
 */
export const goalGateHasRetryRule: LintRule = {
  name: 'goal_gate_has_retry',
  tier: 'validate',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    const { graph, adjacency } = context;
    const graphTarget = ['retry_target', 'fallback_retry_target'].some((key) => (graph.attributes.get(key)?.value.trim() ?? '') !== '');
    if (graphTarget) return;
    for (const node of graph.nodes.values()) {
      const gate = node.attributes.get('goal_gate');
      if (gate?.value.trim().toLowerCase() !== 'true') continue;
      if (['retry_target', 'fallback_retry_target'].some((key) => (node.attributes.get(key)?.value.trim() ?? '') !== '')) continue;
      if ((adjacency.outgoing.get(node.id) ?? []).some((edge) => isLoopRestartBackEdge(analyze(context), edge))) continue;
      const key = keySpanOf(gate);
      const value = valueSpanOf(gate);
      const range = key && value ? { start: key.start, end: value.end } : node.idRange;
      yield {
        rule: 'goal_gate_has_retry',
        severity: 'warning',
        message: `Goal gate \`${node.id}\` has no retry_target: if the run reaches the exit with this gate unsatisfied it fails outright. Add \`retry_target="<the node that does the work>"\` here or on the graph.`,
        nodeId: node.id,
        range,
      };
    }
  },
};

function clauseRange(lineIndex: LineIndex, { attribute }: EdgeCondition, clause: Clause) {
  return valueSpanRange(lineIndex, attribute, clause.span.start, clause.span.end);
}

/**
 * Ledger TOPO-001, for every node whose possible outcomes the engine fixes (a diamond always
 * succeeds, a tool ends in success or fail...): an edge whose outcome clauses no such outcome
 * satisfies can never fire.
 */
export const deadConditionalEdgeRule: LintRule = {
  name: 'dead_conditional_edge',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { graph, adjacency, lineIndex } = context;
    const { handlerOf } = analyze(context);
    for (const node of graph.nodes.values()) {
      const known = knownOutcomes(node, handlerOf(node));
      if (!known) continue;
      const outgoing = adjacency.outgoing.get(node.id) ?? [];
      for (const edge of outgoing) {
        const parsed = edgeCondition(context.graph, edge);
        if (!parsed || [...known.statuses].some((status) => admitsOutcome(parsed.condition, status))) continue;
        // A value that is no outcome at all (`outcome=sucess`) is outcome_value's to report, with its fix.
        if (outcomeClauses(parsed.condition).some((clause) => !isStageStatus(clause.literal))) continue;
        const clauses = outcomeClauses(parsed.condition);
        const dead = (clauses.find((clause) => [...known.statuses].every((status) => !holdsFor(clause, status))) ?? clauses[0]) as Clause;
        const complement = complementOfSibling(graph, edge, outgoing);
        const edit = complement ? replaceValueEdit(parsed.attribute, complement) : undefined;
        const range = clauseRange(lineIndex, parsed, dead);
        yield {
          rule: 'dead_conditional_edge',
          code: 'TOPO-001',
          severity: 'error',
          message: `\`${dead.keyText}${dead.operator}${dead.literal}\` can never hold on an edge out of \`${node.id}\`: ${known.reason}. Route on context here${complement ? ` (\`${complement}\` makes the routing total)` : ''}, or test an outcome this node can have.`,
          nodeId: node.id,
          edge: { from: edge.from, to: edge.to },
          ...(range ? { range } : {}),
          related: [{ message: `\`${node.id}\` runs the ${handlerOf(node)} handler`, range: node.idRange }],
          ...(edit ? { fix: { title: `Route on \`${complement}\` instead`, edits: [edit] } } : {}),
        };
      }
    }
  },
};

/** The negation of the one other single-clause context condition out of the diamond, if that is all there is. */
function complementOfSibling(graph: Graph, dead: GraphEdge, outgoing: readonly GraphEdge[]): string | undefined {
  const siblings = outgoing.filter((edge) => edge !== dead && isConditional(edge));
  if (siblings.length !== 1) return undefined;
  const parsed = edgeCondition(graph, siblings[0] as GraphEdge);
  const clause = parsed?.condition.clauses[0];
  if (!parsed || parsed.condition.clauses.length !== 1 || !clause || clause.key.kind === 'outcome' || clause.key.kind === 'preferred_label') return undefined;
  const literal = /^[A-Za-z0-9_.:\-/+@]+$/.test(clause.literal) ? clause.literal : JSON.stringify(clause.literal);
  return `${clause.keyText}${clause.operator === '=' ? '!=' : '='}${literal}`;
}

/**
 * Ledger TOPO-002: a failed tool run leaves tool.last_line from its last success, so on a retry visit
 * a label-routed edge and an `outcome=fail` edge can both match. Pairing the label test with
 * `outcome=success` lets only this run's evidence route.
 */
export const staleLabelCollisionRule: LintRule = {
  name: 'stale_label_collision',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { graph, adjacency, lineIndex } = context;
    const { handlerOf } = analyze(context);
    for (const node of graph.nodes.values()) {
      if (handlerOf(node) !== 'tool') continue;
      const conditions = (adjacency.outgoing.get(node.id) ?? []).flatMap((edge) => {
        const parsed = edgeCondition(context.graph, edge);
        return parsed ? [{ edge, parsed }] : [];
      });
      const failEdges = conditions.filter(({ parsed }) => outcomeClauses(parsed.condition).length > 0 && admitsOutcome(parsed.condition, 'fail'));
      if (failEdges.length === 0) continue;
      for (const { edge, parsed } of conditions) {
        const [label] = lastLineClauses(parsed.condition);
        if (!label || !admitsOutcome(parsed.condition, 'fail') || failEdges.some((f) => f.edge === edge)) continue;
        const range = clauseRange(lineIndex, parsed, label);
        const edit = appendToValueEdit(parsed.attribute, ' && outcome=success');
        yield {
          rule: 'stale_label_collision',
          code: 'TOPO-002',
          severity: 'warning',
          message: `On a retry visit where \`${node.id}\` fails, \`${label.keyText}\` still holds the last successful run's line, so this edge and the \`outcome=fail\` edge can both match. Add \`&& outcome=success\` so only this run's evidence routes.`,
          nodeId: node.id,
          edge: { from: edge.from, to: edge.to },
          ...(range ? { range } : {}),
          related: failEdges.map(({ edge: failEdge }) => ({ message: `\`${failEdge.from} -> ${failEdge.to}\` matches on failure`, range: edgeSpan(failEdge) })),
          ...(edit ? { fix: { title: 'Add `&& outcome=success`', edits: [edit] } } : {}),
        };
      }
    }
  },
};

/** Ours (TOPO-006): a failure routed straight into the exit node ends the run as a success (from a node that can fail). */
export const failRoutedToExitRule: LintRule = {
  name: 'fail_routed_to_exit',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { adjacency, lineIndex } = context;
    const { exit, handlerOf } = analyze(context);
    if (!exit) return;
    for (const edge of adjacency.incoming.get(exit.id) ?? []) {
      const parsed = edgeCondition(context.graph, edge);
      const [clause] = parsed ? outcomeClauses(parsed.condition) : [];
      if (!parsed || !clause || !admitsOutcome(parsed.condition, 'fail')) continue;
      // A source that cannot fail makes the edge dead instead (TOPO-001 says so).
      const source = context.graph.nodes.get(edge.from);
      if (source && knownOutcomes(source, handlerOf(source))?.statuses.has('fail') === false) continue;
      const range = clauseRange(lineIndex, parsed, clause);
      yield {
        rule: 'fail_routed_to_exit',
        code: 'TOPO-006',
        severity: 'warning',
        message: `A failure of \`${edge.from}\` goes straight to the exit \`${exit.id}\`, so the run ends as a success. Route the failure to a step that recovers (or back into the loop), or remove the edge so the failure fails the run.`,
        nodeId: edge.from,
        edge: { from: edge.from, to: edge.to },
        ...(range ? { range } : {}),
        related: [{ message: `\`${exit.id}\` is the exit node`, range: exit.idRange }],
      };
    }
  },
};
