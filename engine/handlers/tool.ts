import type { Graph, GraphNode } from '../model/graph';
import { boolAttr, stringAttr } from '../model/attribute-readers';
import { childEnvironment } from '../runtime/child-environment';
import type { RunContext } from '../runtime/context';
import { expandCommand, lookup } from '../runtime/expand';
import { toolFailedStep } from '../runtime/failed-step';
import { runShellCommand } from '../runtime/process';
import { LiveOutput } from '../runtime/live-output';
import { TOOL_FILES } from '../runtime/run-file-names';
import { formatBytes } from '../model/bytes';
import type { Handler } from './handler';
import { isRecord } from '../model/json';

/**
 * Canonical §4.10 with the ledger's tool.last_line, parse_json and tool_env. The exit code is the
 * verdict (explicit either way). A failed run does not refresh tool.output / tool.last_line: the
 * stale-value hazard is documented and linted (TOPO-002), and we keep the reference behaviour.
 */
const OUTPUT_CAP_BYTES = 8 * 1024 * 1024;
/** The notes quote the last line; tool.last_line has all of it. */
const NOTE_LINE_CHARS = 500;

export const toolHandler: Handler = {
  async execute({ node, context, services, signal }) {
    const template = stringAttr(node, 'tool_command');
    if (!template) return { status: 'fail', isExplicit: false, failureReason: `tool node ${node.id} has no tool_command` };
    const expansion = expandCommand(template, services.graph, context, Object.keys(services.params));
    if (!expansion.ok) return { status: 'fail', isExplicit: false, failureReason: `tool node ${node.id}: ${expansion.error}` };
    const { command, env: variables } = expansion.value;
    services.runDirectory.writeStageFile(services.iteration, node.id, TOOL_FILES.command, `${command}\n`);
    const confined = services.sandbox.confine({ node, graph: services.graph, author: 'author', cwd: services.cwd, stageDir: services.runDirectory.stageDir(node.id) });
    if (!confined.ok) return { status: 'fail', isExplicit: false, failureReason: `tool node ${node.id}: ${confined.reason}` };
    const live = new LiveOutput((stream, text) => services.emit({ type: 'output', scope: services.scope, nodeId: node.id, stream, text }));
    const result = await runShellCommand(command, {
      cwd: services.cwd,
      env: {
        ...childEnvironment(),
        ...toolEnvironment(node, services.graph, context),
        ...variables,
        ATTRACTOR_RUN_ID: services.runId,
        ATTRACTOR_NODE_ID: node.id,
        ATTRACTOR_LOGS_ROOT: services.runDirectory.root,
        ATTRACTOR_ITERATION: String(services.iteration),
      },
      outputCapBytes: OUTPUT_CAP_BYTES,
      ...(confined.confinement ? { confinement: confined.confinement } : {}),
      signal,
      onOutput: (stream, chunk) => live.push(stream, chunk),
    });
    live.finish((stream) => `${TOOL_FILES[stream]} in ${services.runDirectory.stageDir(node.id)} keeps the first and last ${formatBytes(OUTPUT_CAP_BYTES / 2)}`);
    const truncated = result.truncated ? `\n[output truncated to the first and last ${formatBytes(OUTPUT_CAP_BYTES / 2)} per stream]\n` : '';
    services.runDirectory.writeStageFile(services.iteration, node.id, TOOL_FILES.stdout, result.stdout + truncated);
    if (result.stderr) services.runDirectory.writeStageFile(services.iteration, node.id, TOOL_FILES.stderr, result.stderr + truncated);
    if (result.cancelled) return { status: 'fail', isExplicit: false, failureReason: signal.reason instanceof Error ? signal.reason.message : 'tool command was stopped' };
    if (result.exitCode !== 0) {
      const why = result.exitCode === null ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
      const tail = result.stderr.trim().split('\n').slice(-5).join('\n');
      return {
        status: 'fail',
        isExplicit: true,
        failureReason: `tool command failed (${why})${tail ? `: ${tail}` : ''}`,
        failedStep: toolFailedStep({ command, exitCode: result.exitCode, ...(result.signal ? { signal: result.signal } : {}), stdout: result.stdout, stderr: result.stderr }),
      };
    }
    const lines = result.stdout.split('\n').map((line) => line.trim()).filter(Boolean);
    const updates: Record<string, unknown> = { 'tool.output': result.stdout, 'tool.last_line': lines[lines.length - 1] ?? '' };
    if (boolAttr(node, 'parse_json')) {
      const parsed = parseJsonObject(result.stdout);
      if (!parsed.ok) return { status: 'fail', isExplicit: false, failureReason: `parse_json: stdout is not a JSON object (${parsed.error})` };
      Object.assign(updates, parsed.value);
    }
    const lastLine = lines[lines.length - 1] ?? '(no output)';
    return { status: 'success', isExplicit: true, contextUpdates: updates, notes: `tool completed: ${lastLine.length > NOTE_LINE_CHARS ? `${lastLine.slice(0, NOTE_LINE_CHARS)}…` : lastLine}` };
  },
};

/**
 * tool_env: a JSON object, or entries separated by commas or newlines, each `KEY=VALUE` or (the
 * reference form) a context key, exported under its upper-case name (`tool.output` → TOOL_OUTPUT).
 */
function toolEnvironment(node: GraphNode, graph: Graph, context: RunContext): Record<string, string> {
  const raw = stringAttr(node, 'tool_env')?.trim();
  if (!raw) return {};
  if (raw.startsWith('{')) {
    const parsed = parseJsonObject(raw);
    return parsed.ok ? Object.fromEntries(Object.entries(parsed.value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])) : {};
  }
  const env: Record<string, string> = {};
  for (const entry of raw.split(/[,\n]/)) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq).trim()] = entry.slice(eq + 1).trim();
    else if (entry.trim()) env[entry.trim().toUpperCase().replace(/[^A-Z0-9_]/g, '_')] = lookup(graph, context, entry.trim()) ?? '';
  }
  return env;
}

function parseJsonObject(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value)) return { ok: true, value };
    return { ok: false, error: 'not an object' };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
