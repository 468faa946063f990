import { canonicalJson, isPlainObject } from './canonical-json';
import { runShellCommand } from '../runtime/process';
import type { Confinement } from '../runtime/bubblewrap';

export interface ToolCallView {
  readonly callId: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

export interface ToolOutput {
  readonly content: string;
  readonly isError: boolean;
}

/**
 * In-process hooks (the VS Code extension, tests). `pre` may return `{deny}` or `{arguments}`;
 * anything else — including a malformed result — leaves the call as the model made it.
 */
export interface InProcessToolHooks {
  pre?(call: ToolCallView): unknown;
  post?(call: ToolCallView, output: ToolOutput): unknown;
}

export type PreHookVerdict =
  | { readonly kind: 'proceed'; readonly arguments: Readonly<Record<string, unknown>>; readonly rewritten: boolean }
  | { readonly kind: 'deny'; readonly reason: string };

/**
 * Reads a pre hook's result. A rewrite is adopted only when it is a real object whose content
 * differs: a hook that round-trips the payload returns a new but equal object, which is no rewrite.
 */
export function interpretPreHookResult(call: ToolCallView, result: unknown): PreHookVerdict {
  if (isPlainObject(result)) {
    if (typeof result.deny === 'string') return { kind: 'deny', reason: result.deny };
    const rewrite = result.arguments;
    if (isPlainObject(rewrite) && canonicalJson(rewrite) !== canonicalJson(call.arguments)) return { kind: 'proceed', arguments: rewrite, rewritten: true };
  }
  return { kind: 'proceed', arguments: call.arguments, rewritten: false };
}

export function interpretPostHookResult(output: ToolOutput, result: unknown): ToolOutput {
  if (isPlainObject(result) && typeof result.content === 'string') {
    return { content: result.content, isError: typeof result.isError === 'boolean' ? result.isError : output.isError };
  }
  return output;
}

export interface ShellHookRun {
  readonly exitCode: number | null;
  /** stdout and stderr together, for the record and the model. */
  readonly output: string;
  readonly stdout: string;
}

/**
 * A shell pre hook that exits 0 may rewrite the call by printing `{"arguments": {...}}` on stdout
 * (the same rule as an in-process hook's result). Any other stdout — log lines, nothing — leaves
 * the call as the model made it; exit codes keep their meaning (non-zero skips the call).
 */
export function interpretShellPreHookOutput(call: ToolCallView, stdout: string): PreHookVerdict & { readonly kind: 'proceed' } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return { kind: 'proceed', arguments: call.arguments, rewritten: false };
  }
  const rewrite = isPlainObject(parsed) ? { arguments: parsed.arguments } : undefined;
  const verdict = interpretPreHookResult(call, rewrite);
  return verdict.kind === 'proceed' ? verdict : { kind: 'proceed', arguments: call.arguments, rewritten: false };
}

export interface ShellHookContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The hooks' sandbox; absent: unconfined. */
  readonly confinement?: Confinement;
}

/**
 * Canonical §9.7 shell hook: tool metadata in ATTRACTOR_* environment variables and as JSON on
 * stdin. The command text is the graph author's; nothing from the model is interpolated into it.
 */
export async function runShellHook(
  command: string,
  payload: { readonly hook: 'pre' | 'post'; readonly nodeId: string; readonly call: ToolCallView; readonly output?: ToolOutput },
  context: ShellHookContext,
): Promise<ShellHookRun> {
  const env: NodeJS.ProcessEnv = {
    ...context.env,
    ATTRACTOR_HOOK: payload.hook,
    ATTRACTOR_NODE_ID: payload.nodeId,
    ATTRACTOR_TOOL_NAME: payload.call.name,
    ATTRACTOR_TOOL_CALL_ID: payload.call.callId,
    ...(payload.output ? { ATTRACTOR_TOOL_IS_ERROR: String(payload.output.isError) } : {}),
  };
  const stdin = JSON.stringify({
    hook: payload.hook,
    node_id: payload.nodeId,
    tool: payload.call.name,
    call_id: payload.call.callId,
    arguments: payload.call.arguments,
    ...(payload.output ? { result: payload.output.content, is_error: payload.output.isError } : {}),
  });
  const { confinement } = context;
  const result = await runShellCommand(command, { cwd: context.cwd, env, stdin, timeoutMs: context.timeoutMs, outputCapBytes: 16 * 1024, signal: context.signal, ...(confinement ? { confinement } : {}) });
  return { exitCode: result.timedOut ? null : result.exitCode, output: `${result.stdout}${result.stderr}`.trim(), stdout: result.stdout.trim() };
}
