import { acceleratorKey, optionCaption } from '../model/accelerator';
import type { Graph, GraphEdge, GraphNode } from '../model/graph';
import { edgeCaption, questionTypeOf, yesNoEdges, type QuestionType } from '../model/question-types';
import { outgoingEdges } from '../model/graph';
import type { RunContext } from '../runtime/context';
import { normalizeLabel, selectEdge } from '../runtime/edge-selection';
import { expandPrompt } from '../runtime/expand';
import type { HumanOption, HumanQuestion } from '../runtime/events';
import type { Answer } from '../runtime/interviewer';
import { boolAttr, stringAttr, timeoutMs } from '../model/attribute-readers';
import type { Outcome } from '../runtime/outcome';
import type { Handler } from './handler';

export function matchOption(choice: string, options: readonly HumanOption[]): HumanOption | undefined {
  const wanted = choice.trim();
  return (
    options.find((o) => o.key.toLowerCase() === wanted.toLowerCase()) ??
    options.find((o) => normalizeLabel(o.label) === normalizeLabel(wanted)) ??
    options.find((o) => o.to === wanted)
  );
}

/**
 * The question a gate node asks: its `prompt`, else its `label` (the reference's order; the spec
 * names only the label), expanded like a prompt. Its options: the outgoing edges (multiple choice);
 * the yes and the no edge (yes_no); or Yes and No, each shown going where the walk would go after
 * a success or a failure (confirmation).
 */
export function gateQuestion(graph: Graph, node: GraphNode, id: string, context: RunContext): HumanQuestion {
  const type = questionTypeOf(node);
  const timeout = timeoutMs(node);
  const defaultChoice = stringAttr(node, 'human.default_choice');
  return {
    id,
    nodeId: node.id,
    type,
    text: expandPrompt(stringAttr(node, 'prompt') ?? stringAttr(node, 'label') ?? 'Select an option:', graph, context),
    options: gateOptions(graph, node, type, context),
    freeform: boolAttr(node, 'human.freeform'),
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    ...(defaultChoice ? { defaultChoice } : {}),
  };
}

function gateOptions(graph: Graph, node: GraphNode, type: QuestionType, context: RunContext): HumanOption[] {
  const edges = outgoingEdges(graph, node.id);
  const option = (edge: GraphEdge): HumanOption => ({ key: acceleratorKey(edgeCaption(edge)), label: edgeCaption(edge), to: edge.to });
  if (type === 'multiple_choice') return edges.map(option);
  if (type === 'yes_no') {
    const pair = yesNoEdges(edges);
    return pair ? [option(pair.yes), option(pair.no)] : [];
  }
  const after = (status: 'success' | 'fail'): string => {
    const selection = selectEdge({ edges, outcome: { status, isExplicit: true }, lookup: (key) => context.get(key), nodes: graph.nodes });
    return selection.kind === 'edge' ? selection.edge.to : '';
  };
  return [
    { key: 'Y', label: 'Yes', to: after('success') },
    { key: 'N', label: 'No', to: after('fail') },
  ];
}

/**
 * The human gate: the outgoing edges are the options. Unlike canonical §4.6, an answer that matches
 * no option fails the node instead of silently taking the first one (specs/EXTENSIONS.md).
 */
export const humanHandler: Handler = {
  async execute({ node, context, services, signal }) {
    // Unique per visit: a node completes at most once per position in an iteration's walk.
    const question = gateQuestion(services.graph, node, `${services.runId}/${services.iteration}/${services.completedNodes.length}/${node.id}`, context);
    if (question.options.length === 0) {
      const offer = question.type === 'yes_no' ? 'a yes edge and a no edge' : 'outgoing edges';
      return { status: 'fail', isExplicit: false, failureReason: `human gate ${node.id} has no ${offer} to offer` };
    }
    services.emit({ type: 'human:question', scope: services.scope, nodeId: node.id, question });
    const asked = services.clock.monotonic();
    const answer = await askWithTimeout(services.interviewer.ask.bind(services.interviewer), question, signal);
    const outcome = outcomeForAnswer(answer, question);
    if (answer.kind === 'timeout') {
      const taken = outcome.contextUpdates?.['human.gate.timed_out'] === true ? outcome.contextUpdates['human.gate.selected'] : undefined;
      services.emit({ type: 'human:timeout', scope: services.scope, nodeId: node.id, questionId: question.id, durationMs: services.clock.monotonic() - asked, ...(typeof taken === 'string' ? { defaultChoice: taken } : {}) });
    }
    services.emit({ type: 'human:answer', scope: services.scope, nodeId: node.id, answer: describeAnswer(answer) });
    return outcome;
  },
};

async function askWithTimeout(ask: (q: HumanQuestion, s: AbortSignal) => Promise<Answer>, question: HumanQuestion, signal: AbortSignal): Promise<Answer> {
  const local = new AbortController();
  const onAbort = () => local.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const asked = ask(question, local.signal);
    // The node's timeout aborts `signal`; for a gate that means "no answer in time".
    const timedOut = new Promise<Answer>((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'timeout' }), { once: true }));
    return await Promise.race([asked, timedOut]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    local.abort();
  }
}

function describeAnswer(answer: Answer): string {
  switch (answer.kind) {
    case 'option':
      return answer.choice;
    case 'freeform':
      return answer.text;
    case 'skipped':
      return 'SKIPPED';
    case 'timeout':
      return 'TIMEOUT';
  }
}

/** Canonical §6.3's YES and NO answer a yes_no or confirmation question whatever its labels say. */
function yesNoValue(question: HumanQuestion, choice: string): string {
  if (question.type === 'multiple_choice') return choice;
  const value = choice.trim().toLowerCase();
  return value === 'yes' ? 'Y' : value === 'no' ? 'N' : choice;
}

function selected(question: HumanQuestion, option: HumanOption, extra: Record<string, unknown> = {}): Outcome {
  const contextUpdates = { 'human.gate.selected': option.key, 'human.gate.label': option.label, ...extra };
  // A confirmation routes as any node does: yes is a success, no a failure.
  if (question.type === 'confirmation') {
    return option.key === 'Y'
      ? { status: 'success', isExplicit: true, contextUpdates, notes: 'the human confirmed' }
      : { status: 'fail', isExplicit: true, contextUpdates, failureReason: 'the human did not confirm' };
  }
  return { status: 'success', isExplicit: true, suggestedNextIds: [option.to], contextUpdates, notes: `human selected ${option.label}` };
}

function outcomeForAnswer(answer: Answer, question: HumanQuestion): Outcome {
  const attachments = 'attachments' in answer && answer.attachments?.length ? { 'human.gate.attachments': answer.attachments } : {};
  switch (answer.kind) {
    case 'timeout': {
      const fallback = question.defaultChoice ? matchOption(question.defaultChoice, question.options) : undefined;
      if (fallback) return selected(question, fallback, { 'human.gate.timed_out': true });
      return { status: 'retry', isExplicit: false, failureReason: 'human gate timed out and has no usable human.default_choice' };
    }
    case 'skipped':
      return { status: 'fail', isExplicit: true, failureReason: 'the human skipped the gate' };
    case 'freeform': {
      if (!question.freeform) {
        const option = matchOption(yesNoValue(question, answer.text), question.options);
        if (option) return selected(question, option, attachments);
        return { status: 'fail', isExplicit: true, failureReason: `answer "${answer.text}" matches no option (${question.options.map((o) => o.label).join(', ')})` };
      }
      const option = matchOption(yesNoValue(question, answer.text), question.options) ?? (question.options[0] as HumanOption);
      return selected(question, option, { 'human.gate.answer': answer.text, ...attachments });
    }
    case 'option': {
      const option = matchOption(yesNoValue(question, answer.choice), question.options);
      if (option) return selected(question, option, attachments);
      return { status: 'fail', isExplicit: true, failureReason: `answer "${answer.choice}" matches no option (${question.options.map(optionCaption).join(', ')})` };
    }
  }
}
