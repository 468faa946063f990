import { randomUUID } from 'node:crypto';
import type { CodergenBackend, CodergenRequest, CodergenResult, ModelSelection, PreflightProblem } from '../runtime/backend';
import { ProviderError } from '../runtime/backend';
import type { GraphNode } from '../model/graph';
import { createAdapter } from './adapter-factory';
import type { AgentLimits, AgentSessionResult } from './agent-loop';
import { limitDescriptions, runAgentSession } from './agent-loop';
import type { Clock } from '../runtime/clock';
import { systemClock } from '../runtime/clock';
import type { LlmSettings, ModelResolution } from './provider-settings';
import { resolveModel, settingsFromEnv } from './provider-settings';
import { childEnvironment } from '../runtime/child-environment';
import type { RetryPolicy } from '../runtime/retry-policy';
import { retryPolicyWithFirstDelay } from '../runtime/retry-policy';
import { SessionRecorder } from './session-recorder';
import { workerSystemPrompt } from './system-prompt';
import type { InProcessToolHooks } from './tool-hooks';
import { workspaceTools } from './tools';
import { artifactTools } from './tools/artifact-tools';
import { Workspace } from './tools/workspace';
import type { ProviderAdapter, ProviderName, ReasoningEffort } from './types';

/** The model a node runs on and the adapter that serves it. */
export interface RoutedModel {
  readonly adapter: () => Promise<ProviderAdapter>;
  readonly model: string;
  /** Where it runs: a ProviderName (with the settings' key) or an injected source (e.g. `vscode-lm`). */
  readonly source: string;
  readonly reasoningEffort?: ReasoningEffort;
}

export type ModelRoute = { readonly ok: true; readonly value: RoutedModel } | Extract<ModelResolution, { ok: false }>;

/**
 * Chooses where a node's model runs. `sdk` is the default routing (the SDK providers with the
 * settings' keys), for a router that serves only some nodes itself.
 */
export type ModelRouter = (nodeId: string, selection: ModelSelection, sdk: (nodeId: string, selection: ModelSelection) => ModelRoute) => ModelRoute;

export interface LlmBackendOptions {
  /** Keys, base URLs and the OpenAI API choice; read from the environment when absent. */
  readonly settings?: LlmSettings;
  readonly clock?: Pick<Clock, 'now' | 'sleep'>;
  readonly random?: () => number;
  readonly retryPolicy?: RetryPolicy;
  readonly limits?: AgentLimits;
  readonly hooks?: InProcessToolHooks;
  readonly shellTimeoutMs?: number;
  readonly outputCapBytes?: number;
  readonly createAdapter?: (provider: ProviderName, settings: LlmSettings) => ProviderAdapter | Promise<ProviderAdapter>;
  /** Routes nodes to adapters other than the SDK providers (VS Code's language models). */
  readonly router?: ModelRouter;
}

const defaultAgentLimits: AgentLimits = { maxTurns: 60, maxToolRounds: 50 };

/** The codergen backend that runs each LLM node as an agent session on a provider adapter (OpenAI, Anthropic, Gemini, or an injected router's). */
export class LlmBackend implements CodergenBackend {
  readonly name = 'llm';
  private readonly settings: LlmSettings;
  private readonly adapters = new Map<ProviderName, Promise<ProviderAdapter>>();

  constructor(private readonly options: LlmBackendOptions = {}) {
    this.settings = options.settings ?? settingsFromEnv();
  }

  preflight(nodes: readonly { node: GraphNode; model: ModelSelection }[]): PreflightProblem[] {
    return nodes.flatMap(({ node, model }) => {
      const route = this.route(node.id, model);
      return route.ok ? [] : [{ nodeId: node.id, provider: route.provider, message: route.message }];
    });
  }

  async run(request: CodergenRequest): Promise<CodergenResult> {
    const route = this.route(request.node.id, request.model);
    if (!route.ok) throw new ProviderError(route.message, route.provider, undefined, false);
    const { model, reasoningEffort } = route.value;
    const clock = this.options.clock ?? systemClock;
    const workspace = new Workspace(request.workDir);
    const limits = this.options.limits ?? defaultAgentLimits;
    const recorder = new SessionRecorder(request.stageDir, randomUUID(), request.emit, () => clock.now());
    const session = runAgentSession({
      nodeId: request.node.id,
      adapter: await route.value.adapter(),
      model,
      reasoningEffort,
      system: workerSystemPrompt({ nodeId: request.node.id, workDir: workspace.root, structured: request.responseSchema !== undefined, goalGate: request.goalGate }),
      prompt: request.prompt,
      ...(request.beforeTurn ? { beforeTurn: request.beforeTurn } : {}),
      history: request.fidelity === 'full' ? request.history : [],
      responseSchema: request.responseSchema,
      ...(request.verdictRequired ? { verdictRequired: request.verdictRequired } : {}),
      tools: request.artifacts ? [...workspaceTools, ...artifactTools] : workspaceTools,
      toolContext: {
        workspace,
        ...(request.artifacts ? { artifacts: request.artifacts } : {}),
        signal: request.signal,
        env: childEnvironment(),
        shellTimeoutMs: this.options.shellTimeoutMs ?? 120_000,
        outputCapBytes: this.options.outputCapBytes ?? 64 * 1024,
        ...(request.confinement.shell ? { confinement: request.confinement.shell } : {}),
      },
      inProcessHooks: this.options.hooks,
      shellHooks: { ...request.toolHooks, timeoutMs: this.options.shellTimeoutMs ?? 120_000, ...(request.confinement.hooks ? { confinement: request.confinement.hooks } : {}) },
      limits,
      retryPolicy: this.options.retryPolicy ?? retryPolicyWithFirstDelay(this.settings.retryDelayMs),
      clock,
      random: this.options.random,
      recorder,
      signal: request.signal,
    });
    const result = await finish(session);
    return {
      responseText: result.responseText,
      ...(result.reportedOutcome ? { reportedOutcome: result.reportedOutcome } : {}),
      ...(result.structuredOutput ? { structuredOutput: result.structuredOutput.value } : {}),
      usage: result.usage,
      sessionId: recorder.sessionId,
      exchange: result.exchange,
      ...(result.stopReason === 'turn_limit' || result.stopReason === 'tool_round_limit' ? { limitReached: limitDescriptions[result.stopReason](limits) } : {}),
    };
  }

  /** Where a node's model runs (the preflight, each run and the editor's hover ask the same question). */
  route(nodeId: string, selection: ModelSelection): ModelRoute {
    const sdk = (id: string, chosen: ModelSelection): ModelRoute => {
      const resolution = resolveModel(id, chosen, this.settings);
      if (!resolution.ok) return resolution;
      const { provider, ...rest } = resolution.value;
      return { ok: true, value: { ...rest, source: provider, adapter: () => this.adapter(provider) } };
    };
    return this.options.router ? this.options.router(nodeId, selection, sdk) : sdk(nodeId, selection);
  }

  private adapter(provider: ProviderName): Promise<ProviderAdapter> {
    let adapter = this.adapters.get(provider);
    if (!adapter) {
      adapter = Promise.resolve((this.options.createAdapter ?? createAdapter)(provider, this.settings));
      this.adapters.set(provider, adapter);
    }
    return adapter;
  }
}

/** Events are already recorded and forwarded by the session; this only drives it to its result. */
async function finish(session: AsyncGenerator<unknown, AgentSessionResult, void>): Promise<AgentSessionResult> {
  for (;;) {
    const step = await session.next();
    if (step.done) return step.value;
  }
}
