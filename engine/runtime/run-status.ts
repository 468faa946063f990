/** How a run ends (canonical words, as checkpoint.json, `run:end` and the HTTP API spell them); a cancelled run is resumable. */
export type RunEnd = 'success' | 'fail' | 'cancelled';

/** A run's status: running, or how it ended. The one status of a run; a view adds only what it observes (host/run-directory/run-summary.ts). */
export type RunStatus = 'running' | RunEnd;

export const runStatuses = ['running', 'success', 'fail', 'cancelled'] as const satisfies readonly RunStatus[];

/** The words a person reads for a status; the records keep the canonical ones. */
export const runStatusWords = { running: 'running', success: 'succeeded', fail: 'failed', cancelled: 'cancelled' } as const satisfies Record<RunStatus, string>;

export const runStatusWordList = runStatuses.map((status) => runStatusWords[status]);

/** "succeeded", "cancelled (resumable)", "failed: why": a run's end in one line, as every face reports it. */
export function describeRunEnd(end: RunEnd, failureReason?: string): string {
  if (end === 'fail') return `${runStatusWords.fail}: ${failureReason ?? ''}`;
  return end === 'cancelled' ? `${runStatusWords.cancelled} (resumable)` : runStatusWords[end];
}
