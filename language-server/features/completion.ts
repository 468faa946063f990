/** Context-aware completion: attribute names for the place, typed values, node ids, embedded languages, snippets. */
import type { CompletionItem, MarkupContent, Range } from 'vscode-languageserver';
import { CompletionItemKind, InsertTextFormat, MarkupKind } from '../lsp-values';
import type { AttributeSpec } from '../../engine/model/attributes';
import { attributeSpec, attributesFor, attributeTable } from '../../engine/model/attributes';
import { resolveHandlerType, shapes } from '../../engine/model/handler-types';
import { contextKeysBefore } from '../analysis/context-keys';
import type { DocumentView } from '../analysis/document-analysis';
import type { OutlineFlow } from '../analysis/outline-flow';
import { edgesFrom, nodesNamed, outlineFlow } from '../analysis/outline-flow';
import { offsetsToRange } from '../lsp-convert';
import type { Outline } from '../syntax/outline';
import { ENTRY } from '../syntax/outline-rows';
import type { Token } from '../syntax/scanner';
import { tokenValue } from '../syntax/scanner';
import { findVariables } from '../../engine/transform/variables';
import { tokenContent, valueIndexAt } from '../syntax/string-content';
import type { TextCompletion } from './completion-condition';
import { completeCondition } from './completion-condition';
import { completeStylesheet } from './completion-stylesheet';
import { completeVariables } from './completion-variables';
import type { AttributePlace, CursorContext, Span } from './cursor-context';
import { cursorContext } from './cursor-context';
import { attributeDocumentation, describeType } from './attribute-docs';
import { snippets } from './snippets';

const retrigger = { title: 'Suggest', command: 'editor.action.triggerSuggest' };

export function complete(analysis: DocumentView, offset: number): CompletionItem[] {
  const context = cursorContext(analysis.outline, offset);
  const range = (span: Span): Range => offsetsToRange(analysis.lineIndex, span.start, span.end);
  switch (context.kind) {
    case 'attribute-name':
      return attributeNameItems(analysis, context, range(context.replace));
    case 'attribute-value':
      return attributeValueItems(analysis, context, offset);
    case 'edge-target':
      return nodeIdItems(analysis, range(context.replace));
    case 'statement':
      return statementItems(analysis, context.inSubgraph, range(context.replace));
    case 'none':
      return [];
  }
}

function specsFor(place: AttributePlace): AttributeSpec[] {
  if (place === 'subgraph') return attributeTable.filter((spec) => spec.name === 'label' || (spec.type.kind === 'graphviz' && spec.scopes.includes('graph')));
  return attributesFor(place);
}

function attributeNameItems(analysis: DocumentView, context: Extract<CursorContext, { kind: 'attribute-name' }>, range: Range): CompletionItem[] {
  const handlers = subjectHandlers(analysis, context.list?.owner === 'node' ? context.list.subjects.map(tokenValue) : []);
  return specsFor(context.place)
    .filter((spec) => !context.present.has(spec.name))
    .map((spec) => {
      const { detail, documentation, newText } = attributeItemParts(spec);
      return {
        label: spec.name,
        kind: CompletionItemKind.Property,
        detail,
        documentation,
        sortText: `${attributeRank(spec, handlers)}${spec.name}`,
        ...(spec.aliasOf ? { tags: [1 as const] } : {}),
        textEdit: { range, newText },
        insertTextFormat: InsertTextFormat.Snippet,
        command: retrigger,
      };
    });
}

/** What an attribute's item says wherever it is offered, made once per attribute (completion runs on every keystroke). */
const itemParts = new Map<AttributeSpec, { readonly detail: string; readonly documentation: MarkupContent; readonly newText: string }>();

function attributeItemParts(spec: AttributeSpec): { readonly detail: string; readonly documentation: MarkupContent; readonly newText: string } {
  let parts = itemParts.get(spec);
  if (!parts) {
    parts = { detail: describeType(spec), documentation: { kind: MarkupKind.Markdown, value: attributeDocumentation(spec) }, newText: `${bareKey(spec.name)}=${valueSnippet(spec)}` };
    itemParts.set(spec, parts);
  }
  return parts;
}

/**
 * The node's own handler's attributes first, then those every handler reads, then other handlers',
 * then deprecated aliases, then Graphviz rendering attributes.
 */
function attributeRank(spec: AttributeSpec, handlers: readonly string[]): number {
  if (spec.type.kind === 'graphviz') return 4;
  if (spec.aliasOf) return 3;
  // Without a known handler (a `node [...]` default block) nothing is another handler's.
  if (!spec.handlers || handlers.length === 0) return 1;
  return spec.handlers.some((h) => handlers.includes(h)) ? 0 : 2;
}

/** Qualified names (`human.default_choice`) are bare keys in the grammar; anything else is quoted. */
export function bareKey(name: string): string {
  return /^[A-Za-z_]\w*(?:[.-]\w+)*$/.test(name) ? name : `"${name}"`;
}

function valueSnippet(spec: AttributeSpec): string {
  switch (spec.type.kind) {
    case 'enum':
    case 'boolean':
    case 'integer':
    case 'number':
    case 'duration':
    case 'node-ref':
      return '$0';
    default:
      return '"$0"';
  }
}

function attributeValueItems(analysis: DocumentView, context: Extract<CursorContext, { kind: 'attribute-value' }>, offset: number): CompletionItem[] {
  const spec = attributeSpec(context.key);
  if (!spec) return [];
  const value = context.value;
  const quoted = value?.kind === 'string';
  const content = value ? tokenContent(value) : undefined;
  /** Replaces the whole value (inside the quotes when quoted). */
  const wholeValue = (): Range =>
    content && quoted ? offsetsToRange(analysis.lineIndex, content.offsets[0] as number, content.offsets.at(-1) as number) : offsetsToRange(analysis.lineIndex, context.replace.start, context.replace.end);
  const embedded = (compute: (text: string, index: number) => TextCompletion | undefined): CompletionItem[] => {
    if (!content || !quoted) return [];
    const result = compute(content.value, valueIndexAt(content, offset));
    if (!result) return [];
    const range = offsetsToRange(analysis.lineIndex, content.offsets[result.start] as number, content.offsets[result.end] as number);
    return result.items.map((item) => ({ ...item, textEdit: { range, newText: item.insertText ?? item.label } }));
  };
  const flow = outlineFlow(analysis.outline);
  const sources = context.list?.owner === 'edge' ? context.list.subjects.slice(0, -1).map(tokenValue) : context.list?.owner === 'edge-defaults' ? flow.nodeIds : [];
  if (context.key === 'human.default_choice') return gateChoiceItems(flow, context.list?.subjects.map(tokenValue) ?? [], wholeValue());
  switch (spec.type.kind) {
    case 'enum':
      return spec.type.values.map((v) => ({
        label: v.value,
        kind: CompletionItemKind.EnumMember,
        detail: context.key === 'shape' ? `handler: ${shapes.find((s) => s.shape === v.value)?.handler ?? v.value}` : undefined,
        documentation: v.doc,
        textEdit: { range: wholeValue(), newText: v.value },
      }));
    case 'boolean':
      return ['true', 'false'].map((v) => ({ label: v, kind: CompletionItemKind.EnumMember, textEdit: { range: wholeValue(), newText: v } }));
    case 'node-ref':
    case 'node-ref-list':
      return nodeIdItems(analysis, wholeValue());
    case 'condition': {
      if (!quoted) return [quoteItem(wholeValue())];
      const labels = edgesFrom(flow, sources).flatMap((edge) => (edge.label ? [edge.label] : []));
      return embedded((text, index) => completeCondition(text, index, { contextKeys: contextKeysBefore(flow, sources), labels: [...new Set(labels)] }));
    }
    case 'stylesheet':
      if (!quoted) return [quoteItem(wholeValue())];
      return embedded((text, index) => completeStylesheet(text, index, stylesheetFacts(flow)));
    case 'text':
    case 'command': {
      const subjects = context.list?.owner === 'node' ? context.list.subjects.map(tokenValue) : [];
      const critiqued = subjects.filter((id) => flow.nodes.get(id)?.attributes.has('feedback_from'));
      const { goal } = flow;
      return embedded((text, index) =>
        completeVariables(text, index, {
          ...(goal ? { goal } : {}),
          critiquedNodeIds: critiqued,
          contextKeys: subjects.length > 0 ? contextKeysBefore(flow, subjects) : [],
          usedNames: variablesUsedIn(analysis, value),
        }),
      );
    }
    default:
      return [];
  }
}

/** Variable names in the other prompt and command values of the text. */
function variablesUsedIn(view: DocumentView, except: Token | undefined): string[] {
  const names = new Set<string>();
  for (const { start, names: used } of variablesByValue(view.outline)) if (start !== except?.start) for (const name of used) names.add(name);
  return [...names];
}

const variableIndexes = new WeakMap<Outline, readonly { start: number; names: readonly string[] }[]>();

/** The variables each prompt or command value of the outline names, by the value's start; read once per outline. */
function variablesByValue(outline: Outline): readonly { start: number; names: readonly string[] }[] {
  const known = variableIndexes.get(outline);
  if (known) return known;
  const found: { start: number; names: string[] }[] = [];
  for (let e = 0; e < outline.count('entries'); e++) {
    const value = outline.field('entries', e, ENTRY.value);
    if (value < 0 || !outline.textOf(value).includes('$')) continue;
    const kind = attributeSpec(outline.valueOf(outline.field('entries', e, ENTRY.key)))?.type.kind;
    if (kind !== 'text' && kind !== 'command') continue;
    found.push({ start: outline.startOf(value), names: findVariables(tokenContent(outline.token(value)).value).map((variable) => variable.name) });
  }
  variableIndexes.set(outline, found);
  return found;
}

/** A gate's default choice names one of its outgoing edges: by target id or by label. */
function gateChoiceItems(flow: OutlineFlow, gateIds: readonly string[], range: Range): CompletionItem[] {
  const edges = edgesFrom(flow, gateIds);
  const targets = edges.map((edge) => ({ label: edge.to, kind: CompletionItemKind.Variable, detail: 'target node', textEdit: { range, newText: edge.to } }));
  const labels = edges.flatMap(({ label, to }) => (label ? [{ label, kind: CompletionItemKind.Value, detail: `edge label → ${to}`, textEdit: { range, newText: label } }] : []));
  return [...targets, ...labels];
}

function quoteItem(range: Range): CompletionItem {
  return { label: '"…"', kind: CompletionItemKind.Snippet, detail: 'start a quoted value', textEdit: { range, newText: '"$0"' }, insertTextFormat: InsertTextFormat.Snippet, command: retrigger };
}

function stylesheetFacts(flow: OutlineFlow) {
  const nodes = [...flow.nodes.values()];
  const values = (key: string) => nodes.flatMap((n) => n.attributes.get(key)?.value ?? []);
  return {
    classes: [...new Set([...values('class').flatMap((value) => value.split(',').map((c) => c.trim())), ...flow.classes].filter(Boolean))],
    nodeIds: flow.nodeIds,
    models: [...new Set(values('llm_model'))],
  };
}

/** Node ids the current text names. */
export function nodeIdsOf(analysis: DocumentView): readonly string[] {
  return outlineFlow(analysis.outline).nodeIds;
}

/** The handlers of the nodes a list belongs to, from their own node statements. */
function subjectHandlers(analysis: DocumentView, ids: readonly string[]): string[] {
  return ids.length === 0 ? [] : nodesNamed(analysis.outline, ids).map((node) => resolveHandlerType(node));
}

function nodeIdItems(analysis: DocumentView, range: Range): CompletionItem[] {
  const { nodeIds, nodes } = outlineFlow(analysis.outline);
  return nodeIds.map((id) => {
    const node = nodes.get(id);
    return { label: id, kind: CompletionItemKind.Variable, ...(node ? { detail: resolveHandlerType(node) } : {}), textEdit: { range, newText: id } };
  });
}

function statementItems(analysis: DocumentView, inSubgraph: boolean, range: Range): CompletionItem[] {
  const keywords = ['node', 'edge', 'graph'].map((k) => ({
    label: `${k} [...]`,
    kind: CompletionItemKind.Keyword,
    detail: `${k} attribute defaults`,
    filterText: k,
    sortText: `2${k}`,
    textEdit: { range, newText: `${k} [$0]` },
    insertTextFormat: InsertTextFormat.Snippet,
    command: retrigger,
  }));
  const subgraph = { label: 'subgraph', kind: CompletionItemKind.Keyword, sortText: '2subgraph', textEdit: { range, newText: 'subgraph cluster_${1:name} {\n\tlabel="${2:Label}"\n\t$0\n}' }, insertTextFormat: InsertTextFormat.Snippet };
  const graphAttributes = specsFor(inSubgraph ? 'subgraph' : 'graph')
    .filter((spec) => spec.type.kind !== 'graphviz' || inSubgraph)
    .map((spec) => ({
      label: `${spec.name}=`,
      kind: CompletionItemKind.Property,
      detail: describeType(spec),
      documentation: { kind: MarkupKind.Markdown, value: attributeDocumentation(spec) },
      filterText: spec.name,
      sortText: `3${spec.name}`,
      textEdit: { range, newText: `${bareKey(spec.name)}=${valueSnippet(spec)}` },
      insertTextFormat: InsertTextFormat.Snippet,
    }));
  const snippetItems = snippets.map((s) => ({ label: s.label, kind: CompletionItemKind.Snippet, detail: s.detail, sortText: `4${s.label}`, textEdit: { range, newText: s.body }, insertTextFormat: InsertTextFormat.Snippet }));
  return [...nodeIdItems(analysis, range).map((item) => ({ ...item, sortText: `1${item.label}` })), ...keywords, subgraph, ...graphAttributes, ...snippetItems];
}
