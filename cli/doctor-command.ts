import fs from 'node:fs';
import path from 'node:path';
import { createAdapter } from '../engine/llm/adapter-factory';
import type { DefaultModel, LlmSettings } from '../engine/llm/provider-settings';
import { inferProvider } from '../engine/llm/model-catalog';
import { credentialVariables, settingsFromEnv } from '../engine/llm/provider-settings';
import type { LlmResponse, ProviderName, ToolDefinition } from '../engine/llm/types';
import { providerNames } from '../engine/llm/types';
import { bubblewrapStatus } from '../engine/runtime/bubblewrap';
import { credentialsInInitialEnvironment } from './credentials';

export interface DoctorOptions {
  readonly probe?: boolean;
  readonly json?: boolean;
  readonly cwd?: string;
  readonly openaiModel?: string;
  readonly anthropicModel?: string;
  readonly geminiModel?: string;
}

type CheckState = 'ok' | 'warn' | 'fail';

interface DoctorCheck {
  readonly name: string;
  readonly state: CheckState;
  readonly detail: string;
}

const probeModels: Readonly<Record<ProviderName, string>> = { openai: 'gpt-4o-mini', anthropic: 'claude-haiku-4-5', gemini: 'gemini-2.5-flash' };
const probeTimeoutMs = 30_000;
const minimumNodeMajor = 20;

/** `attractor doctor`: what this machine can run. Keys are reported present or absent, never shown. */
export async function doctorCommand(options: DoctorOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const checks = await runDoctorChecks(options, env);
  if (options.json) process.stdout.write(`${JSON.stringify({ checks })}\n`);
  else for (const check of checks) process.stdout.write(`${{ ok: '✓', warn: '!', fail: '✗' }[check.state]} ${check.name}: ${check.detail}\n`);
  return checks.some((check) => check.state === 'fail') ? 1 : 0;
}

async function runDoctorChecks(options: DoctorOptions, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [nodeVersionCheck()];
  let settings: LlmSettings | undefined;
  try {
    settings = settingsFromEnv(env);
  } catch (error) {
    checks.push({ name: 'providers', state: 'fail', detail: (error as Error).message });
  }
  if (settings) {
    checks.push(...providerChecks(settings), ...keyIsolationCheck());
    if (options.probe) {
      for (const provider of providerNames) {
        if (!settings[provider].apiKey) continue;
        const model = { openai: options.openaiModel, anthropic: options.anthropicModel, gemini: options.geminiModel }[provider] ?? probeModels[provider];
        checks.push(await probeCheck(provider, model, settings));
      }
    }
  }
  checks.push(sandboxCheck(), await graphvizCheck(), runDirectoryCheck(path.resolve(options.cwd ?? process.cwd())));
  return checks;
}

function nodeVersionCheck(): DoctorCheck {
  const major = Number(process.versions.node.split('.')[0]);
  return { name: 'node', state: major >= minimumNodeMajor ? 'ok' : 'fail', detail: `v${process.versions.node}${major >= minimumNodeMajor ? '' : ` (needs ${minimumNodeMajor} or later)`}` };
}

function providerChecks(settings: LlmSettings): DoctorCheck[] {
  const checks = providerNames.map((provider): DoctorCheck => {
    const access = settings[provider];
    const where = access.baseUrl ? ` at ${withoutUserInfo(access.baseUrl)}` : '';
    const api = provider === 'openai' ? `, ${settings.openai.api === 'chat' ? 'Chat Completions' : 'Responses'} API (ATTRACTOR_OPENAI_API)` : '';
    return access.apiKey
      ? { name: `provider ${provider}`, state: 'ok', detail: `${credentialVariables[provider]} is set${where}${api}` }
      : { name: `provider ${provider}`, state: 'warn', detail: `${credentialVariables[provider]} is not set; LLM nodes on ${provider} cannot run` };
  });
  const { defaultModel } = settings;
  return defaultModel ? [...checks, defaultModelCheck({ ...settings, defaultModel })] : checks;
}

/** Whether a tool could read the keys from this process's /proc/<pid>/environ (credentials.ts). */
function keyIsolationCheck(): DoctorCheck[] {
  const exposed = credentialsInInitialEnvironment();
  if (exposed === undefined) return [];
  if (exposed.length === 0) return [{ name: 'key isolation', state: 'ok', detail: 'no provider key in this process\'s /proc environ; tools run without them' }];
  return [{ name: 'key isolation', state: 'warn', detail: `${exposed.join(', ')} stay readable in /proc/${process.pid}/environ: Node v${process.versions.node} cannot relaunch itself without them (Node 22.15 or later can)` }];
}

/** Whether the default model (ATTRACTOR_DEFAULT_MODEL) could serve a node that names none. */
function defaultModelCheck(settings: LlmSettings & { defaultModel: DefaultModel }): DoctorCheck {
  const { model } = settings.defaultModel;
  const provider = settings.defaultModel.provider ?? inferProvider(model);
  const name = 'default model';
  if (!provider) return { name, state: 'warn', detail: `cannot tell the provider of ${model}: set ATTRACTOR_DEFAULT_PROVIDER (${providerNames.join(' or ')})` };
  if (!settings[provider].apiKey) return { name, state: 'warn', detail: `${model} needs provider ${provider} but ${credentialVariables[provider]} is not set` };
  return { name, state: 'ok', detail: `${model} on ${provider} serves LLM nodes that name no model (ATTRACTOR_DEFAULT_MODEL)` };
}

function withoutUserInfo(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(not a valid URL)';
  }
}

/** One tool rides along: a model or server without tool calls refuses the probe, as it would refuse every LLM node. */
const probeTool: ToolDefinition = { name: 'probe_ok', description: 'Confirms the probe. Takes no arguments.', parameters: { type: 'object', properties: {} } };

async function probeCheck(provider: ProviderName, model: string, settings: LlmSettings): Promise<DoctorCheck> {
  const name = `probe ${provider}`;
  try {
    const adapter = await createAdapter(provider, settings);
    // The Responses API refuses max_output_tokens below 16.
    const maxTokens = adapter.api === 'responses' ? 16 : 1;
    let response: LlmResponse | undefined;
    for await (const event of adapter.stream({ model, messages: [{ role: 'user', content: [{ kind: 'text', text: 'Reply with OK.' }] }], tools: [probeTool], maxTokens }, AbortSignal.timeout(probeTimeoutMs))) {
      if (event.type === 'finish') response = event.response;
    }
    const usage = response?.usage;
    // A stub or a misrouted proxy answers without counting anything: that is not a model.
    if (!usage || usage.inputTokens + usage.outputTokens === 0) return { name, state: 'fail', detail: `${model}: the reply reported ${usage ? '0 tokens' : 'no usage'}: not an answer from a model` };
    return { name, state: 'ok', detail: `${model} answered with one tool offered (${usage.inputTokens} in / ${usage.outputTokens} out tokens)` };
  } catch (error) {
    return { name, state: 'fail', detail: `${model}: ${(error as Error).message}` };
  }
}

function sandboxCheck(): DoctorCheck {
  const status = bubblewrapStatus();
  return status.ok
    ? { name: 'sandbox', state: 'ok', detail: `${status.bwrap} confines tool commands, hooks and the agent's shell` }
    : { name: 'sandbox', state: 'warn', detail: `tool commands, hooks and the agent's shell would run unconfined: ${status.reason}; --sandbox workspace or workspace-network would refuse to start` };
}

async function graphvizCheck(): Promise<DoctorCheck> {
  try {
    const { Graphviz } = await import('@hpcc-js/wasm-graphviz');
    const graphviz = await Graphviz.load();
    const svg = graphviz.dot('digraph { a -> b }');
    return svg.includes('<svg') ? { name: 'graphviz', state: 'ok', detail: `WASM Graphviz ${graphviz.version()} renders` } : { name: 'graphviz', state: 'fail', detail: 'WASM Graphviz loaded but rendered no SVG' };
  } catch (error) {
    return { name: 'graphviz', state: 'fail', detail: `WASM Graphviz does not load: ${(error as Error).message}` };
  }
}

function runDirectoryCheck(cwd: string): DoctorCheck {
  const root = path.join(cwd, '.attractor-runs');
  const probe = path.join(root, `.doctor-${process.pid}`);
  const existed = fs.existsSync(root);
  try {
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(probe, 'ok');
    fs.rmSync(probe);
    // A check leaves nothing behind.
    if (!existed) fs.rmdirSync(root);
    return { name: 'run directory', state: 'ok', detail: `${root} is writable` };
  } catch (error) {
    return { name: 'run directory', state: 'fail', detail: `${root} is not writable: ${(error as Error).message}` };
  }
}
