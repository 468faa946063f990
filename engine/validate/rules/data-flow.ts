import type { Clause } from '../../conditions/condition';
import type { SpanDiagnostic } from '../../model/diagnostics';
import type { GraphEdge } from '../../model/graph';
import { isEngineKey, launchParameterNames, UpstreamWrites } from '../context-writes';
import { didYouMean } from '../did-you-mean';
import type { EdgeCondition } from '../edge-conditions';
import { edgeCondition, outcomeClauses } from '../edge-conditions';
import { replaceInValueEdit } from '../fixes';
import { analyze } from '../graph-analysis';
import { isBuiltinHandlerType } from '../../model/handler-types';
import { stageStatuses } from '../../model/stage-status';
import type { LintRule, RuleContext } from '../rule';
import { valueSpanRange } from '../value-location';

const statuses: readonly string[] = stageStatuses;

function* conditions(context: RuleContext): Iterable<{ readonly edge: GraphEdge; readonly parsed: EdgeCondition }> {
  for (const edge of context.graph.edges) {
    const parsed = edgeCondition(context.graph, edge);
    if (parsed) yield { edge, parsed };
  }
}

function replaceSpanFix(context: RuleContext, parsed: EdgeCondition, span: Clause['keySpan'], replacement: string) {
  const edit = replaceInValueEdit(context.lineIndex, parsed.attribute, span.start, span.end, replacement);
  return edit ? { fix: { title: `Change to \`${replacement}\``, edits: [edit] } } : {};
}

/**
 * Ours: `outcome` is the label a node reported when it reported one (ledger), else its status. An
 * LLM node (report_outcome, a JSON verdict) or a custom handler may report any label, so any value
 * can hold there; every other handler reports none, so a value that is no status never holds.
 */
export const outcomeValueRule: LintRule = {
  name: 'outcome_value',
  tier: 'lint',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    const { handlerOf } = analyze(context);
    for (const { edge, parsed } of conditions(context)) {
      const source = context.graph.nodes.get(edge.from);
      if (!source) continue;
      const handler = handlerOf(source);
      if (reportsLabels(handler)) continue;
      for (const clause of outcomeClauses(parsed.condition)) {
        if (statuses.includes(clause.literal)) continue;
        const suggestion = didYouMean(clause.literal, statuses);
        const range = valueSpanRange(context.lineIndex, parsed.attribute, clause.literalSpan.start, clause.literalSpan.end);
        yield {
          rule: 'outcome_value',
          severity: 'warning',
          message: `\`${clause.literal}\` is not a status, and \`${source.id}\` (a ${handler} node) reports no label, so \`${clause.keyText}${clause.operator}${clause.literal}\` ${clause.operator === '=' ? 'never' : 'always'} holds${suggestion ? `: did you mean \`${suggestion}\`?` : `. Its outcome is one of ${statuses.join(', ')}.`}`,
          edge: { from: edge.from, to: edge.to },
          ...(range ? { range } : {}),
          ...(suggestion ? replaceSpanFix(context, parsed, clause.literalSpan, suggestion) : {}),
        };
      }
    }
  },
};

/** The handlers whose outcome may carry a preferred label: LLM nodes, and custom handlers (anything). */
function reportsLabels(handler: string): boolean {
  return handler === 'codergen' || !isBuiltinHandlerType(handler);
}

/**
 * Ours: a condition on a context key that nothing upstream of the edge can write (no `outputs`,
 * no parse_json, no structured output, no handler that sets it such as a tool's `tool.last_line` or
 * a gate's `human.gate.*`, not an engine key, not a launch parameter) compares against the empty
 * string every time.
 */
export const contextKeyUnwrittenRule: LintRule = {
  name: 'context_key_unwritten',
  tier: 'lint',
  *check(context): Iterable<SpanDiagnostic> {
    const { graph, adjacency } = context;
    const written = new UpstreamWrites(graph, adjacency, analyze(context).handlerOf);
    const parameters = launchParameterNames(graph);
    for (const { edge, parsed } of conditions(context)) {
      for (const clause of parsed.condition.clauses) {
        if (clause.key.kind !== 'context' && clause.key.kind !== 'bare') continue;
        const key = clause.key.path;
        if (isEngineKey(key) || parameters.has(key)) continue;
        if (written.has(edge.from, key)) continue;
        const suggestion = written.meant(edge.from, key);
        const prefix = clause.keyText.slice(0, clause.keyText.length - key.length);
        const range = valueSpanRange(context.lineIndex, parsed.attribute, clause.keySpan.start, clause.keySpan.end);
        yield {
          rule: 'context_key_unwritten',
          severity: 'warning',
          message: suggestion
            ? `No node before this edge writes \`${key}\`: did you mean \`${suggestion}\`?`
            : `No node before this edge writes \`${key}\`, so \`${clause.keyText}\` is always empty here. Declare it in \`outputs\` on the node that sets it, write it with a parse_json tool, or pass it at launch (\`--param ${key}=…\`).`,
          edge: { from: edge.from, to: edge.to },
          ...(range ? { range } : {}),
          ...(suggestion ? replaceSpanFix(context, parsed, clause.keySpan, `${prefix}${suggestion}`) : {}),
        };
      }
    }
  },
};
