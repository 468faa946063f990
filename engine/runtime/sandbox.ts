import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Graph, GraphNode } from '../model/graph';
import type { Confinement } from './bubblewrap';
import { bubblewrapStatus } from './bubblewrap';
import { listAttr, stringAttr } from '../model/attribute-readers';
import type { SandboxRequest, SandboxSetting } from '../model/sandbox-setting';
import { isSandboxSetting } from '../model/sandbox-setting';

type SandboxMode = Exclude<SandboxSetting, 'auto'>;

/** Who wrote a command: the pipeline's author (tool nodes, tool hooks) or the model (the agent's `shell` tool). */
type CommandAuthor = 'author' | 'model';

/** Per author under `auto`: what a model wrote needs no network; an author's `npm test` fetches packages. */
const autoModes: Readonly<Record<CommandAuthor, SandboxMode>> = { model: 'workspace', author: 'workspace-network' };
const strictness: Readonly<Record<SandboxMode, number>> = { off: 0, 'workspace-network': 1, workspace: 2 };

/**
 * Caches a toolchain writes under $HOME, writable under `workspace-network`. The first two are
 * created when missing (npm and every XDG tool use them); the others only when they exist.
 */
const createdCaches = ['.npm', '.cache'];
const presentCaches = ['.yarn', '.local/share/pnpm', '.cargo/registry', '.cargo/git', 'go/pkg/mod', '.m2/repository', '.gradle/caches'];

/** Under $HOME, where credentials live: a confined command sees them empty. */
const homeSecrets = ['.ssh', '.gnupg', '.aws', '.azure', '.config', '.docker', '.kube', '.netrc', '.npmrc', '.pypirc', '.git-credentials', '.password-store', '.local/share/keyrings', '.bash_history', '.zsh_history'];

/** One command about to run: whose it is and where. */
export interface CommandSite {
  readonly node: GraphNode;
  readonly graph: Graph;
  readonly author: CommandAuthor;
  readonly cwd: string;
  readonly stageDir: string;
}

/** Confined, unconfined (`confinement` absent), or refused: a mode asked for by name that bwrap cannot give. */
export type ConfinementResult = { readonly ok: true; readonly confinement?: Confinement } | { readonly ok: false; readonly reason: string };

/** How the commands of one run are confined. Handlers ask it before each command. */
export interface CommandSandbox {
  confine(site: CommandSite): ConfinementResult;
}

/**
 * The sandbox rules of one run. Whoever starts the run sets the least confinement; the pipeline
 * (its `sandbox` attribute on the node, else the graph) may ask for more, never less, and adds
 * `sandbox_writable` paths only where the starter chose no mode (`auto` or `off`).
 */
export class RunSandbox implements CommandSandbox {
  private warned = false;

  constructor(
    private readonly request: SandboxRequest,
    /** The run directory: readable, never writable, but for the command's stage directory. */
    private readonly runRoot: string,
    private readonly warn: (message: string) => void,
  ) {}

  confine(site: CommandSite): ConfinementResult {
    const { mode, askedBy } = chooseMode(this.request, fileSetting(site.node, site.graph), site.author);
    if (mode === 'off') return { ok: true };
    const bwrap = bubblewrapStatus();
    if (!bwrap.ok) {
      if (askedBy) return { ok: false, reason: `${askedBy} asks for sandbox ${mode}, but ${bwrap.reason}` };
      if (!this.warned) this.warn(`no sandbox: tools and the agent's shell run unconfined, with every right you have, because ${bwrap.reason}; --sandbox off says you mean it`);
      this.warned = true;
      return { ok: true };
    }
    const extra = this.request.setting === 'auto' || this.request.setting === 'off' ? writableAttribute(site) : [];
    const home = os.homedir();
    const caches = mode === 'workspace-network' ? [...createdCaches, ...presentCaches].map((name) => path.join(home, name)) : [];
    for (const dir of [...extra, ...(mode === 'workspace-network' ? createdCaches.map((name) => path.join(home, name)) : [])]) makeDirectory(dir);
    const writable = [site.stageDir, ...caches, ...extra];
    // The pipeline's own folder stays readable (its scripts, a hook beside the .dot) even under the
    // private /tmp, without making it read-only where the command may write.
    const pipelineDir = site.graph.sourcePath ? path.dirname(site.graph.sourcePath) : undefined;
    const besides = pipelineDir && ![site.cwd, ...writable].some((dir) => isWithin(pipelineDir, dir)) ? [pipelineDir] : [];
    return {
      ok: true,
      confinement: { bwrap: bwrap.bwrap, network: mode === 'workspace-network', writable, readOnly: [this.runRoot, ...besides], hidden: secrets() },
    };
  }
}

/** The mode of one command and, when someone named it, who (for a refusal's reason). */
function chooseMode(request: SandboxRequest, fromFile: { setting: SandboxMode; where: string } | undefined, author: CommandAuthor): { mode: SandboxMode; askedBy?: string } {
  const floor: SandboxMode = request.setting === 'auto' ? 'off' : request.setting;
  if (fromFile && strictness[fromFile.setting] >= strictness[floor]) return { mode: fromFile.setting, askedBy: fromFile.where };
  if (request.setting === 'auto') return { mode: autoModes[author] };
  return request.explicit ? { mode: request.setting, askedBy: `--sandbox ${request.setting}` } : { mode: request.setting };
}

function fileSetting(node: GraphNode, graph: Graph): { setting: SandboxMode; where: string } | undefined {
  const own = stringAttr(node, 'sandbox');
  if (isSandboxSetting(own) && own !== 'auto') return { setting: own, where: `node ${node.id}` };
  const graphWide = stringAttr(graph, 'sandbox');
  if (isSandboxSetting(graphWide) && graphWide !== 'auto') return { setting: graphWide, where: 'the graph' };
  return undefined;
}

/**
 * Why this launch must not start: a mode asked for by name (the request, or a `sandbox` attribute
 * of the graph or a node) that bwrap cannot give here. A silent downgrade would be worse.
 */
export function sandboxRefusal(graph: Graph, request: SandboxRequest): string | undefined {
  const holders = [{ name: 'the graph', holder: graph }, ...[...graph.nodes.values()].map((node) => ({ name: `node ${node.id}`, holder: node }))];
  const asked = [
    ...(request.explicit && request.setting !== 'off' && request.setting !== 'auto' ? [`--sandbox ${request.setting}`] : []),
    ...holders.flatMap(({ name, holder }) => {
      const setting = stringAttr(holder, 'sandbox');
      return setting === 'workspace' || setting === 'workspace-network' ? [`${name} (sandbox=${setting})`] : [];
    }),
  ];
  if (asked.length === 0) return undefined;
  const status = bubblewrapStatus();
  return status.ok ? undefined : `a sandbox is asked for by ${asked.join(', ')}, but ${status.reason}`;
}

/** Why an explicit request cannot be honoured on this machine at all (a server refuses to start). */
export function sandboxRequestRefusal(request: SandboxRequest): string | undefined {
  if (!request.explicit || request.setting === 'off' || request.setting === 'auto') return undefined;
  const status = bubblewrapStatus();
  return status.ok ? undefined : `--sandbox ${request.setting}: ${status.reason}`;
}

function homes(): string[] {
  return [...new Set([os.homedir(), os.userInfo().homedir].filter(Boolean))];
}

/** The user's runtime directories (agent sockets, the CLI's key handoff): the named one and, where sudo or cron left XDG_RUNTIME_DIR unset, the usual one. */
function runtimeDirs(): string[] {
  const named = process.env.XDG_RUNTIME_DIR;
  const uid = process.getuid?.();
  return [...(named ? [named] : []), ...(uid === undefined ? [] : [`/run/user/${uid}`])];
}

function secrets(): string[] {
  return [...new Set([...homes().flatMap((home) => homeSecrets.map((name) => path.join(home, name))), ...runtimeDirs()])];
}

/** sandbox_writable of the graph and the node: `~/…` from $HOME, relative paths from the command's cwd. */
function writableAttribute(site: CommandSite): string[] {
  const entries = [...listAttr(site.graph, 'sandbox_writable'), ...listAttr(site.node, 'sandbox_writable')];
  return entries.map((entry) => (entry === '~' || entry.startsWith('~/') ? path.join(os.homedir(), entry.slice(1)) : path.resolve(site.cwd, entry)));
}

function isWithin(file: string, dir: string): boolean {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function makeDirectory(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch {
    // A path that cannot be made is skipped by the mounts; the command then finds it read-only.
  }
}
