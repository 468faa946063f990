import type { HumanQuestion } from '../../engine/runtime/events';
import type { DurableRunResult, RunRequest } from './run-request';
import { RESTATE_SERVICE } from './restate-address';

/** Restate's ingress answered an error status (a handler's terminal error carries its own, e.g. 409). */
export class RestateRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A run's workflow seen through Restate's ingress, over plain HTTP: submitting and answering need no SDK. */
export class DurableRunClient {
  constructor(
    private readonly ingress: URL,
    readonly runId: string,
  ) {}

  /** Starts the run's workflow; a run id already started is refused. Returns Restate's invocation id (what its cancel takes). */
  async submit(request: RunRequest): Promise<string> {
    const response = await this.post(`${this.handler('run')}/send`, request);
    const body = (await response.json()) as { status?: string; invocationId?: string };
    if (body.status === 'PreviouslyAccepted') throw new Error(`a run with id ${this.runId} was already submitted`);
    return body.invocationId ?? '';
  }

  /** The gate the run waits at, or null. */
  async openGate(): Promise<HumanQuestion | null> {
    return (await (await this.post(this.handler('gate'), null)).json()) as HumanQuestion | null;
  }

  /** Answers `gate` with the body `attractor serve` takes: `{"choice": …}`, `{"text": …}` or `{"skipped": true}`. */
  async answer(gate: string, reply: Readonly<Record<string, unknown>>): Promise<void> {
    await this.post(this.handler('answer'), { ...reply, gate });
  }

  /** Cancels the run (Restate's cancel of its invocation, asked through the workflow's shared `cancel` handler). */
  async cancel(): Promise<void> {
    await this.post(this.handler('cancel'), null);
  }

  /** Waits for the run to end; a run Restate refused or cancelled rejects with its reason. */
  async result(signal?: AbortSignal): Promise<DurableRunResult> {
    const response = await fetch(new URL(`restate/workflow/${RESTATE_SERVICE}/${encodeURIComponent(this.runId)}/attach`, this.ingress), signal ? { signal } : {});
    if (!response.ok) throw new RestateRefusal(response.status, `the run ${this.runId} did not finish: ${await failureText(response)}`);
    return (await response.json()) as DurableRunResult;
  }

  private handler(name: string): string {
    return `${RESTATE_SERVICE}/${encodeURIComponent(this.runId)}/${name}`;
  }

  private async post(pathname: string, body: unknown): Promise<Response> {
    const url = new URL(pathname, this.ingress);
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    } catch (error) {
      throw new Error(`cannot reach Restate's ingress at ${this.ingress.origin}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`, { cause: error });
    }
    if (!response.ok) throw new RestateRefusal(response.status, `Restate refused POST ${url.pathname}: ${await failureText(response)}`);
    return response;
  }
}

async function failureText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const { message } = JSON.parse(text) as { message?: unknown };
    if (typeof message === 'string') return `${response.status} ${message}`;
  } catch {
    // Not Restate's JSON error body: the text says it.
  }
  return `${response.status} ${text}`;
}
