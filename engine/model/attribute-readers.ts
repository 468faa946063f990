import type { Attributes, Graph, GraphNode } from './graph';
import { parseDuration } from './duration';
import { isRetryPreset, retryPresets, type RetryPresetName } from './retry-presets';

/** Anything with attributes: nodes, edges, graphs. */
export interface HasAttributes {
  readonly attributes: Attributes;
}

/** Typed reads of attributes, for the run and the linter alike. At run time validation has already refused malformed values. */
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

/** The node's retry_policy preset (EXTENSIONS retry_policy), `standard` when it names none. */
export function retryPreset(node: GraphNode): RetryPresetName {
  const name = node.attributes.get('retry_policy')?.value.trim();
  return isRetryPreset(name) ? name : 'standard';
}

/** max_retries, else its retry_policy's attempts less one, else the graph's default_max_retries (or its legacy spelling), else 0. */
export function maxRetries(node: GraphNode, graph: Graph): number {
  const preset = node.attributes.get('retry_policy')?.value.trim();
  return (
    nonNegativeInt(node.attributes.get('max_retries')?.value) ??
    (isRetryPreset(preset) ? retryPresets[preset].maxAttempts - 1 : undefined) ??
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
  const value = node.attributes.get(key)?.value;
  if (!value) return [];
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

export function promptOf(node: GraphNode): string {
  return stringAttr(node, 'prompt') ?? stringAttr(node, 'label') ?? node.id;
}
