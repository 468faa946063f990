import type { GraphNode } from './graph';

const PREFIX = 'context.';
// The handlers that run a child pipeline: folder (`pipeline`) and manager (`stack.manager_loop`).
const childRunners = new Set(['pipeline', 'stack.manager_loop']);

/** Whether a node with this handler runs a child pipeline. */
export function runsChildPipeline(handlerType: string): boolean {
  return childRunners.has(handlerType);
}

/** Whether `key` on a node with this handler seeds the child pipeline's context (`context.target="x"`). */
export function isChildContextAttribute(handlerType: string, key: string): boolean {
  return runsChildPipeline(handlerType) && key.startsWith(PREFIX) && key.length > PREFIX.length;
}

/**
 * The reference passes a folder or manager node's `context.*` attributes into its child run: the
 * key without its `context.` prefix, so the child reads it as `$target` and `context.target` alike.
 */
export function childContextSeed(node: GraphNode, handlerType: string): Record<string, string> {
  const seed: Record<string, string> = {};
  for (const [key, attribute] of node.attributes) {
    if (isChildContextAttribute(handlerType, key)) seed[key.slice(PREFIX.length)] = attribute.value;
  }
  return seed;
}
