// The one place a run's LLM backend is chosen, whichever face starts it: launch.json (the debugger
// and "Run pipeline"), the chat tools, the CLI's run/resume/serve/worker.
import path from 'node:path';
import { LlmBackend } from '../engine/llm/llm-backend';
import { inferProvider } from '../engine/llm/model-catalog';
import { settingsFromEnv, type DefaultModel, type LlmSettings } from '../engine/llm/provider-settings';
import type { ProviderName } from '../engine/llm/types';
import type { CodergenBackend } from '../engine/runtime/backend';
import type { Answer } from '../engine/runtime/interviewer';
import { ScriptError, ScriptedBackend, loadScript } from '../engine/runtime/scripted';
import type { AttractorLaunchArguments } from './protocol/debug';

/** Builds a backend this module does not know by name; injected by whoever hosts the run. */
export type BackendFactory = (name: string) => CodergenBackend;

/** What a run asks of its backend (launch.json's fields; the CLI's options map onto them). */
export interface BackendRequest extends Pick<AttractorLaunchArguments, 'backend' | 'scripted' | 'gateAnswers'> {
  /** The `llm` backend's model for LLM nodes that name none, instead of the environment's (`--default-model`). */
  readonly defaultModel?: string;
  /** The provider of that model, or of the environment's when no model is given (`--default-provider`). */
  readonly defaultProvider?: ProviderName;
}

export interface BackendPlace {
  /** What a relative `scripted` path is relative to; absent, it is taken as given. */
  readonly baseDir?: string;
  /** Serves the names this module does not know (the extension's SecretStorage-keyed backend). */
  readonly factory?: BackendFactory;
  /** The environment the `llm` backend's keys and base URLs come from (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
}

export interface BackendChoice {
  /** A fresh backend (a scripted one starts its lists over). */
  readonly create: () => CodergenBackend;
  /** Scripted human answers, consumed before the person is asked; empty unless the request chose `gateAnswers: "script"`. */
  readonly humanAnswers: Readonly<Record<string, readonly Answer[]>>;
  /** The run's provider for its manifest (ledger §28): `scripted`, the default model's provider, `none` when every LLM node names its own, or the factory's name. */
  readonly provider: string;
}

type Chosen = { ok: true; choice: BackendChoice } | { ok: false; message: string };

export function chooseBackend(request: BackendRequest, place: BackendPlace = {}): Chosen {
  if (request.gateAnswers !== undefined && request.gateAnswers !== 'ask' && request.gateAnswers !== 'script') return { ok: false, message: `"gateAnswers" must be "ask" or "script" (got ${JSON.stringify(request.gateAnswers)})` };
  const name = request.backend ?? (request.scripted ? 'scripted' : undefined);
  if (name === undefined) return { ok: false, message: 'launch.json needs "backend": "scripted" with "scripted": "<file>", or a provider backend' };
  if (name === 'scripted') return scripted(request, place);
  // Providers per node (llm_provider), keys from the environment.
  if (name === 'llm') return llm(request, place.env);
  const { factory } = place;
  if (!factory) return { ok: false, message: `backend "${name}" is unknown to this debug adapter: use "llm" (OpenAI/Anthropic, keys from the environment) or "scripted" with a script file` };
  return { ok: true, choice: { create: () => factory(name), humanAnswers: {}, provider: name } };
}

function scripted(request: BackendRequest, place: BackendPlace): Chosen {
  if (!request.scripted) return { ok: false, message: 'backend "scripted" needs "scripted": the path of a script file (the conformance case.json format)' };
  const file = place.baseDir === undefined ? request.scripted : path.resolve(place.baseDir, request.scripted);
  try {
    const script = loadScript(file);
    return { ok: true, choice: { create: () => new ScriptedBackend(loadScript(file)), humanAnswers: request.gateAnswers === 'script' ? script.human : {}, provider: 'scripted' } };
  } catch (error) {
    return { ok: false, message: error instanceof ScriptError ? error.message : String(error) };
  }
}

function llm(request: BackendRequest, env: NodeJS.ProcessEnv = process.env): Chosen {
  let settings: LlmSettings;
  try {
    settings = settingsFromEnv(env);
  } catch (error) {
    // Malformed ATTRACTOR_* variables.
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const defaultModel = defaultModelOf(request, settings.defaultModel);
  const chosen = { ...settings, ...(defaultModel ? { defaultModel } : {}) };
  return { ok: true, choice: { create: () => new LlmBackend({ settings: chosen }), humanAnswers: {}, provider: providerSelection(defaultModel) } };
}

/** A default model given replaces the environment's, with its provider; a provider alone names the environment model's provider. */
function defaultModelOf(request: BackendRequest, fromEnv: DefaultModel | undefined): DefaultModel | undefined {
  const provider = request.defaultProvider ? { provider: request.defaultProvider } : {};
  if (request.defaultModel) return { model: request.defaultModel, ...provider };
  return fromEnv ? { ...fromEnv, ...provider } : undefined;
}

/** The run's provider: the default model's (named or inferred), or "none" when every LLM node names its own. */
function providerSelection(defaultModel: DefaultModel | undefined): string {
  if (!defaultModel) return 'none';
  return defaultModel.provider ?? inferProvider(defaultModel.model) ?? 'unknown';
}
