import type { SpanDiagnostic, SpanFix } from '../../model/diagnostics';
import type { Attribute, GraphNode } from '../../model/graph';
import type { LineIndex } from '../../model/source';
import { replaceInValueEdit } from '../fixes';
import { analyze } from '../graph-analysis';
import type { LintRule, RuleContext } from '../rule';
import type { ShellPipeline, ShellStage } from '../shell-pipelines';
import { mayPipe, splitPipelines } from '../shell-pipelines';
import { valueSpanRange } from '../value-location';

// Commands whose own exit status is no test of anything: piping them on hides nothing.
const producers = new Set(['echo', 'printf', 'cat', 'true', 'yes', ':']);
// Filters that reshape output for a reader; replacing them with a file loses nothing the gate needs.
const displayFilters = new Set(['tail', 'head', 'sed', 'awk', 'gawk', 'cut', 'sort', 'uniq', 'tee', 'wc', 'tr', 'column', 'less', 'more', 'nl', 'fold', 'fmt', 'cat']);
const filters = new Set([...displayFilters, 'grep', 'egrep', 'fgrep', 'rg', 'jq', 'xargs']);

interface HiddenStatus {
  readonly node: GraphNode;
  readonly attribute: Attribute;
  /** Every pipeline of the command, and the one whose status is hidden. */
  readonly pipelines: readonly ShellPipeline[];
  readonly pipeline: ShellPipeline;
  /** The stage whose status is lost and the filter whose status replaces it. */
  readonly hidden: ShellStage;
  readonly filter: ShellStage;
  readonly pipes: { readonly start: number; readonly end: number };
  readonly fix?: SpanFix;
}

// CMD-001 and CMD-002 report on the same findings: the commands are split once per lint.
const cache = new WeakMap<RuleContext['adjacency'], readonly HiddenStatus[]>();

function hiddenStatuses(context: RuleContext): readonly HiddenStatus[] {
  let found = cache.get(context.adjacency);
  if (!found) {
    found = [...findHiddenStatuses(context)];
    cache.set(context.adjacency, found);
  }
  return found;
}

/** Tool-node pipelines whose status becomes the node's verdict, where a filter's exit status stands in for the tested command's. */
function* findHiddenStatuses(context: RuleContext): Iterable<HiddenStatus> {
  const { handlerOf } = analyze(context);
  for (const node of context.graph.nodes.values()) {
    const attribute = node.attributes.get('tool_command');
    if (!attribute || !mayPipe(attribute.value) || handlerOf(node) !== 'tool' || /\bpipefail\b/.test(attribute.value)) continue;
    const pipelines = splitPipelines(attribute.value);
    for (const pipeline of pipelines) {
      if (!pipeline.decidesStatus) continue;
      const last = pipeline.stages[pipeline.stages.length - 1];
      const hidden = pipeline.stages.slice(0, -1).find((stage) => stage.command !== '' && !producers.has(stage.command));
      if (!hidden || !last) continue;
      const filter = pipeline.stages.slice(pipeline.stages.indexOf(hidden) + 1).find((stage) => filters.has(stage.command));
      if (!filter) continue;
      const first = pipeline.stages[0] as ShellStage;
      const pipes = { start: attribute.value.slice(0, first.end).trimEnd().length, end: trimmedEnd(attribute.value, last) };
      const fix = redirectFix(context.lineIndex, node, attribute, pipeline, pipes);
      yield { node, attribute, pipelines, pipeline, hidden, filter, pipes, ...(fix ? { fix } : {}) };
    }
  }
}

function trimmedEnd(text: string, stage: ShellStage): number {
  return stage.start + text.slice(stage.start, stage.end).trimEnd().length;
}

/**
 * `cmd | tail -5` → `cmd > <node>_output.txt 2>&1` (bundle README, "Why the redirection matters")
 * when the filter only reshapes output; otherwise (the filter computes something, or there are
 * more stages) `set -o pipefail; ` in front, which bash, the shell tool nodes run in, honours.
 */
function redirectFix(lineIndex: LineIndex, node: GraphNode, attribute: Attribute, pipeline: ShellPipeline, pipes: { start: number; end: number }): SpanFix | undefined {
  const [, second] = pipeline.stages;
  if (pipeline.stages.length === 2 && second && displayFilters.has(second.command)) {
    const file = `${node.id}_output.txt`;
    const edit = replaceInValueEdit(lineIndex, attribute, pipes.start, pipes.end, ` > ${file} 2>&1`);
    return edit ? { title: `Redirect the output to ${file} instead of piping it`, edits: [edit] } : undefined;
  }
  const edit = replaceInValueEdit(lineIndex, attribute, 0, 0, 'set -o pipefail; ');
  return edit ? { title: 'Add `set -o pipefail;` so the pipeline fails when any stage fails', edits: [edit] } : undefined;
}

/** Bundle README CMD-001: a pipe into a filter hands the shell the filter's exit status. */
export const pipeHidesStatusRule: LintRule = {
  name: 'CMD-001',
  tier: 'lint',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    for (const found of hiddenStatuses(context)) {
      const range = valueSpanRange(context.lineIndex, found.attribute, found.pipes.start, found.pipes.end);
      yield {
        rule: 'CMD-001',
        code: 'CMD-001',
        severity: 'warning',
        message: `\`${found.node.id}\`: the pipe into \`${found.filter.command}\` makes the pipeline's exit status \`${found.filter.command}\`'s, so a failing \`${found.hidden.command}\` looks like success. Redirect the output to a file (\`> out.txt 2>&1\`) and test the command's own status, or start the command with \`set -o pipefail;\`.`,
        nodeId: found.node.id,
        ...(range ? { range } : {}),
        ...(found.fix ? { fix: found.fix } : {}),
      };
    }
  },
};

/** CMD-002: `cmd | filter && echo ok` prints the pass token on the filter's success, a gate that lies. */
export const tokenGateLiesRule: LintRule = {
  name: 'CMD-002',
  tier: 'lint',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    for (const found of hiddenStatuses(context)) {
      const { pipelines, pipeline, attribute } = found;
      if (pipeline.next?.operator !== '&&') continue;
      const token = pipelines.find((p) => p.start >= (pipeline.next?.end ?? 0));
      const echo = token?.stages[0];
      if (!token || !echo || (echo.command !== 'echo' && echo.command !== 'printf')) continue;
      const tokenText = attribute.value.slice(echo.start, trimmedEnd(attribute.value, echo)).trim();
      const range = valueSpanRange(context.lineIndex, attribute, pipeline.next.start, trimmedEnd(attribute.value, echo));
      const pipeRange = valueSpanRange(context.lineIndex, attribute, found.pipes.start, found.pipes.end);
      yield {
        rule: 'CMD-002',
        code: 'CMD-002',
        severity: 'warning',
        message: `\`${found.node.id}\`: \`${tokenText}\` runs whenever \`${found.filter.command}\` succeeds, not when \`${found.hidden.command}\` does, so the gate token lies on a red run. Redirect the output to a file instead of piping it.`,
        nodeId: found.node.id,
        ...(range ? { range } : {}),
        ...(pipeRange ? { related: [{ message: 'the pipe that hides the status', range: pipeRange }] } : {}),
        ...(found.fix ? { fix: found.fix } : {}),
      };
    }
  },
};
