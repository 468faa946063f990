/** Hover: attribute docs, node summaries (handler, model, retries, edges), parsed conditions. */
import type { Hover } from 'vscode-languageserver';
import { MarkupKind } from '../lsp-values';
import { attributeSpec } from '../../engine/model/attributes';
import { parseCondition } from '../../engine/conditions/condition';
import type { Graph, GraphEdge, GraphNode } from '../../engine/model/graph';
import { resolveHandlerType, shapes } from '../../engine/model/handler-types';
import { nodeClasses } from '../../engine/transform/apply-stylesheet';
import { parseStylesheet, resolveStyle } from '../../engine/transform/stylesheet';
import type { DocumentView } from '../analysis/document-analysis';
import { nodeOccurrences, occurrenceAt } from '../analysis/node-occurrences';
import { outlineFlow } from '../analysis/outline-flow';
import { offsetsToRange } from '../lsp-convert';
import type { AttributeEntry } from '../syntax/outline-rows';
import { listAt } from '../syntax/outline';
import type { Token } from '../syntax/scanner';
import { tokenValue } from '../syntax/scanner';
import { documentSpan, tokenContent, valueIndexAt } from '../syntax/string-content';
import { findVariables } from '../../engine/transform/variables';
import { attributeDocumentation } from './attribute-docs';
import { statusValues } from './completion-condition';

type Span = { readonly start: number; readonly end: number };

/**
 * What a hover shows, read from the text alone. Only a node's summary describes the pipeline as
 * the engine reads it (handler, model, retries, edges), so only it waits for the engine's model;
 * everything else answers at once, even while a large text is being checked.
 */
export type HoverTarget =
  | { readonly kind: 'ready'; readonly hover: Hover }
  /** A node id: its summary when the model has the node, else `otherwise`. */
  | { readonly kind: 'node'; readonly id: string; readonly span: Span; readonly otherwise?: HoverTarget };

export function hoverTarget(view: DocumentView, offset: number): HoverTarget | undefined {
  const markdown = (value: string, span: Span): HoverTarget => ({ kind: 'ready', hover: { contents: { kind: MarkupKind.Markdown, value }, range: offsetsToRange(view.lineIndex, span.start, span.end) } });
  const occurrence = occurrenceAt(nodeOccurrences(view.outline), offset);
  const entry = entryAt(view, offset);
  const fromEntry = entry && entryTarget(view, entry, offset, markdown);
  if (occurrence && occurrence.kind !== 'attribute') return { kind: 'node', id: occurrence.id, span: occurrence, ...(fromEntry ? { otherwise: fromEntry } : {}) };
  return fromEntry ?? (occurrence ? { kind: 'node', id: occurrence.id, span: occurrence } : undefined);
}

/** The hover for a target, given the engine's graph when the target is a node. */
export function resolveHover(view: DocumentView, target: HoverTarget, graph: Graph | undefined): Hover | undefined {
  if (target.kind === 'ready') return target.hover;
  const node = graph?.nodes.get(target.id);
  if (!graph || !node) return target.otherwise && resolveHover(view, target.otherwise, graph);
  return { contents: { kind: MarkupKind.Markdown, value: describeNode(graph, node) }, range: offsetsToRange(view.lineIndex, target.span.start, target.span.end) };
}

/** The hover of a checked view (tests and tools; the server resolves in two steps). */
export async function hover(analysis: DocumentView, offset: number): Promise<Hover | undefined> {
  const target = hoverTarget(analysis, offset);
  return target && resolveHover(analysis, target, target.kind === 'node' ? (await analysis.model?.graphs())?.graph : undefined);
}

function entryTarget(view: DocumentView, entry: AttributeEntry & { value?: Token }, offset: number, markdown: (value: string, span: Span) => HoverTarget): HoverTarget | undefined {
  const key = tokenValue(entry.key);
  const spec = attributeSpec(key);
  if (!spec) return undefined;
  if (offset <= entry.key.end) return markdown(attributeDocumentation(spec), entry.key);
  const value = entry.value as Token;
  if (spec.type.kind === 'condition') return markdown(describeCondition(tokenContent(value).value), value);
  if (spec.type.kind === 'text' || spec.type.kind === 'command') {
    const content = tokenContent(value);
    const index = valueIndexAt(content, offset);
    const variable = findVariables(content.value).find((v) => v.start <= index && index < v.end);
    if (variable) return markdown(describeVariable(variable.name, outlineFlow(view.outline).goal, spec.type.kind === 'command'), documentSpan(content, variable.start, variable.end));
  }
  if (spec.type.kind === 'node-ref') return { kind: 'node', id: tokenValue(value), span: value };
  if (spec.type.kind === 'enum') {
    const chosen = spec.type.values.find((v) => v.value === tokenValue(value));
    if (!chosen) return undefined;
    const handler = key === 'shape' ? ` — handler \`${shapes.find((s) => s.shape === chosen.value)?.handler}\`` : '';
    return markdown(`\`${key}=${chosen.value}\`${handler}\n\n${chosen.doc}`, value);
  }
  return undefined;
}

function entryAt(view: DocumentView, offset: number): (AttributeEntry & { value?: Token }) | undefined {
  const covers = (e: AttributeEntry) => (e.key.start <= offset && offset <= e.key.end) || (e.value !== undefined && e.value.start <= offset && offset <= e.value.end);
  const list = listAt(view.outline, offset);
  return (list >= 0 ? view.outline.list(list).entries.find(covers) : undefined) ?? view.outline.assignments.find(covers);
}

function describeNode(graph: Graph, node: GraphNode): string {
  const handler = resolveHandlerType(node);
  const shape = node.attributes.get('shape')?.value ?? 'box';
  const shapeDoc = shapes.find((s) => s.shape === shape)?.doc;
  const lines = [`**${node.id}** — handler \`${handler}\` (shape \`${shape}\`)`, ''];
  if (shapeDoc) lines.push(shapeDoc, '');
  const label = node.attributes.get('label')?.value;
  if (label && label !== node.id) lines.push(`Label: ${label}`, '');
  if (handler === 'codergen' || handler === 'parallel.fan_in') lines.push(describeModel(graph, node), '');
  lines.push(describeRetries(graph, node), '');
  const incoming = graph.edges.filter((e) => e.to === node.id);
  const outgoing = graph.edges.filter((e) => e.from === node.id);
  lines.push(`Incoming (${incoming.length}):${incoming.length === 0 ? ' none' : ''}`, ...incoming.map((e) => `- \`${e.from}\` →${describeEdgeGuard(e)}`));
  lines.push('', `Outgoing (${outgoing.length}):${outgoing.length === 0 ? ' none' : ''}`, ...outgoing.map((e) => `- → \`${e.to}\`${describeEdgeGuard(e)}`));
  return lines.join('\n');
}

function describeEdgeGuard(edge: GraphEdge): string {
  const parts: string[] = [];
  const condition = edge.attributes.get('condition')?.value;
  if (condition) parts.push(`when \`${condition}\``);
  const label = edge.attributes.get('label')?.value;
  if (label) parts.push(`label "${label}"`);
  const weight = edge.attributes.get('weight')?.value;
  if (weight) parts.push(`weight ${weight}`);
  if (edge.attributes.get('loop_restart')?.value === 'true') parts.push('loop_restart');
  return parts.length > 0 ? ` ${parts.join(', ')}` : ' (unconditional)';
}

function describeModel(graph: Graph, node: GraphNode): string {
  const stylesheetText = graph.attributes.get('model_stylesheet')?.value;
  const styled = stylesheetText ? resolveStyle(parseStylesheet(stylesheetText), { id: node.id, shape: node.attributes.get('shape')?.value ?? 'box', classes: nodeClasses(node) }) : new Map();
  const describe = (property: 'llm_model' | 'llm_provider' | 'reasoning_effort') => {
    const attribute = node.attributes.get(property) ?? graph.attributes.get(property);
    if (!attribute) return `${property}: (default)`;
    const origin = attribute.origin === 'stylesheet' ? `stylesheet \`${styled.get(property)?.rule.selectorText ?? '?'}\`` : node.attributes.has(property) ? attribute.origin : 'graph';
    return `${property}: \`${attribute.value}\` (${origin})`;
  };
  return `Model: ${describe('llm_model')} · ${describe('llm_provider')} · ${describe('reasoning_effort')}`;
}

function describeRetries(graph: Graph, node: GraphNode): string {
  const own = node.attributes.get('max_retries');
  const inherited = graph.attributes.get('default_max_retries') ?? graph.attributes.get('default_max_retry');
  const retries = own ? `max_retries ${own.value}${own.origin === 'default' ? ' (from a node [...] default)' : ''}` : `max_retries ${inherited?.value ?? '0'} (inherited from ${inherited ? 'default_max_retries' : 'the engine default'})`;
  const target = node.attributes.get('retry_target')?.value;
  const fallback = node.attributes.get('fallback_retry_target')?.value;
  const targets = [target ? `retry_target \`${target}\`` : 'no retry_target', ...(fallback ? [`fallback_retry_target \`${fallback}\``] : [])];
  return `Retries: ${retries} · ${targets.join(' · ')}`;
}

function describeVariable(name: string, goal: string | undefined, inCommand: boolean): string {
  const quoting = inCommand ? '\n\nIn a tool command the value arrives as an environment variable, never as shell text; a key set only at run time is reached as `${context.key}`.' : '';
  if (name === 'goal') return `\`$goal\` — the graph goal: ${goal ? `"${goal}"` : '(not set)'}${quoting}`;
  if (name === 'iteration' || name === 'loop_count') return `\`$${name}\` — how many loop_restart edges this run has taken (from 0).${quoting}`;
  if (name.startsWith('prior_critiques_')) return `\`$${name}\` — the critiques fed back to \`${name.slice('prior_critiques_'.length)}\` through feedback_from (5 × 500 chars).`;
  if (inCommand) return `\`$${name}\` — a pipeline variable if it is a launch parameter (\`--param ${name}=…\`), an engine key or a key some node declares in \`outputs\`; otherwise bash's own variable.${quoting}`;
  return `\`$${name}\` — a launch parameter (\`--param ${name}=…\`) or context key; left as written when neither exists.`;
}

export function describeCondition(text: string): string {
  const parsed = parseCondition(text);
  if (!parsed.ok) return `**Condition does not parse:** ${parsed.error.message}`;
  if (parsed.condition.clauses.length === 0) return '**Condition:** empty, always holds.';
  const lines = ['**Condition** — holds when every clause holds:', ''];
  parsed.condition.clauses.forEach((clause, k) => {
    const key =
      clause.key.kind === 'outcome'
        ? 'the outcome (status, or the preferred label when one is reported)'
        : clause.key.kind === 'preferred_label'
          ? 'the preferred label'
          : `context key \`${clause.key.path}\``;
    const status = clause.key.kind === 'outcome' ? statusValues.find((s) => s.value === clause.literal) : undefined;
    lines.push(`${k + 1}. \`${clause.keyText}\` ${clause.operator === '=' ? 'equals' : 'differs from'} \`${clause.literal}\` — ${key}${status ? ` (${status.doc})` : ''}`);
  });
  return lines.join('\n');
}
