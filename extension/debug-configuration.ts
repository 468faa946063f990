// launch.json for the `attractor` debugger: initial and dynamic configurations, and how an
// incomplete one (F5 without launch.json) is completed. Pure: file checks are injected.
import path from 'node:path';
import { DEBUG_TYPE, type AttractorAttachArguments, type AttractorLaunchArguments } from '../host/protocol/debug';
import { isMaxParallel } from '../engine/runtime/join-policy';
import { isSandboxSetting, sandboxSettings } from '../engine/model/sandbox-setting';
import type { ExtensionSettings } from './settings';

export interface AttractorDebugConfiguration extends AttractorLaunchArguments {
  readonly type: string;
  readonly request: string;
  readonly name: string;
  readonly noDebug?: boolean;
}

/** The backend name the extension serves itself: LLM providers with keys from SecretStorage. */
export const SECRET_LLM_BACKEND = 'vscode-secrets';

/** The demo script that sits beside a pipeline: `x.dot` → `x.scripted.json`. */
export function demoScriptFor(program: string): string {
  return path.join(path.dirname(program), `${path.basename(program, path.extname(program))}.scripted.json`);
}

export function initialConfigurations(): AttractorDebugConfiguration[] {
  return [
    {
      type: DEBUG_TYPE,
      request: 'launch',
      name: 'Debug pipeline',
      program: '${file}',
      stopOnEntry: false,
    },
  ];
}

/** The entries of the "Run and Debug" dropdown for one pipeline file. */
export function dynamicConfigurations(program: string): AttractorDebugConfiguration[] {
  const name = path.basename(program);
  return [
    { type: DEBUG_TYPE, request: 'launch', name: `Run pipeline ${name}`, program, noDebug: true },
    { type: DEBUG_TYPE, request: 'launch', name: `Debug pipeline ${name}`, program },
  ];
}

export interface AttractorAttachConfiguration extends AttractorAttachArguments {
  readonly type: string;
  readonly request: 'attach';
  readonly name: string;
}

/** The server VS Code is connected to (Attractor: Connect to server…) and its token from SecretStorage. */
export interface ConnectedServer {
  readonly url: string;
  readonly token?: string;
}

/**
 * Completes an attach configuration: the server defaults to the connected one, whose stored token
 * goes with it; another server's token comes from launch.json or the adapter's environment.
 */
export function resolveAttachConfiguration(config: Partial<AttractorAttachConfiguration>, connected: ConnectedServer | undefined): { readonly ok: true; readonly configuration: AttractorAttachConfiguration } | { readonly ok: false; readonly message: string } {
  const url = config.url ?? connected?.url;
  if (!url) return { ok: false, message: 'Attach needs a server: set "url" in launch.json, or connect first (Attractor: Connect to server…).' };
  const token = config.token ?? (connected && connected.url === url ? connected.token : undefined);
  return {
    ok: true,
    configuration: {
      ...config,
      type: config.type ?? DEBUG_TYPE,
      request: 'attach',
      name: config.name ?? `Attach to ${config.runId ? `run ${config.runId}` : 'the newest run'} on ${url}`,
      url,
      ...(token ? { token } : {}),
    },
  };
}

export interface ResolveContext {
  /** The active editor's file when it is a pipeline. */
  readonly activeProgram?: string;
  readonly workspaceFolder?: string;
  readonly settings: ExtensionSettings;
  readonly trusted: boolean;
  readonly fileExists: (file: string) => boolean;
  /** A timestamp for the run directory name. */
  readonly now: Date;
  /**
   * Where "Open example pipeline" keeps its copies. An example runs in a scratch directory inside its
   * run directory unless the configuration sets `cwd`, so its outputs never land beside the examples.
   */
  readonly examplesDirectory?: string;
}

export type Resolution =
  /** `scratchDirectory`: the working directory the caller creates before the run starts. */
  | { readonly ok: true; readonly configuration: AttractorDebugConfiguration; readonly scratchDirectory?: string }
  | { readonly ok: false; readonly message: string };

/**
 * Fills what launch.json left out: the program (active pipeline), the backend (the `attractor.backend`
 * setting), the run directory (`attractor.runDirectory`), the fan-out default (`attractor.maxParallel`),
 * the sandbox (`attractor.sandbox`).
 * Refuses in an untrusted workspace: a run executes tool commands and calls LLMs.
 */
export function resolveDebugConfiguration(config: Partial<AttractorDebugConfiguration>, context: ResolveContext): Resolution {
  if (!context.trusted) return { ok: false, message: 'Attractor runs pipelines only in a trusted workspace: running executes tool commands and calls LLM providers. Lint and the graph view work without trust.' };
  const program = config.program ?? context.activeProgram;
  if (!program) return { ok: false, message: 'Open a .dot pipeline (or set "program" in launch.json) to run it.' };
  if (config.maxParallel !== undefined && !isMaxParallel(config.maxParallel)) return { ok: false, message: `launch.json: "maxParallel" must be an integer of at least 1 (got ${JSON.stringify(config.maxParallel)})` };
  if (config.sandbox !== undefined && !isSandboxSetting(config.sandbox)) return { ok: false, message: `launch.json: "sandbox" must be one of ${sandboxSettings.join(', ')} (got ${JSON.stringify(config.sandbox)})` };
  const base = config.cwd ?? context.workspaceFolder ?? path.dirname(program);
  const backend = backendFields(config, program, context);
  if (!backend.ok) return backend;
  const stamp = context.now.toISOString().replace(/[:.]/g, '-');
  const runsRoot = path.resolve(base, context.settings.runDirectory);
  const logsRoot = config.resume === undefined ? (config.logsRoot ?? path.join(runsRoot, `${path.basename(program, path.extname(program))}-${stamp}`)) : undefined;
  const scratchDirectory = logsRoot !== undefined && config.cwd === undefined && isWithin(program, context.examplesDirectory) ? path.join(logsRoot, 'workdir') : undefined;
  const configuration: AttractorDebugConfiguration = {
    ...config,
    type: config.type ?? DEBUG_TYPE,
    request: config.request ?? 'launch',
    name: config.name ?? `Debug pipeline ${path.basename(program)}`,
    program,
    ...(logsRoot !== undefined ? { logsRoot } : {}),
    ...(scratchDirectory !== undefined ? { cwd: scratchDirectory } : {}),
    maxParallel: config.maxParallel ?? context.settings.maxParallel,
    sandbox: config.sandbox ?? context.settings.sandbox,
    ...backend.value,
  };
  return { ok: true, configuration, ...(scratchDirectory !== undefined ? { scratchDirectory } : {}) };
}

function isWithin(file: string, directory: string | undefined): boolean {
  if (directory === undefined) return false;
  const relative = path.relative(path.resolve(directory), path.resolve(file));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** The launch configuration's backend fields, from launch.json or the `attractor.backend` setting; host/backends.ts builds the backend they name. */
function backendFields(config: Partial<AttractorDebugConfiguration>, program: string, context: ResolveContext): { ok: true; value: Pick<AttractorLaunchArguments, 'backend' | 'scripted'> } | { ok: false; message: string } {
  // launch.json asking for `llm` gets the keys from SecretStorage rather than the environment.
  if (config.backend === 'llm') return { ok: true, value: { backend: SECRET_LLM_BACKEND } };
  if (config.backend !== undefined || config.scripted !== undefined) return { ok: true, value: { ...(config.backend !== undefined ? { backend: config.backend } : {}), ...(config.scripted !== undefined ? { scripted: config.scripted } : {}) } };
  if (context.settings.backend === 'llm') return { ok: true, value: { backend: SECRET_LLM_BACKEND } };
  const script = demoScriptFor(program);
  // A pipeline without a demo script runs its LLM nodes for real: on VS Code's models unless a key is stored.
  if (!context.fileExists(script)) return { ok: true, value: { backend: SECRET_LLM_BACKEND } };
  return { ok: true, value: { backend: 'scripted', scripted: script } };
}
