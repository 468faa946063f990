import type { SpanDiagnostic } from '../../model/diagnostics';
import { isExitNode, isStartNode } from '../../model/handler-types';
import { dotId } from '../../model/dot-text';
import { Speller } from '../did-you-mean';
import { nodeDeclarer, replaceFix } from '../fixes';
import { analyze } from '../graph-analysis';
import type { LintRule } from '../rule';

export const startNodeRule: LintRule = {
  name: 'start_node',
  tier: 'validate',
  *check({ graph }): Iterable<SpanDiagnostic> {
    const starts = [...graph.nodes.values()].filter(isStartNode);
    if (starts.length === 0) {
      yield { rule: 'start_node', severity: 'error', message: 'The pipeline has no start node: add `start [shape=Mdiamond]`.', range: graph.nameRange ?? graph.range };
    }
    for (const extra of starts.slice(1)) {
      yield { rule: 'start_node', severity: 'error', message: `More than one start node: \`${extra.id}\` and \`${starts[0]?.id}\`; a pipeline has exactly one.`, nodeId: extra.id, range: extra.idRange };
    }
  },
};

export const terminalNodeRule: LintRule = {
  name: 'terminal_node',
  tier: 'validate',
  *check({ graph }): Iterable<SpanDiagnostic> {
    const exits = [...graph.nodes.values()].filter(isExitNode);
    if (exits.length === 0) {
      yield { rule: 'terminal_node', severity: 'error', message: 'The pipeline has no exit node: add `done [shape=Msquare]`.', range: graph.nameRange ?? graph.range };
    }
    for (const extra of exits.slice(1)) {
      yield { rule: 'terminal_node', severity: 'error', message: `More than one exit node: \`${extra.id}\` and \`${exits[0]?.id}\`; a pipeline has exactly one.`, nodeId: extra.id, range: extra.idRange };
    }
  },
};

/** Canonical §7.2: every node is reachable from the start node (over edges, or as a retry target). */
export const reachabilityRule: LintRule = {
  name: 'reachability',
  tier: 'validate',
  *check(context): Iterable<SpanDiagnostic> {
    const { start, reachable } = analyze(context);
    if (!start) return; // start_node reports it; every node would be "unreachable"
    for (const node of context.graph.nodes.values()) {
      if (reachable.has(node.id)) continue;
      yield {
        rule: 'reachability',
        severity: 'error',
        message: `Node \`${node.id}\` cannot be reached from \`${start.id}\`: add an edge into it from the node that should run before it, or delete it.`,
        nodeId: node.id,
        range: node.idRange,
      };
    }
  },
};

/**
 * Canonical §7.2 asks that an edge target be a declared node; DOT and the reference create a node
 * for any id an edge mentions, so an undeclared one is admitted (a default box: an LLM node) with
 * a warning naming it, once per implicit node. Start and exit recognised by their id need no
 * statement. A near-miss of a declared id offers the correction, otherwise a declaration.
 */
export const edgeTargetExistsRule: LintRule = {
  name: 'edge_target_exists',
  tier: 'validate',
  *check({ graph, adjacency, lineIndex }): Iterable<SpanDiagnostic> {
    let declared: Speller | undefined;
    const declare = nodeDeclarer(lineIndex, graph);
    for (const node of graph.nodes.values()) {
      if (node.declarations.length > 0 || isStartNode(node) || isExitNode(node)) continue;
      const [edge] = adjacency.incoming.get(node.id) ?? adjacency.outgoing.get(node.id) ?? [];
      const suggestion = (declared ??= new Speller([...graph.nodes.values()].filter((node) => node.declarations.length > 0).map((node) => node.id))).suggest(node.id);
      const fix = suggestion ? replaceFix(`Change \`${node.id}\` to \`${suggestion}\``, node.idRange, dotId(suggestion)) : declare(node.id);
      yield {
        rule: 'edge_target_exists',
        severity: 'warning',
        message: suggestion
          ? `\`${node.id}\` is not a declared node, so it runs as an implicit LLM node: did you mean \`${suggestion}\`?`
          : `\`${node.id}\` is not a declared node: it runs as an implicit LLM node (a box whose prompt is its id). Declare it (\`${node.id} [prompt="..."]\`) to say what it does.`,
        ...(edge ? { edge: { from: edge.from, to: edge.to } } : {}),
        nodeId: node.id,
        range: node.idRange,
        ...(fix ? { fix } : {}),
      };
    }
  },
};

export const startNoIncomingRule: LintRule = {
  name: 'start_no_incoming',
  tier: 'validate',
  *check(context): Iterable<SpanDiagnostic> {
    const { start } = analyze(context);
    if (!start) return;
    for (const edge of context.adjacency.incoming.get(start.id) ?? []) {
      yield {
        rule: 'start_no_incoming',
        severity: 'error',
        message: `The start node \`${start.id}\` must have no incoming edges: point \`${edge.from} -> ${edge.to}\` at the first real step instead.`,
        nodeId: start.id,
        edge: { from: edge.from, to: edge.to },
        range: edge.toRange,
        related: [{ message: `\`${start.id}\` is the start node`, range: start.idRange }],
      };
    }
  },
};

export const exitNoOutgoingRule: LintRule = {
  name: 'exit_no_outgoing',
  tier: 'validate',
  *check(context): Iterable<SpanDiagnostic> {
    const { exit } = analyze(context);
    if (!exit) return;
    for (const edge of context.adjacency.outgoing.get(exit.id) ?? []) {
      yield {
        rule: 'exit_no_outgoing',
        severity: 'error',
        message: `The exit node \`${exit.id}\` must have no outgoing edges: reaching it ends the run, so \`${edge.from} -> ${edge.to}\` never runs. Remove the edge.`,
        nodeId: exit.id,
        edge: { from: edge.from, to: edge.to },
        range: edge.fromRange,
        related: [{ message: `\`${exit.id}\` is the exit node`, range: exit.idRange }],
      };
    }
  },
};
