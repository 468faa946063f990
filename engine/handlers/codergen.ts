import fs from 'node:fs';
import { boolAttr, modelSelectionOf, promptOf, stringAttr } from '../runtime/node-config';
import { buildPreamble, resolveThreadKey, threadContextKey } from '../runtime/fidelity';
import { ensureFeedbackPlaceholder } from '../runtime/feedback';
import { expandPrompt } from '../runtime/expand';
import { outcomeFromResult } from '../runtime/verdict';
import type { Handler } from './handler';

const LAST_RESPONSE_CHARS = 200;

/** Canonical §4.5 with the ledger's verdict ladder, feedback delivery and full response.md. */
export const codergenHandler: Handler = {
  async execute({ node, context, services, signal, fidelity, retryReason }) {
    const { graph } = services;
    let template = promptOf(node);
    if (stringAttr(node, 'feedback_from')) template = ensureFeedbackPlaceholder(template, node.id);
    const body = expandPrompt(template, graph, context);
    const preamble = buildPreamble(fidelity, {
      goal: graph.attributes.get('goal')?.value ?? '',
      runId: services.runId,
      completed: services.completedNodes,
      outcomes: services.nodeOutcomes,
      context: context.snapshot(),
    });
    const prompt = preamble ? `${preamble}\n\n---\n\n${body}` : body;
    services.runDirectory.writeStageFile(services.iteration, node.id, 'prompt.md', prompt);

    const threadKey = resolveThreadKey(node, graph, services.incomingEdge, context);
    const schemaText = stringAttr(node, 'response_schema');
    const stageDir = services.runDirectory.stageDir(node.id);
    fs.mkdirSync(stageDir, { recursive: true });
    const goalGate = boolAttr(node, 'goal_gate');
    const result = await services.backend.run({
      node,
      prompt,
      workDir: services.cwd,
      stageDir,
      model: modelSelectionOf(node, graph),
      fidelity,
      history: fidelity === 'full' ? services.transcript(threadKey) : [],
      ...(schemaText ? { responseSchema: JSON.parse(schemaText) as Record<string, unknown> } : {}),
      goalGate,
      ...(goalGate && retryReason ? { verdictRequired: retryReason } : {}),
      toolHooks: {
        ...optional('pre', stringAttr(node, 'tool_hooks.pre') ?? graph.attributes.get('tool_hooks.pre')?.value),
        ...optional('post', stringAttr(node, 'tool_hooks.post') ?? graph.attributes.get('tool_hooks.post')?.value),
      },
      signal,
      emit: (event) => services.emit({ type: 'agent', scope: services.scope, nodeId: node.id, event }),
      beforeTurn: (turn) => services.beforeAgentTurn(node.id, turn),
    });

    if (result.responseText) services.runDirectory.writeStageFile(services.iteration, node.id, 'response.md', result.responseText);
    if (fidelity === 'full') {
      services.recordExchange(threadKey, result.exchange ?? [
        { role: 'user', content: [{ kind: 'text', text: body }] },
        { role: 'assistant', content: result.responseText ? [{ kind: 'text', text: result.responseText }] : [] },
      ]);
    }
    const outcome = outcomeFromResult(result, goalGate);
    return {
      ...outcome,
      contextUpdates: {
        last_stage: node.id,
        last_response: result.responseText.slice(0, LAST_RESPONSE_CHARS),
        ...(result.structuredOutput !== undefined ? { [node.id]: result.structuredOutput } : {}),
        ...(fidelity === 'full' ? { [threadContextKey(node.id)]: threadKey } : {}),
        ...outcome.contextUpdates,
      },
      ...(result.usage ? { usage: result.usage } : {}),
    };
  },
};

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}
