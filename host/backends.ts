import path from 'node:path';
import { LlmBackend } from '../engine/llm/llm-backend';
import type { CodergenBackend } from '../engine/runtime/backend';
import type { Answer } from '../engine/runtime/interviewer';
import { ScriptError, ScriptedBackend, loadScript } from '../engine/runtime/scripted';
import type { AttractorLaunchArguments } from './protocol/debug';

/** Builds a backend the adapter does not know by name; injected by whoever hosts the adapter. */
export type BackendFactory = (provider: string, args: AttractorLaunchArguments) => CodergenBackend;

export interface BackendChoice {
  /** A fresh backend (a scripted one starts its lists over). */
  readonly create: () => CodergenBackend;
  /** Scripted human answers, consumed before the person is asked; empty unless the launch chose `gateAnswers: "script"`. */
  readonly humanAnswers: Readonly<Record<string, readonly Answer[]>>;
}

export function chooseBackend(args: AttractorLaunchArguments, baseDir: string, factory: BackendFactory | undefined): { ok: true; choice: BackendChoice } | { ok: false; message: string } {
  if (args.gateAnswers !== undefined && args.gateAnswers !== 'ask' && args.gateAnswers !== 'script') return { ok: false, message: `"gateAnswers" must be "ask" or "script" (got ${JSON.stringify(args.gateAnswers)})` };
  const name = args.backend ?? (args.scripted ? 'scripted' : undefined);
  if (name === undefined) return { ok: false, message: 'launch.json needs "backend": "scripted" with "scripted": "<file>", or a provider backend' };
  if (name === 'scripted') {
    if (!args.scripted) return { ok: false, message: 'backend "scripted" needs "scripted": the path of a script file (the conformance case.json format)' };
    const file = path.resolve(baseDir, args.scripted);
    try {
      const script = loadScript(file);
      return { ok: true, choice: { create: () => new ScriptedBackend(loadScript(file)), humanAnswers: args.gateAnswers === 'script' ? script.human : {} } };
    } catch (error) {
      return { ok: false, message: error instanceof ScriptError ? error.message : String(error) };
    }
  }
  // As `attractor run` without --scripted: providers per node (llm_provider), keys from the environment.
  if (name === 'llm') return { ok: true, choice: { create: () => new LlmBackend(), humanAnswers: {} } };
  if (!factory) return { ok: false, message: `backend "${name}" is unknown to this debug adapter: use "llm" (OpenAI/Anthropic, keys from the environment) or "scripted" with a script file` };
  return { ok: true, choice: { create: () => factory(name, args), humanAnswers: {} } };
}
