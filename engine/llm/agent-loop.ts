import type { AgentEvent, ReportedOutcome, TranscriptMessage, Usage } from '../runtime/backend';
import { ProviderError } from '../runtime/backend';
import { addUsage, noUsage } from '../runtime/usage';
import { linkedSignal } from './abort-link';
import type { Clock } from '../runtime/clock';
import { FailureBreaker } from './failure-breaker';
import { cancelledFrom, CancelledError } from './provider-errors';
import type { RetryPolicy } from '../runtime/retry-policy';
import { withRetries } from '../runtime/retry-policy';
import type { SessionRecorder } from './session-recorder';
import { parseJsonObjectText } from './structured-output';
import type { DispatchResult, DispatchSettings } from './tool-dispatch';
import { dispatchToolCall } from './tool-dispatch';
import type { InProcessToolHooks } from './tool-hooks';
import type { AgentTool, ToolContext } from './tools/agent-tool';
import { reportOutcomeDefinition, reportOutcomeToolName } from './tools/report-outcome';
import type { LlmRequest, LlmResponse, Message, ProviderAdapter, ReasoningEffort, ToolCallPart, ToolChoice } from './types';
import { responseText, toolCalls } from './types';

export interface AgentLimits {
  /** Provider calls per node. */
  readonly maxTurns: number;
  /** Assistant responses whose tool calls get executed, per node. */
  readonly maxToolRounds: number;
}

export interface AgentSessionConfig {
  readonly nodeId: string;
  readonly adapter: ProviderAdapter;
  readonly model: string;
  readonly reasoningEffort?: ReasoningEffort;
  readonly system: string;
  readonly prompt: string;
  readonly history: readonly TranscriptMessage[];
  readonly responseSchema?: Readonly<Record<string, unknown>>;
  /** Why the last attempt did not count: told to the model, which must then end with report_outcome. */
  readonly verdictRequired?: string;
  readonly tools: readonly AgentTool[];
  readonly toolContext: ToolContext;
  readonly inProcessHooks?: InProcessToolHooks;
  readonly shellHooks: { readonly pre?: string; readonly post?: string; readonly timeoutMs: number };
  readonly limits: AgentLimits;
  readonly retryPolicy: RetryPolicy;
  readonly clock: Pick<Clock, 'sleep'>;
  readonly random?: () => number;
  readonly recorder: SessionRecorder;
  readonly signal: AbortSignal;
  /** Awaited before each model call; a debugger pauses the node here. */
  readonly beforeTurn?: (turn: number) => Promise<void>;
}

type AgentStopReason = 'completed' | 'reported' | 'turn_limit' | 'tool_round_limit';

export interface AgentSessionResult {
  /** The text of the final assistant response (empty when it had none). */
  readonly responseText: string;
  readonly reportedOutcome?: ReportedOutcome;
  /** Present when the node had a response_schema and the final text parsed as JSON. */
  readonly structuredOutput?: { readonly value: unknown };
  /** Every provider request of the session, retried ones included. */
  readonly usage: Usage;
  readonly turns: number;
  readonly toolRounds: number;
  readonly stopReason: AgentStopReason;
  /** The session's messages from its prompt on, ending where every tool call has its result. */
  readonly exchange: readonly Message[];
}

const finalAnswerRequest = 'Give your final answer now: only JSON matching the required schema, nothing else.';
const verdictRequest = 'Your answer did not count: this node needs an explicit verdict. Call report_outcome now with your status.';

export const limitDescriptions: Readonly<Record<'turn_limit' | 'tool_round_limit', (limits: AgentLimits) => string>> = {
  turn_limit: (limits) => `the agent hit the turn limit (${limits.maxTurns} model calls) before it finished`,
  tool_round_limit: (limits) => `the agent hit the tool-round limit (${limits.maxToolRounds} rounds) before it finished`,
};

/**
 * One node's agent session: call the model, run the tools it asks for, feed the results back,
 * until it answers without tools, reports an outcome, or hits a limit. Every event is recorded
 * (and yielded); `session:end` is recorded in `finally`, so cancellation, errors and a consumer
 * that stops iterating all leave a balanced record.
 */
export async function* runAgentSession(config: AgentSessionConfig): AsyncGenerator<AgentEvent, AgentSessionResult, void> {
  const pending: AgentEvent[] = [];
  const note = (event: AgentEvent['event'], data: Record<string, unknown>): void => {
    pending.push(config.recorder.record(event, data));
  };
  let endData: Record<string, unknown> = { status: 'abandoned' };
  let usage: Usage = noUsage;
  const spend = (spent: Usage): void => {
    usage = addUsage(usage, spent);
  };
  note('session:start', { node_id: config.nodeId, provider: config.adapter.provider, api: config.adapter.api, model: config.model });
  try {
    yield* pending.splice(0);
    const prompt = config.verdictRequired ? `${config.prompt}\n\n---\n\nYour previous attempt at this node did not count: ${config.verdictRequired}. End this attempt by calling report_outcome with an explicit status.` : config.prompt;
    const messages: Message[] = [...config.history, { role: 'user', content: [{ kind: 'text', text: prompt }] }];
    const exchangeStart = config.history.length;
    note('prompt:submit', { prompt, history_messages: config.history.length, model: config.model, provider: config.adapter.provider });
    yield* pending.splice(0);

    const dispatch: DispatchSettings = {
      nodeId: config.nodeId,
      tools: new Map(config.tools.map((tool) => [tool.definition.name, tool])),
      context: config.toolContext,
      inProcessHooks: config.inProcessHooks,
      shellHooks: config.shellHooks,
      breaker: new FailureBreaker(),
      record: note,
    };
    const toolDefinitions = [...config.tools.map((tool) => tool.definition), reportOutcomeDefinition];
    let turns = 0;
    let toolRounds = 0;
    let report: ReportedOutcome | undefined;
    let final: LlmResponse | undefined;
    let stopReason: AgentStopReason = 'completed';
    /** Where the exchange ends with every tool call answered (a limit can leave calls unrun). */
    let answeredUpTo = messages.length;

    const call = async (tools: LlmRequest['tools'], toolChoice?: ToolChoice): Promise<LlmResponse> => {
      await config.beforeTurn?.(turns + 1);
      turns++;
      note('turn', { turn: turns });
      const response = await complete(config, { model: config.model, system: config.system, messages, tools, ...(toolChoice ? { toolChoice } : {}), responseSchema: config.responseSchema, reasoningEffort: config.reasoningEffort }, note, spend);
      messages.push(response.message);
      if (toolCalls(response.message).length === 0) answeredUpTo = messages.length;
      note('usage', {
        turn: turns,
        model: response.model,
        input_tokens: response.usage?.inputTokens ?? 'unknown',
        output_tokens: response.usage?.outputTokens ?? 'unknown',
        reasoning_tokens: response.usage?.reasoningTokens,
        cache_read_tokens: response.usage?.cacheReadTokens,
        cost_usd: response.costUsd,
      });
      return response;
    };
    const runTools = async (calls: readonly ToolCallPart[]): Promise<void> => {
      const results = await runBatch(calls, dispatch);
      if (config.signal.aborted) throw cancelledFrom(config.signal);
      messages.push({ role: 'user', content: results.map((r) => r.result) });
      answeredUpTo = messages.length;
      report = results.reduce<ReportedOutcome | undefined>((last, r) => r.report ?? last, report);
    };

    for (;;) {
      if (turns >= config.limits.maxTurns) {
        stopReason = 'turn_limit';
        break;
      }
      final = await call(toolDefinitions);
      yield* pending.splice(0);
      const calls = toolCalls(final.message);
      if (calls.length === 0) break;
      if (toolRounds >= config.limits.maxToolRounds) {
        stopReason = 'tool_round_limit';
        break;
      }
      toolRounds++;
      await runTools(calls);
      yield* pending.splice(0);
      // A successful report ends the node once the whole declared batch has run.
      if (report) {
        stopReason = 'reported';
        break;
      }
    }
    if (stopReason !== 'completed' && stopReason !== 'reported') note('turn', { limit: stopReason, turns, tool_rounds: toolRounds });

    // A retried goal gate must not end in prose again: one call that can only report the verdict.
    if (config.verdictRequired && stopReason === 'completed' && turns < config.limits.maxTurns) {
      messages.push({ role: 'user', content: [{ kind: 'text', text: verdictRequest }] });
      final = await call([reportOutcomeDefinition], { mode: 'named', name: reportOutcomeToolName });
      const calls = toolCalls(final.message);
      if (calls.length > 0) {
        await runTools(calls);
        if (report) stopReason = 'reported';
      }
      yield* pending.splice(0);
    }

    let text = final ? responseText(final.message) : '';
    let structured = config.responseSchema ? parseJsonObjectText(text) : undefined;
    if (config.responseSchema && structured && !structured.ok && stopReason === 'completed' && turns < config.limits.maxTurns) {
      messages.push({ role: 'user', content: [{ kind: 'text', text: finalAnswerRequest }] });
      final = await call([]);
      text = responseText(final.message);
      structured = parseJsonObjectText(text);
    }
    const result: AgentSessionResult = {
      responseText: text,
      ...(report ? { reportedOutcome: report } : {}),
      ...(structured?.ok ? { structuredOutput: { value: structured.value } } : {}),
      usage,
      turns,
      toolRounds,
      stopReason,
      exchange: messages.slice(exchangeStart, answeredUpTo),
    };
    note('prompt:complete', {
      response_text: text,
      finish_reason: final?.finishReason,
      stop_reason: stopReason,
      turns,
      tool_rounds: toolRounds,
      reported_status: report?.status,
    });
    endData = { status: 'completed', stop_reason: stopReason, turns, tool_rounds: toolRounds, ...usageData(usage) };
    yield* pending.splice(0);
    return result;
  } catch (error) {
    const cancelled = error instanceof CancelledError || config.signal.aborted;
    endData = { status: cancelled ? 'cancelled' : 'error', error: (error as Error).message, ...usageData(usage) };
    if (cancelled) throw error instanceof CancelledError ? error : cancelledFrom(config.signal);
    // The engine sums a failed attempt's spending into the node's usage.
    throw error instanceof ProviderError ? new ProviderError(error.message, error.provider, error.status, error.transient, error.retryAfterMs, usage) : error;
  } finally {
    config.recorder.record('session:end', endData);
  }
}

function usageData(usage: Usage): Record<string, unknown> {
  return { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cost_usd: usage.costUsd, llm_requests: usage.requests };
}

/** Batches with report_outcome run in declared order (the last valid report wins); others run in parallel. */
async function runBatch(calls: readonly ToolCallPart[], dispatch: DispatchSettings): Promise<DispatchResult[]> {
  if (!calls.some((call) => call.name === reportOutcomeToolName)) return Promise.all(calls.map((call) => dispatchToolCall(call, dispatch)));
  const results: DispatchResult[] = [];
  for (const call of calls) results.push(await dispatchToolCall(call, dispatch));
  return results;
}

/** One provider call, streamed, with transient failures retried per the policy. */
async function complete(
  config: AgentSessionConfig,
  request: LlmRequest,
  note: (event: AgentEvent['event'], data: Record<string, unknown>) => void,
  spend: (usage: Usage) => void,
): Promise<LlmResponse> {
  try {
    return await withRetries(
      async () => {
        let response: LlmResponse | undefined;
        const call = linkedSignal(config.signal);
        // Every request counts, a failed one too; only a reply says what it cost.
        spend({ ...noUsage, requests: 1 });
        try {
          for await (const event of config.adapter.stream(request, call.signal)) {
            if (event.type === 'text_delta') note('text:delta', { delta: event.delta });
            else if (event.type === 'finish') response = event.response;
          }
        } finally {
          call.dispose();
        }
        if (config.signal.aborted) throw cancelledFrom(config.signal);
        if (!response) throw new Error(`${config.adapter.provider}: the stream ended without a response`);
        spend({ inputTokens: response.usage?.inputTokens ?? 'unknown', outputTokens: response.usage?.outputTokens ?? 'unknown', costUsd: response.costUsd, requests: 0 });
        return response;
      },
      {
        policy: config.retryPolicy,
        clock: config.clock,
        signal: config.signal,
        random: config.random,
        onRetry: ({ attempt, delayMs, error }) => note('turn', { provider_retry: attempt, delay_ms: delayMs, error: error.message, status: error.status }),
      },
    );
  } catch (error) {
    if (config.signal.aborted) throw cancelledFrom(config.signal);
    throw error;
  }
}
