import type { ReportedOutcome } from '../runtime/backend';
import { isPlainObject } from './canonical-json';
import type { FailureBreaker } from './failure-breaker';
import type { InProcessToolHooks, ShellHookContext, ToolCallView, ToolOutput } from './tool-hooks';
import type { Confinement } from '../runtime/bubblewrap';
import { interpretPostHookResult, interpretPreHookResult, interpretShellPreHookOutput, runShellHook } from './tool-hooks';
import type { AgentTool, ToolContext } from './tools/agent-tool';
import { parseReportedOutcome, reportOutcomeToolName } from './tools/report-outcome';
import { ToolError } from './tools/tool-error';
import type { ToolCallPart, ToolResultPart } from './types';

export interface DispatchSettings {
  readonly nodeId: string;
  readonly tools: ReadonlyMap<string, AgentTool>;
  readonly context: ToolContext;
  readonly inProcessHooks?: InProcessToolHooks;
  readonly shellHooks: { readonly pre?: string; readonly post?: string; readonly timeoutMs: number; readonly confinement?: Confinement };
  readonly breaker: FailureBreaker;
  readonly record: (event: 'tool:pre' | 'tool:post', data: Record<string, unknown>) => void;
}

export interface DispatchResult {
  readonly result: ToolResultPart;
  /** Set when this call was a valid report_outcome. */
  readonly report?: ReportedOutcome;
}

const loggedOutputChars = 16_000;

/** Runs one tool call through hooks, the tool, the failure breaker and the session record. Never throws for tool failures. */
export async function dispatchToolCall(call: ToolCallPart, settings: DispatchSettings): Promise<DispatchResult> {
  const parsed = parseArguments(call.rawArguments);
  const view: ToolCallView = { callId: call.id, name: call.name, arguments: parsed.ok ? parsed.args : {} };
  const preRecord: Record<string, unknown> = { call_id: call.id, tool: call.name, arguments: parsed.ok ? parsed.args : call.rawArguments };
  let report: ReportedOutcome | undefined;
  let output: ToolOutput;

  const decided = parsed.ok ? await preHooks(view, settings, preRecord) : { kind: 'blocked' as const, output: failure(`${call.name}: arguments are not a JSON object: ${parsed.error}`) };
  settings.record('tool:pre', preRecord);
  // What actually ran: the post hook and the breaker see a hook's rewrite, not the model's original.
  const effective: ToolCallView = decided.kind === 'proceed' ? { ...view, arguments: decided.arguments } : view;
  if (decided.kind === 'blocked') output = decided.output;
  else {
    const executed = await execute(effective, settings);
    output = executed.output;
    report = executed.report;
  }

  const postRecord: Record<string, unknown> = { call_id: call.id, tool: call.name };
  if (output.isError) {
    const breaker = settings.breaker.recordFailure(call.name, parsed.ok ? effective.arguments : call.rawArguments, output.content);
    output = { content: breaker.text, isError: true };
    if (breaker.tripped) postRecord.breaker = { tripped: true, identical_failures: breaker.count };
  }
  output = await postHooks(effective, output, settings, postRecord);
  settings.record('tool:post', {
    ...postRecord,
    is_error: output.isError,
    output: output.content.length > loggedOutputChars ? `${output.content.slice(0, loggedOutputChars)}…[${output.content.length} chars]` : output.content,
  });
  return { result: { kind: 'tool_result', toolCallId: call.id, content: output.content, isError: output.isError }, ...(report && !output.isError ? { report } : {}) };
}

function failure(content: string): ToolOutput {
  return { content, isError: true };
}

function parseArguments(raw: string): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  try {
    const value: unknown = JSON.parse(raw.trim() === '' ? '{}' : raw);
    return isPlainObject(value) ? { ok: true, args: value } : { ok: false, error: `expected an object, got ${raw.slice(0, 200)}` };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

type PreHookOutcome = { readonly kind: 'proceed'; readonly arguments: Readonly<Record<string, unknown>> } | { readonly kind: 'blocked'; readonly output: ToolOutput };

async function preHooks(view: ToolCallView, settings: DispatchSettings, record: Record<string, unknown>): Promise<PreHookOutcome> {
  let args = view.arguments;
  if (settings.inProcessHooks?.pre) {
    let hookResult: unknown;
    try {
      hookResult = await settings.inProcessHooks.pre(view);
    } catch (error) {
      // A gate that cannot decide does not wave the call through.
      record.denied = `tool:pre hook failed: ${(error as Error).message}`;
      return { kind: 'blocked', output: failure(`${view.name}: tool:pre hook failed: ${(error as Error).message}`) };
    }
    const verdict = interpretPreHookResult(view, hookResult);
    if (verdict.kind === 'deny') {
      record.denied = verdict.reason;
      return { kind: 'blocked', output: failure(`${view.name}: denied by tool:pre hook: ${verdict.reason}`) };
    }
    if (verdict.rewritten) {
      record.rewritten_arguments = verdict.arguments;
      args = verdict.arguments;
    }
  }
  if (settings.shellHooks.pre) {
    const hook = await runShellHook(settings.shellHooks.pre, { hook: 'pre', nodeId: settings.nodeId, call: { ...view, arguments: args } }, hookContext(settings));
    record.shell_pre_hook = { exit_code: hook.exitCode, output: hook.output };
    if (hook.exitCode !== 0) {
      record.skipped = true;
      return { kind: 'blocked', output: failure(`${view.name}: skipped by tool_hooks.pre (exit ${hook.exitCode ?? 'timeout'})${hook.output ? `: ${hook.output}` : ''}`) };
    }
    const verdict = interpretShellPreHookOutput({ ...view, arguments: args }, hook.stdout);
    if (verdict.rewritten) {
      record.rewritten_arguments = verdict.arguments;
      args = verdict.arguments;
    }
  }
  return { kind: 'proceed', arguments: args };
}

async function postHooks(view: ToolCallView, output: ToolOutput, settings: DispatchSettings, record: Record<string, unknown>): Promise<ToolOutput> {
  let current = output;
  if (settings.inProcessHooks?.post) {
    try {
      const rewritten = interpretPostHookResult(current, await settings.inProcessHooks.post(view, current));
      if (rewritten !== current) record.rewritten_by_hook = true;
      current = rewritten;
    } catch (error) {
      record.post_hook_error = (error as Error).message;
    }
  }
  if (settings.shellHooks.post) {
    // Post hooks audit; their failure is recorded and never blocks the call.
    const hook = await runShellHook(settings.shellHooks.post, { hook: 'post', nodeId: settings.nodeId, call: view, output: current }, hookContext(settings));
    record.shell_post_hook = { exit_code: hook.exitCode, output: hook.output };
  }
  return current;
}

function hookContext(settings: DispatchSettings): ShellHookContext {
  const { confinement, timeoutMs } = settings.shellHooks;
  return { cwd: settings.context.workspace.root, env: settings.context.env, signal: settings.context.signal, timeoutMs, ...(confinement ? { confinement } : {}) };
}

async function execute(view: ToolCallView, settings: DispatchSettings): Promise<{ output: ToolOutput; report?: ReportedOutcome }> {
  try {
    if (view.name === reportOutcomeToolName) {
      const report = parseReportedOutcome(view.arguments);
      return { output: { content: `recorded: ${report.status}`, isError: false }, report };
    }
    const tool = settings.tools.get(view.name);
    if (!tool) return { output: failure(`unknown tool '${view.name}'; available: ${[...settings.tools.keys(), reportOutcomeToolName].join(', ')}`) };
    return { output: { content: await tool.execute(view.arguments, settings.context), isError: false } };
  } catch (error) {
    if (error instanceof ToolError) return { output: failure(error.message) };
    return { output: failure(`${view.name}: internal error: ${(error as Error).message}`) };
  }
}
