import type { AgentEvent, ReportedOutcome, TranscriptMessage } from '../runtime/backend';
import { linkedSignal } from './abort-link';
import type { Clock } from './clock';
import { FailureBreaker } from './failure-breaker';
import { cancelledFrom, CancelledError } from './provider-errors';
import type { RetryPolicy } from './retry-policy';
import { withRetries } from './retry-policy';
import type { SessionRecorder } from './session-recorder';
import { parseJsonObjectText } from './structured-output';
import type { DispatchResult, DispatchSettings } from './tool-dispatch';
import { dispatchToolCall } from './tool-dispatch';
import type { InProcessToolHooks } from './tool-hooks';
import type { AgentTool, ToolContext } from './tools/agent-tool';
import { reportOutcomeDefinition, reportOutcomeToolName } from './tools/report-outcome';
import type { LlmRequest, LlmResponse, Message, ProviderAdapter, ReasoningEffort, TokenUsage, ToolCallPart } from './types';
import { addUsage, responseText, toolCalls } from './types';

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
  readonly tools: readonly AgentTool[];
  readonly toolContext: ToolContext;
  readonly inProcessHooks?: InProcessToolHooks;
  readonly shellHooks: { readonly pre?: string; readonly post?: string; readonly timeoutMs: number };
  readonly limits: AgentLimits;
  readonly retryPolicy: RetryPolicy;
  readonly clock: Clock;
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
  readonly usage: TokenUsage;
  readonly costUsd: number | 'unknown';
  readonly turns: number;
  readonly toolRounds: number;
  readonly stopReason: AgentStopReason;
}

const finalAnswerRequest = 'Give your final answer now: only JSON matching the required schema, nothing else.';

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
  note('session:start', { node_id: config.nodeId, provider: config.adapter.provider, api: config.adapter.api, model: config.model });
  try {
    yield* pending.splice(0);
    const messages: Message[] = [...config.history.map(transcriptMessage), { role: 'user', content: [{ kind: 'text', text: config.prompt }] }];
    note('prompt:submit', { prompt: config.prompt, history_messages: config.history.length, model: config.model, provider: config.adapter.provider });
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
    let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    let cost: number | 'unknown' = 0;
    let turns = 0;
    let toolRounds = 0;
    let report: ReportedOutcome | undefined;
    let final: LlmResponse | undefined;
    let stopReason: AgentStopReason = 'completed';

    const call = async (tools: LlmRequest['tools']): Promise<LlmResponse> => {
      await config.beforeTurn?.(turns + 1);
      turns++;
      note('turn', { turn: turns });
      const response = await complete(config, { model: config.model, system: config.system, messages, tools, responseSchema: config.responseSchema, reasoningEffort: config.reasoningEffort }, note);
      messages.push(response.message);
      usage = addUsage(usage, response.usage);
      cost = cost === 'unknown' || response.costUsd === 'unknown' ? 'unknown' : cost + response.costUsd;
      note('usage', {
        turn: turns,
        model: response.model,
        input_tokens: response.usage.inputTokens,
        output_tokens: response.usage.outputTokens,
        reasoning_tokens: response.usage.reasoningTokens,
        cache_read_tokens: response.usage.cacheReadTokens,
        cost_usd: response.costUsd,
      });
      return response;
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
      const results = await runBatch(calls, dispatch);
      if (config.signal.aborted) throw cancelledFrom(config.signal);
      messages.push({ role: 'user', content: results.map((r) => r.result) });
      report = results.reduce<ReportedOutcome | undefined>((last, r) => r.report ?? last, report);
      yield* pending.splice(0);
      // A successful report ends the node once the whole declared batch has run.
      if (results.some((r) => r.report)) {
        stopReason = 'reported';
        break;
      }
    }
    if (stopReason !== 'completed') note('turn', { limit: stopReason, turns, tool_rounds: toolRounds });

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
      costUsd: cost,
      turns,
      toolRounds,
      stopReason,
    };
    note('prompt:complete', {
      response_text: text,
      finish_reason: final?.finishReason,
      stop_reason: stopReason,
      turns,
      tool_rounds: toolRounds,
      reported_status: report?.status,
    });
    endData = { status: 'completed', stop_reason: stopReason, turns, tool_rounds: toolRounds, input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cost_usd: cost };
    yield* pending.splice(0);
    return result;
  } catch (error) {
    const cancelled = error instanceof CancelledError || config.signal.aborted;
    endData = { status: cancelled ? 'cancelled' : 'error', error: (error as Error).message };
    throw cancelled && !(error instanceof CancelledError) ? cancelledFrom(config.signal) : error;
  } finally {
    config.recorder.record('session:end', endData);
  }
}

function transcriptMessage(message: TranscriptMessage): Message {
  return { role: message.role, content: [{ kind: 'text', text: message.content }] };
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
): Promise<LlmResponse> {
  try {
    return await withRetries(
      async () => {
        let response: LlmResponse | undefined;
        const call = linkedSignal(config.signal);
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
