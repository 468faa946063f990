import type { GraphNode } from '../model/graph';
import type { AgentConfinement } from '../runtime/backend';
import type { HandlerServices } from './handler';

/**
 * The confinement of an LLM node's commands: its shell tool runs what the model wrote, its hooks
 * what the author wrote (`auto` confines the two differently). A refusal fails the node before any
 * model call.
 */
export function agentConfinement(node: GraphNode, services: HandlerServices, stageDir: string, hooked: boolean): { ok: true; value: AgentConfinement } | { ok: false; reason: string } {
  const site = { node, graph: services.graph, cwd: services.cwd, stageDir };
  const shell = services.sandbox.confine({ ...site, author: 'model' });
  if (!shell.ok) return shell;
  const hooks = hooked ? services.sandbox.confine({ ...site, author: 'author' }) : { ok: true as const };
  if (!hooks.ok) return hooks;
  return { ok: true, value: { ...(shell.confinement ? { shell: shell.confinement } : {}), ...(hooks.confinement ? { hooks: hooks.confinement } : {}) } };
}
