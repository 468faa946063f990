// Status → CSS class, shared by the graph overlay, the trace table, the timeline and the chart, so
// one stylesheet rule colours a status everywhere.
import type { NodeRunStatus } from '../host/protocol/webview';

export function statusClass(status: NodeRunStatus): string {
  return `status-${status}`;
}
