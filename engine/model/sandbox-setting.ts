/** How a run's commands are confined (engine/runtime/sandbox.ts applies it); no Node module here, the graph view's protocol names it too. */
export const sandboxSettings = ['auto', 'off', 'workspace', 'workspace-network'] as const;
export type SandboxSetting = (typeof sandboxSettings)[number];

export function isSandboxSetting(value: unknown): value is SandboxSetting {
  return typeof value === 'string' && (sandboxSettings as readonly string[]).includes(value);
}

/** What whoever starts the run asked for (`--sandbox`, the `attractor.sandbox` setting, a face's default). */
export interface SandboxRequest {
  readonly setting: SandboxSetting;
  /** Named by the person: where bwrap cannot run, the launch is refused instead of running unconfined. A face's default is not. */
  readonly explicit: boolean;
}

export const autoSandbox: SandboxRequest = { setting: 'auto', explicit: false };

/** A setting as a person names it (a flag, a setting): `auto` asks for nothing in particular. */
export function namedSandbox(setting: SandboxSetting): SandboxRequest {
  return { setting, explicit: setting !== 'auto' };
}
