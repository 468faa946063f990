/** Canonical §5.2 stage statuses, lower case as they appear in status.json and conditions. */
export const stageStatuses = ['success', 'partial_success', 'retry', 'fail', 'skipped'] as const;
export type StageStatus = (typeof stageStatuses)[number];

export function isStageStatus(value: unknown): value is StageStatus {
  return typeof value === 'string' && (stageStatuses as readonly string[]).includes(value);
}

export function isSuccessful(status: StageStatus): boolean {
  return status === 'success' || status === 'partial_success';
}
