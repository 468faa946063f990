/**
 * What failed inside a node, for triage without opening the stage directory (ledger §30,
 * `failed_step`): a tool's command with the tails of its output, an LLM node's own prompt (expanded,
 * without the fidelity preamble prompt.md also holds) with the tail of its response and the error. Wire names are the ledger's. The encoded payload stays under
 * FAILED_STEP_CAP_BYTES: past it the tails are dropped for `verification_gap`; the heads alone
 * (500 characters each, at most 6 bytes a character once JSON-escaped) always fit.
 */
export type FailedStep = ToolFailedStep | LlmFailedStep;

/** Either the output tails (strings, possibly empty) or the mark that they were dropped for size. */
type Tails<K extends string> = { readonly [key in K]: string } | { readonly verification_gap: { readonly log_filtered: true } };

export type ToolFailedStep = {
  readonly command: string;
  /** null when a signal ended the command. */
  readonly exit_code: number | null;
  readonly signal?: string;
} & Tails<'stdout_tail' | 'stderr_tail'>;

export type LlmFailedStep = {
  readonly prompt: string;
  readonly error: string;
} & Tails<'response_tail'>;

const HEAD_CHARS = 500;
const TAIL_CHARS = 2000;
const FAILED_STEP_CAP_BYTES = 8192;
const filtered = { verification_gap: { log_filtered: true } } as const;

export function toolFailedStep(failure: { command: string; exitCode: number | null; signal?: string; stdout: string; stderr: string }): ToolFailedStep {
  const head = {
    command: failure.command.slice(0, HEAD_CHARS),
    exit_code: failure.exitCode,
    ...(failure.exitCode === null && failure.signal ? { signal: failure.signal } : {}),
  };
  const full = { ...head, stdout_tail: failure.stdout.slice(-TAIL_CHARS), stderr_tail: failure.stderr.slice(-TAIL_CHARS) };
  return fits(full) ? full : { ...head, ...filtered };
}

/** `response` is "" when the model never answered (the call failed). */
export function llmFailedStep(failure: { prompt: string; response: string; error: string }): LlmFailedStep {
  const head = { prompt: failure.prompt.slice(0, HEAD_CHARS), error: failure.error.slice(0, HEAD_CHARS) };
  const full = { ...head, response_tail: failure.response.slice(-TAIL_CHARS) };
  return fits(full) ? full : { ...head, ...filtered };
}

function fits(step: FailedStep): boolean {
  return Buffer.byteLength(JSON.stringify(step)) <= FAILED_STEP_CAP_BYTES;
}
