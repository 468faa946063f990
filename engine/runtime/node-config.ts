import type { Attributes, Graph, GraphNode } from '../model/graph';

/** Anything with attributes: nodes, edges, graphs. */
export interface HasAttributes {
  readonly attributes: Attributes;
}
import { parseDuration } from '../model/duration';
import type { ModelSelection } from './backend';

/** Typed reads of node attributes at run time. Validation has already refused malformed values. */
export function boolAttr(node: HasAttributes, key: string): boolean {
  const value = node.attributes.get(key)?.value.trim().toLowerCase();
  return value === 'true' || value === '1' || value === 'yes';
}

export function stringAttr(node: HasAttributes, key: string): string | undefined {
  const value = node.attributes.get(key)?.value;
  return value === undefined || value === '' ? undefined : value;
}

function nonNegativeInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}

/** max_retries, else the graph's default_max_retries (or its legacy spelling), else 0. */
export function maxRetries(node: GraphNode, graph: Graph): number {
  return (
    nonNegativeInt(node.attributes.get('max_retries')?.value) ??
    nonNegativeInt(graph.attributes.get('default_max_retries')?.value) ??
    nonNegativeInt(graph.attributes.get('default_max_retry')?.value) ??
    0
  );
}

export function timeoutMs(node: GraphNode): number | undefined {
  const text = node.attributes.get('timeout')?.value;
  if (!text) return undefined;
  const parsed = parseDuration(text, 's');
  return parsed.ok ? parsed.millis : undefined;
}

export function graphDurationMs(graph: Graph, key: string, bareUnit: 'ms' | 's'): number | undefined {
  const text = graph.attributes.get(key)?.value;
  if (!text) return undefined;
  const parsed = parseDuration(text, bareUnit);
  return parsed.ok ? parsed.millis : undefined;
}

export function intAttr(attributes: ReadonlyMap<string, { value: string }>, key: string, fallback: number): number {
  const value = Number(attributes.get(key)?.value);
  return Number.isFinite(value) ? Math.trunc(value) : fallback;
}

export function listAttr(node: HasAttributes, key: string): string[] {
  return (node.attributes.get(key)?.value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

export function promptOf(node: GraphNode): string {
  return stringAttr(node, 'prompt') ?? stringAttr(node, 'label') ?? node.id;
}

/** The node's model, provider and reasoning effort, each falling back to the graph's. */
export function modelSelectionOf(node: GraphNode, graph: Graph): ModelSelection {
  const pick = (key: string) => stringAttr(node, key) ?? stringAttr(graph, key);
  const provider = pick('llm_provider');
  const model = pick('llm_model');
  const reasoningEffort = pick('reasoning_effort');
  return { ...(provider ? { provider } : {}), ...(model ? { model } : {}), ...(reasoningEffort ? { reasoningEffort } : {}) };
}
