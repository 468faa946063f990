import fs from 'node:fs';
import type { GraphNode, Graph } from '../model/graph';
import type { ArtifactAccess, CodergenResult } from '../runtime/backend';
import type { ArtifactStore } from '../runtime/artifact-store';
import { ProviderError } from '../runtime/backend';
import { llmFailedStep } from '../runtime/failed-step';
import { modelSelectionOf } from '../runtime/node-config';
import { boolAttr, maxRetries, promptOf, stringAttr } from '../model/attribute-readers';
import { buildPreamble, resolveThreadKey, threadContextKey } from '../runtime/fidelity';
import { ensureFeedbackPlaceholder } from '../runtime/feedback';
import { expandPrompt } from '../runtime/expand';
import { VISIT_FILES } from '../runtime/run-file-names';
import { outcomeFromResult } from '../runtime/verdict';
import type { Handler } from './handler';
import { agentConfinement } from './agent-confinement';

const LAST_RESPONSE_CHARS = 200;

/** Canonical §4.5 with the ledger's verdict ladder, feedback delivery and full response.md. */
export const codergenHandler: Handler = {
  async execute({ node, context, services, signal, fidelity, attempt, retryReason }) {
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
    services.runDirectory.writeStageFile(services.iteration, node.id, VISIT_FILES.prompt, prompt);

    const threadKey = resolveThreadKey(node, graph, services.incomingEdge, context);
    const schemaText = stringAttr(node, 'response_schema');
    const stageDir = services.runDirectory.stageDir(node.id);
    fs.mkdirSync(stageDir, { recursive: true });
    const goalGate = boolAttr(node, 'goal_gate');
    const toolHooks = {
      ...optional('pre', stringAttr(node, 'tool_hooks.pre') ?? graph.attributes.get('tool_hooks.pre')?.value),
      ...optional('post', stringAttr(node, 'tool_hooks.post') ?? graph.attributes.get('tool_hooks.post')?.value),
    };
    const confinement = agentConfinement(node, services, stageDir, Object.keys(toolHooks).length > 0);
    if (!confinement.ok) return { status: 'fail', isExplicit: false, failureReason: `node ${node.id}: ${confinement.reason}` };
    let result: CodergenResult;
    try {
      result = await services.backend.run({
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
        toolHooks,
        confinement: confinement.value,
        signal,
        emit: (event) => services.emit({ type: 'agent', scope: services.scope, nodeId: node.id, event }),
        beforeTurn: (turn) => services.beforeAgentTurn(node.id, turn),
        ...(context.artifacts ? { artifacts: artifactAccess(context.artifacts, node.id) } : {}),
      });
    } catch (error) {
      // A cancel or timeout is the walker's to report, and an error the ladder retries is no failure yet.
      if (signal.aborted || retried(error, node, graph, attempt)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const spent = error instanceof ProviderError && error.usage ? { usage: error.usage } : {};
      return { status: 'fail', isExplicit: false, failureReason: message, failedStep: llmFailedStep({ prompt: body, response: '', error: message }), ...spent };
    }

    if (result.responseText) services.runDirectory.writeStageFile(services.iteration, node.id, VISIT_FILES.response, result.responseText);
    if (fidelity === 'full') {
      services.recordExchange(threadKey, result.exchange ?? [
        { role: 'user', content: [{ kind: 'text', text: body }] },
        { role: 'assistant', content: result.responseText ? [{ kind: 'text', text: result.responseText }] : [] },
      ]);
    }
    const outcome = outcomeFromResult(result, goalGate);
    const failure = outcome.status === 'fail' ? { failedStep: llmFailedStep({ prompt: body, response: result.responseText, error: outcome.failureReason ?? 'the node reported fail' }) } : {};
    return {
      ...outcome,
      ...failure,
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

function artifactAccess(store: ArtifactStore, nodeId: string): ArtifactAccess {
  return { store: (id, name, content) => store.store(id, name, content, nodeId), retrieve: (id) => store.retrieve(id), list: () => store.list() };
}

function retried(error: unknown, node: GraphNode, graph: Graph, attempt: number): boolean {
  return error instanceof ProviderError && error.transient && attempt <= maxRetries(node, graph);
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}
