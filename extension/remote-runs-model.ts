// The Runs view's model of a connected server: its runs as `GET /pipelines` lists them, kept
// current by `refresh`. No `vscode`; the tree provider renders these.
import type { ServeClient } from '../host/serve/serve-client';
import type { PipelineSummary } from '../host/protocol/serve-api';

export type ServerRunsState = { readonly kind: 'listed'; readonly runs: readonly PipelineSummary[] } | { readonly kind: 'unreachable'; readonly problem: string };

export class ServerRuns {
  private current: ServerRunsState = { kind: 'listed', runs: [] };
  private shown = JSON.stringify(this.current);

  constructor(
    readonly client: ServeClient,
    /** Called when a refresh changed what the view shows. */
    private readonly onChange: () => void,
  ) {}

  get state(): ServerRunsState {
    return this.current;
  }

  /** Lists the server's runs, newest first; an error becomes the state (the view shows why). */
  async refresh(): Promise<void> {
    let next: ServerRunsState;
    try {
      next = { kind: 'listed', runs: [...(await this.client.list())].sort((a, b) => b.createdAt.localeCompare(a.createdAt)) };
    } catch (error) {
      next = { kind: 'unreachable', problem: error instanceof Error ? error.message : String(error) };
    }
    this.current = next;
    const shown = JSON.stringify(next);
    if (shown === this.shown) return;
    this.shown = shown;
    this.onChange();
  }
}

/** The tree item's label: the graph's name once the run has started, else the server's id. */
export function remoteRunLabel(run: PipelineSummary): string {
  return run.graphName ?? run.id;
}

/** "running · iteration 2 · at gate · 1 question waiting", "queued · waiting for a slot (#2)", "success", "fail: reason". */
export function describeRemoteRun(run: PipelineSummary): string {
  const parts: string[] = [run.status === 'fail' && run.failureReason ? `fail: ${run.failureReason}` : run.status];
  if (run.iteration > 0) parts.push(`iteration ${run.iteration}`);
  if (run.status === 'running' && run.currentNodes.length > 0) parts.push(`at ${run.currentNodes.join(', ')}`);
  if (run.pendingQuestions > 0) parts.push(`${run.pendingQuestions} question${run.pendingQuestions === 1 ? '' : 's'} waiting`);
  if (run.queuePosition !== null) parts.push(`waiting for a slot (${run.queuePosition === 1 ? 'next' : `#${run.queuePosition}`})`);
  return parts.join(' · ');
}
