import type { AgentEvent } from '../engine/runtime/backend';
import type { RunEvent, WalkScope } from '../engine/runtime/events';
import type { ConsoleLine } from '../host/run-target';
import { formatDuration } from '../engine/model/duration';
import { describeRunEnd } from '../engine/runtime/run-status';

const mark: Readonly<Record<string, string>> = { success: '✓', partial_success: '◐', retry: '↻', fail: '✗', skipped: '–' };

function where(scope: WalkScope): string {
  return scope.kind === 'main' ? '' : `${scope.id.replace(/^main>/, '')} › `;
}

/**
 * The Debug Console view of the run: a `▶` line heads each node visit, followed by its tool output,
 * agent tool calls and verdict. No DAP output groups: VS Code's Debug Console keeps a group's
 * children as they were when it first drew the group, so whatever a node printed later (a slow
 * tool's output, a gate's answer, the verdict) never showed. Events the console does not show map
 * to nothing.
 */
export function consoleLines(event: RunEvent): ConsoleLine[] {
  switch (event.type) {
    case 'run:start':
      return [{ category: 'console', text: `${event.resumed ? 'resuming' : 'running'} ${event.graphName} (run ${event.runId})\nrun directory: ${event.logsRoot}\n` }];
    case 'node:start':
      return [{ category: 'console', text: `▶ ${where(event.scope)}${event.nodeId} (iteration ${event.iteration}, visit ${event.visit})\n`, node: event }];
    case 'node:retry':
      return [{ category: 'console', text: `↻ retry ${event.attempt} in ${formatDuration(event.delayMs)}: ${event.reason}\n`, node: event }];
    case 'output':
      return [{ category: event.stream, text: event.text, node: event }];
    case 'agent':
      return agentLines(event.event).map((text) => ({ category: 'console', text, node: event }));
    case 'node:contract':
      return [{ category: 'stderr', text: `outputs missing from the context: ${event.missingOutputs.join(', ')}\n`, node: event }];
    case 'node:end': {
      const o = event.outcome;
      const verdict = `${mark[o.status] ?? '?'} ${o.status}${o.isExplicit ? '' : ' (defaulted)'}${o.preferredLabel ? ` [${o.preferredLabel}]` : ''} in ${formatDuration(event.durationMs)}${o.failureReason ? ` — ${o.failureReason}` : ''}\n`;
      return [{ category: o.status === 'fail' ? 'stderr' : 'console', text: verdict, node: event }];
    }
    case 'edge':
      return event.forced ? [{ category: 'console', text: `→ forced route ${event.edge.from} -> ${event.edge.to}\n` }] : [];
    case 'jump':
      return [{ category: 'console', text: `↪ ${event.reason}\n` }];
    case 'iteration':
      return [{ category: 'console', text: `── iteration ${event.iteration} ──\n` }];
    case 'human:answer':
      return [{ category: 'console', text: `human answered ${event.answer}\n`, node: event }];
    case 'human:timeout':
      return [{ category: 'important', text: `⏱ no answer in ${formatDuration(event.durationMs)}: ${event.defaultChoice === undefined ? 'no default to take' : `took the default ${event.defaultChoice}`}\n`, node: event }];
    case 'parallel:branch:start':
      return [{ category: 'console', text: `⑂ branch ${event.branch} started\n`, node: event }];
    case 'parallel:branch:end':
      return [{ category: event.success ? 'console' : 'stderr', text: `⑂ branch ${event.branch} ${mark[event.status] ?? '?'} ${event.status} in ${formatDuration(event.durationMs)}\n`, node: event }];
    case 'warning':
      return [{ category: 'important', text: `warning: ${event.message}\n` }];
    case 'run:end':
      return [{ category: event.status === 'success' ? 'console' : 'important', text: `run ${describeRunEnd(event.status, event.failureReason)}\n` }];
    default:
      return [];
  }
}

/** Agent tool calls (the LLM backend's tool:pre / tool:post records) and turn markers. */
function agentLines(event: AgentEvent): string[] {
  const data = event.data;
  const tool = String(data['tool'] ?? 'tool');
  switch (event.event) {
    case 'tool:pre':
      return [`⚙ ${tool} ${typeof data['arguments'] === 'string' ? data['arguments'] : JSON.stringify(data['arguments'] ?? {})}\n`];
    case 'tool:post': {
      const output = typeof data['output'] === 'string' ? data['output'] : '';
      const head = output.split('\n', 1)[0] ?? '';
      return [`  ⇒ ${tool}${data['is_error'] === true ? ' failed' : ''}: ${head.length > 200 ? `${head.slice(0, 200)}…` : head}\n`];
    }
    case 'turn':
      return typeof data['turn'] === 'number' ? [`turn ${data['turn']}\n`] : [];
    default:
      return [];
  }
}
