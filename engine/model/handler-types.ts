import type { GraphNode } from './graph';

/** The built-in handler types (canonical 2.8 plus the ledger's `pipeline` for `folder`). */
export const handlerTypes = [
  'start',
  'exit',
  'codergen',
  'wait.human',
  'conditional',
  'parallel',
  'parallel.fan_in',
  'tool',
  'stack.manager_loop',
  'pipeline',
] as const;

export type BuiltinHandlerType = (typeof handlerTypes)[number];

export interface ShapeInfo {
  readonly shape: string;
  readonly handler: BuiltinHandlerType;
  readonly doc: string;
}

export const shapes: readonly ShapeInfo[] = [
  { shape: 'Mdiamond', handler: 'start', doc: 'Start: the entry point of the run. Exactly one per graph.' },
  { shape: 'Msquare', handler: 'exit', doc: 'Exit: reaching it checks every goal gate before the run may end. Exactly one per graph.' },
  { shape: 'box', handler: 'codergen', doc: 'LLM agent: a fresh session with tools works the prompt and reports an outcome. The default shape.' },
  { shape: 'hexagon', handler: 'wait.human', doc: 'Human gate: the run blocks until a person picks one of the outgoing edge labels.' },
  { shape: 'diamond', handler: 'conditional', doc: 'Conditional: runs nothing; the outgoing edge conditions decide the route.' },
  { shape: 'component', handler: 'parallel', doc: 'Parallel fan-out: runs every successor branch concurrently on a cloned context.' },
  { shape: 'tripleoctagon', handler: 'parallel.fan_in', doc: 'Fan-in: joins parallel branches and ranks their results.' },
  { shape: 'parallelogram', handler: 'tool', doc: 'Shell tool: runs tool_command; its exit status is the verdict.' },
  { shape: 'house', handler: 'stack.manager_loop', doc: 'Manager loop: supervises a child pipeline (experimental).' },
  { shape: 'folder', handler: 'pipeline', doc: 'Sub-pipeline: runs the graph in dot_file as one node.' },
];

const handlerByShape = new Map(shapes.map((info) => [info.shape, info.handler]));

export function isBuiltinHandlerType(type: string): type is BuiltinHandlerType {
  return (handlerTypes as readonly string[]).includes(type);
}

/**
 * Resolves a node's handler type (canonical 4.2): explicit `type`, then shape, then codergen.
 * An unknown explicit type is returned as is, so a custom handler registered later can serve it.
 */
export function resolveHandlerType(node: Pick<GraphNode, 'attributes'>): string {
  const explicit = node.attributes.get('type')?.value ?? node.attributes.get('node_type')?.value;
  if (explicit) return explicit;
  const shape = node.attributes.get('shape')?.value ?? 'box';
  return handlerByShape.get(shape) ?? 'codergen';
}

export function isStartNode(node: GraphNode): boolean {
  const shape = node.attributes.get('shape')?.value;
  if (shape !== undefined) return shape === 'Mdiamond';
  return node.id === 'start' || node.id === 'Start';
}

export function isExitNode(node: GraphNode): boolean {
  const shape = node.attributes.get('shape')?.value;
  if (shape !== undefined) return shape === 'Msquare';
  return node.id === 'exit' || node.id === 'end' || node.id === 'Exit' || node.id === 'End';
}
