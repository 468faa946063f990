import fs from 'node:fs';
import type { GraphNode } from '../model/graph';
import type { FidelityMode, Usage } from '../runtime/backend';
import type { RunContext } from '../runtime/context';
import { expandPrompt } from '../runtime/expand';
import { VISIT_FILES } from '../runtime/run-file-names';
import { candidateNamed, rankHeuristically, rankingPrompt } from '../runtime/fan-in-ranking';
import { modelSelectionOf } from '../runtime/node-config';
import { stringAttr } from '../model/attribute-readers';
import type { ParallelResult } from '../runtime/parallel-results';
import { PARALLEL_RESULTS_KEY, readParallelResults } from '../runtime/parallel-results';
import type { Handler, HandlerServices } from './handler';
import { agentConfinement } from './agent-confinement';

/**
 * Canonical §4.9: picks the best branch of the preceding fan-out. Heuristic ranking, or with a
 * `prompt` the model's choice (falling back to the heuristic, with a warning, when it names no
 * usable candidate). FAIL only when every candidate failed; the verdict is explicit (ledger §25).
 */
export const fanInHandler: Handler = {
  async execute({ node, context, services, signal, fidelity }) {
    const parsed = readParallelResults(context.get(PARALLEL_RESULTS_KEY));
    if (!parsed.ok) return { status: 'fail', isExplicit: false, failureReason: parsed.error };
    const candidates = parsed.results.filter((result) => !result.cancelled);
    if (candidates.length === 0) return { status: 'fail', isExplicit: false, failureReason: 'no parallel results to evaluate: parallel.results holds no finished branch' };
    if (candidates.every((c) => c.status === 'fail')) {
      return { status: 'fail', isExplicit: true, failureReason: `all ${candidates.length} candidates failed: ${candidates.map((c) => `${c.id} (${c.failure_reason ?? 'no reason'})`).join('; ')}` };
    }
    const ranked = rankHeuristically(candidates);
    let best = ranked[0] as ParallelResult;
    let method = 'heuristic';
    let usage: Usage | undefined;
    const instruction = stringAttr(node, 'prompt');
    if (instruction) {
      const choice = await askModel({ node, instruction, candidates, context, services, signal, fidelity });
      usage = choice.usage;
      if (choice.kind === 'chosen') {
        best = choice.candidate;
        method = 'llm';
      } else {
        services.emit({ type: 'warning', nodeId: node.id, message: `fan-in ${node.id}: ${choice.why}; using the heuristic ranking (${best.id})` });
      }
    }
    return {
      status: 'success',
      isExplicit: true,
      notes: `selected best candidate: ${best.id} (${best.status}, ${method} ranking)`,
      contextUpdates: {
        'parallel.fan_in.best_id': best.id,
        'parallel.fan_in.best_outcome': best.status,
        'parallel.fan_in.method': method,
      },
      ...(usage ? { usage } : {}),
    };
  },
};

/** The ranking call's usage rides along either way: an unusable answer was still paid for. */
type ModelChoice = ({ readonly kind: 'chosen'; readonly candidate: ParallelResult } | { readonly kind: 'unusable'; readonly why: string }) & { readonly usage?: Usage };

interface ModelQuestion {
  readonly node: GraphNode;
  readonly instruction: string;
  readonly candidates: readonly ParallelResult[];
  readonly context: RunContext;
  readonly services: HandlerServices;
  readonly signal: AbortSignal;
  readonly fidelity: FidelityMode;
}

async function askModel({ node, instruction, candidates, context, services, signal, fidelity }: ModelQuestion): Promise<ModelChoice> {
  const prompt = rankingPrompt(expandPrompt(instruction, services.graph, context), candidates);
  services.runDirectory.writeStageFile(services.iteration, node.id, VISIT_FILES.prompt, prompt);
  const stageDir = services.runDirectory.stageDir(node.id);
  fs.mkdirSync(stageDir, { recursive: true });
  const confinement = agentConfinement(node, services, stageDir, false);
  if (!confinement.ok) return { kind: 'unusable', why: confinement.reason };
  const result = await services.backend.run({
    node,
    prompt,
    workDir: services.cwd,
    stageDir,
    model: modelSelectionOf(node, services.graph),
    fidelity,
    history: [],
    goalGate: false,
    toolHooks: {},
    confinement: confinement.value,
    signal,
    emit: (event) => services.emit({ type: 'agent', scope: services.scope, nodeId: node.id, event }),
  });
  if (result.responseText) services.runDirectory.writeStageFile(services.iteration, node.id, VISIT_FILES.response, result.responseText);
  const id = candidateNamed(result, candidates.map((c) => c.id));
  const candidate = candidates.find((c) => c.id === id);
  const usage = result.usage ? { usage: result.usage } : {};
  if (!candidate) return { kind: 'unusable', why: 'the model named no candidate', ...usage };
  // The model ranks among what worked; it cannot promote a failed branch over a successful one.
  if (candidate.status === 'fail') return { kind: 'unusable', why: `the model chose ${candidate.id}, which failed, while other candidates did not`, ...usage };
  return { kind: 'chosen', candidate, ...usage };
}
