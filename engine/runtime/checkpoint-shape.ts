import { isRecord } from '../model/json';
import { isStageStatus } from '../model/stage-status';
import { CHECKPOINT_FORMAT } from './state';
import { runStatuses } from './run-status';

/**
 * The problems that make parsed checkpoint JSON unusable as a RunState, each naming the field's
 * path (`nodeOutcomes.plan.status`); empty when it is one. A resume checks this before anything
 * runs: a checkpoint edited by hand or by a hostile commit must be refused, not half-run.
 */
export function checkpointShapeProblems(data: unknown): string[] {
  if (!isRecord(data)) return ['the checkpoint is not a JSON object'];
  const problems: string[] = [];
  const expect = (ok: boolean, field: string, wanted: string): void => {
    if (!ok) problems.push(`\`${field}\` is ${describe(data[field])}, expected ${wanted}`);
  };
  const optional = (key: string, check: (value: unknown) => boolean, wanted: string): void => {
    if (data[key] !== undefined) expect(check(data[key]), key, wanted);
  };

  expect(data.format === CHECKPOINT_FORMAT, 'format', `"${CHECKPOINT_FORMAT}"`);
  for (const key of ['runId', 'graphHash', 'graphName', 'cwd', 'nextNodeId', 'startedAt', 'updatedAt']) expect(typeof data[key] === 'string', key, 'a string');
  expect((runStatuses as readonly unknown[]).includes(data.status), 'status', runStatuses.map((status) => JSON.stringify(status)).join(', '));
  optional('pid', isCount, 'a non-negative integer');
  for (const key of ['iteration', 'step']) expect(isCount(data[key]), key, 'a non-negative integer');
  expect(typeof data.elapsedBeforeMs === 'number' && Number.isFinite(data.elapsedBeforeMs) && data.elapsedBeforeMs >= 0, 'elapsedBeforeMs', 'a non-negative number');
  for (const key of ['sourcePath', 'failureReason', 'lastCompletedNodeId', 'pendingFailure']) optional(key, (v) => typeof v === 'string', 'a string');
  optional('incomingEdge', (v) => isRecord(v) && isCount(v.index) && typeof v.from === 'string' && typeof v.to === 'string', 'an edge {index, from, to}');

  expect(Array.isArray(data.completedNodes) && data.completedNodes.every((id) => typeof id === 'string'), 'completedNodes', 'a list of node ids');
  expect(isRecord(data.context), 'context', 'an object');
  eachEntry(data, 'params', problems, (value) => typeof value === 'string', 'a string');
  eachEntry(data, 'retryCounts', problems, isCount, 'a non-negative integer');
  eachEntry(data, 'visits', problems, isCount, 'a non-negative integer');
  // What a thread's messages may hold is transcript.ts's to say (threadsFromCheckpoint).
  eachEntry(data, 'threads', problems, Array.isArray, 'a list of messages');
  eachEntry(data, 'nodeOutcomes', problems, isOutcomeRecord, 'an outcome {status, isExplicit, …}');
  return problems;
}

function eachEntry(data: Record<string, unknown>, key: string, problems: string[], check: (value: unknown) => boolean, wanted: string): void {
  const map = data[key];
  if (!isRecord(map)) {
    problems.push(`\`${key}\` is ${describe(map)}, expected an object`);
    return;
  }
  for (const [name, value] of Object.entries(map)) if (!check(value)) problems.push(`\`${key}.${name}\` is ${describe(value)}, expected ${wanted}`);
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isOutcomeRecord(value: unknown): boolean {
  if (!isRecord(value) || !isStageStatus(value.status) || typeof value.isExplicit !== 'boolean') return false;
  return ['preferredLabel', 'notes', 'failureReason', 'toolOutput', 'toolLastLine'].every((key) => value[key] === undefined || typeof value[key] === 'string');
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}
