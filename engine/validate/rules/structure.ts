import type { Diagnostic } from '../../model/diagnostics';
import { isExitNode, isStartNode } from '../../model/handler-types';
import type { LintRule } from '../rule';

export const startNodeRule: LintRule = {
  name: 'start_node',
  tier: 'validate',
  *check({ graph }): Iterable<Diagnostic> {
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
  *check({ graph }): Iterable<Diagnostic> {
    const exits = [...graph.nodes.values()].filter(isExitNode);
    if (exits.length === 0) {
      yield { rule: 'terminal_node', severity: 'error', message: 'The pipeline has no exit node: add `done [shape=Msquare]`.', range: graph.nameRange ?? graph.range };
    }
    for (const extra of exits.slice(1)) {
      yield { rule: 'terminal_node', severity: 'error', message: `More than one exit node: \`${extra.id}\` and \`${exits[0]?.id}\`; a pipeline has exactly one.`, nodeId: extra.id, range: extra.idRange };
    }
  },
};
