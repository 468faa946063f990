import type { ArtifactAccess } from '../../runtime/backend';
import type { ToolDefinition } from '../types';
import type { Workspace } from './workspace';
import type { Confinement } from '../../runtime/bubblewrap';

export interface ToolContext {
  readonly workspace: Workspace;
  readonly signal: AbortSignal;
  /** Environment for child processes (provider credentials removed). */
  readonly env: NodeJS.ProcessEnv;
  readonly shellTimeoutMs: number;
  readonly outputCapBytes: number;
  /** The run's artifact store, for store_artifact / retrieve_artifact (absent outside a run). */
  readonly artifacts?: ArtifactAccess;
  /** The sandbox of the `shell` tool's commands; absent: unconfined. */
  readonly confinement?: Confinement;
}

/** A tool the agent may call. `execute` throws ToolError for failures the model should read. */
export interface AgentTool {
  readonly definition: ToolDefinition;
  execute(args: Readonly<Record<string, unknown>>, context: ToolContext): Promise<string>;
}

export function stringArg(args: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = args[name];
  return typeof value === 'string' ? value : undefined;
}

export function numberArg(args: Readonly<Record<string, unknown>>, name: string): number | undefined {
  const value = args[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
