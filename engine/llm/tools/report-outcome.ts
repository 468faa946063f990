import type { ReportedOutcome } from '../../runtime/backend';
import type { ToolDefinition } from '../types';
import { ToolError } from './tool-error';

export const reportOutcomeToolName = 'report_outcome';

const reportableStatuses = ['success', 'partial_success', 'retry', 'fail'] as const;

export const reportOutcomeDefinition: ToolDefinition = {
  name: reportOutcomeToolName,
  description:
    "Report this node's verdict to the pipeline. Authoritative: call it once your work is done (or has failed). A successful call ends the node.",
  parameters: {
    type: 'object',
    properties: {
      status: { type: 'string', enum: [...reportableStatuses] },
      preferred_label: { type: 'string', description: 'The label of the outgoing edge you want taken.' },
      suggested_next_ids: { type: 'array', items: { type: 'string' }, description: 'Ids of nodes you suggest running next.' },
      context_updates: { type: 'object', description: 'Key/value pairs to merge into the run context.' },
      notes: { type: 'string' },
      failure_reason: { type: ['string', 'null'] },
    },
    required: ['status'],
  },
};

/** Validates report_outcome arguments; a ToolError tells the model what to fix (and keeps any earlier valid report). */
export function parseReportedOutcome(args: Readonly<Record<string, unknown>>): ReportedOutcome {
  const status = typeof args.status === 'string' ? args.status.trim().toLowerCase() : undefined;
  if (!status || !(reportableStatuses as readonly string[]).includes(status)) {
    throw new ToolError(`report_outcome: status must be one of ${reportableStatuses.join(', ')} (got ${JSON.stringify(args.status)})`);
  }
  const optionalString = (key: string): string | undefined => {
    const value = args[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new ToolError(`report_outcome: ${key} must be a string`);
    return value;
  };
  const nextIds = args.suggested_next_ids;
  if (nextIds !== undefined && nextIds !== null && !Array.isArray(nextIds)) throw new ToolError('report_outcome: suggested_next_ids must be an array');
  const updates = args.context_updates;
  if (updates !== undefined && updates !== null && (typeof updates !== 'object' || Array.isArray(updates))) {
    throw new ToolError('report_outcome: context_updates must be an object');
  }
  const outcome: { -readonly [K in keyof ReportedOutcome]: ReportedOutcome[K] } = { status };
  const label = optionalString('preferred_label');
  const notes = optionalString('notes');
  const failureReason = optionalString('failure_reason');
  if (label !== undefined) outcome.preferred_label = label;
  if (Array.isArray(nextIds)) outcome.suggested_next_ids = nextIds;
  if (updates && typeof updates === 'object') outcome.context_updates = updates as Record<string, unknown>;
  if (notes !== undefined) outcome.notes = notes;
  if (failureReason !== undefined) outcome.failure_reason = failureReason;
  return outcome;
}
