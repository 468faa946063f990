import path from 'node:path';
import type { SpanDiagnostic, SpanFix } from '../../model/diagnostics';
import { outgoingEdges, type GraphNode } from '../../model/graph';
import { edgeCaption, questionTypeOf, yesNoEdges } from '../../model/question-types';
import { isBuiltinHandlerType } from '../../model/handler-types';
import type { LineIndex } from '../../model/source';
import { ownerOf, writtenAttributes } from '../attribute-walk';
import { insertNodeAttributeEdit, removeAttributeEdit, replaceValueEdit } from '../fixes';
import { analyze } from '../graph-analysis';
import type { LintRule } from '../rule';
import { attributeRangeOf, valueRangeOf } from '../value-location';

const hasValue = (node: GraphNode, key: string) => (node.attributes.get(key)?.value.trim() ?? '') !== '';

/** Canonical §7.2: an LLM node needs something to do. */
export const promptOnLlmNodesRule: LintRule = {
  name: 'prompt_on_llm_nodes',
  tier: 'validate',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    const { handlerOf } = analyze(context);
    for (const node of context.graph.nodes.values()) {
      // An implicit node (only edges mention it) is reported once, by edge_target_exists.
      if (handlerOf(node) !== 'codergen' || hasValue(node, 'prompt') || hasValue(node, 'label') || node.declarations.length === 0) continue;
      yield {
        rule: 'prompt_on_llm_nodes',
        severity: 'warning',
        message: `\`${node.id}\` is an LLM node (box) without a prompt or label: add \`prompt="..."\` saying what it must do, or give it the shape of the handler you meant.`,
        nodeId: node.id,
        range: node.idRange,
      };
    }
  },
};

/** Ledger tool_command_requires_tool_handler: a tool_command on a built-in non-tool node would be silently ignored. */
export const toolCommandRequiresToolHandlerRule: LintRule = {
  name: 'tool_command_requires_tool_handler',
  tier: 'validate',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    const { handlerOf } = analyze(context);
    for (const node of context.graph.nodes.values()) {
      const command = node.attributes.get('tool_command');
      const handler = handlerOf(node);
      if (!command || command.value.trim() === '' || handler === 'tool' || !isBuiltinHandlerType(handler)) continue;
      const fix = toToolNodeFix(context.lineIndex, node);
      const range = attributeRangeOf(command) ?? node.idRange;
      yield {
        rule: 'tool_command_requires_tool_handler',
        severity: 'error',
        message: `\`${node.id}\` has a tool_command but runs the ${handler} handler, which never runs it: make it a tool node (\`shape=parallelogram\`) or remove tool_command.`,
        nodeId: node.id,
        range,
        ...(fix ? { fix } : {}),
      };
    }
  },
};

/** Turning the node into a tool node is the obvious repair when nothing says it was meant to be an LLM node. */
function toToolNodeFix(lineIndex: LineIndex, node: GraphNode): SpanFix | undefined {
  if (hasValue(node, 'prompt') || node.attributes.has('type') || node.attributes.has('node_type')) return undefined;
  const shape = node.attributes.get('shape');
  const edit = shape?.origin === 'explicit' ? replaceValueEdit(shape, 'parallelogram') : shape ? undefined : insertNodeAttributeEdit(lineIndex, node, 'shape', 'parallelogram');
  return edit ? { title: 'Make it a tool node (shape=parallelogram)', edits: [edit] } : undefined;
}

// Handlers that run no agent and no command, so nothing could write the file.
const nonWriting = new Set(['start', 'exit', 'conditional', 'parallel', 'parallel.fan_in']);

/** Ours: must_write on a node that cannot write makes the node fail every time. */
export const mustWritePlacementRule: LintRule = {
  name: 'must_write_placement',
  tier: 'lint',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    const { handlerOf } = analyze(context);
    for (const written of writtenAttributes(context.graph).withKey('must_write')) {
      const { node, attribute } = written;
      if (!node || attribute.value.trim() === '' || !nonWriting.has(handlerOf(node))) continue;
      const edit = removeAttributeEdit(context.lineIndex, attribute);
      const range = attributeRangeOf(attribute) ?? node.idRange;
      yield {
        rule: 'must_write_placement',
        severity: 'warning',
        message: `\`${node.id}\` is a ${handlerOf(node)} node: it writes nothing, so must_write="${attribute.value}" can never be met. Put must_write on the node that produces the file.`,
        ...ownerOf(written),
        range,
        ...(edit ? { fix: { title: 'Remove must_write', edits: [edit] } } : {}),
      };
    }
  },
};

/** Ours: a folder node runs the graph in dot_file, so it needs one. */
export const folderRequiresDotFileRule: LintRule = {
  name: 'folder_requires_dot_file',
  tier: 'validate',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    const { handlerOf } = analyze(context);
    for (const node of context.graph.nodes.values()) {
      if (handlerOf(node) !== 'pipeline' || hasValue(node, 'dot_file')) continue;
      yield {
        rule: 'folder_requires_dot_file',
        severity: 'error',
        message: `Sub-pipeline node \`${node.id}\` (folder) has no dot_file: add \`dot_file="child.dot"\`, a path beside this file.`,
        nodeId: node.id,
        range: node.idRange,
      };
    }
  },
};

/** Ours: dot_file and stack.child_dotfile must exist beside this .dot (checked when the graph has a file), inside the files the run may load. */
export const dotFileExistsRule: LintRule = {
  name: 'dot_file_exists',
  tier: 'validate',
  restsOn: 'statement',
  *check({ graph, fileExists, files }): Iterable<SpanDiagnostic> {
    if (!graph.sourcePath) return;
    const dir = path.dirname(graph.sourcePath);
    for (const written of writtenAttributes(graph).withKey('dot_file', 'stack.child_dotfile')) {
      const { attribute } = written;
      const value = attribute.value.trim();
      if (value === '' || value.includes('$')) continue; // expanded at run time
      const file = path.resolve(dir, value);
      const refusal = files?.refusal(file);
      if (!refusal && fileExists(file)) continue;
      const range = valueRangeOf(attribute);
      yield {
        rule: 'dot_file_exists',
        severity: 'error',
        message: refusal ? `${attribute.key} "${value}" cannot be loaded: ${refusal}.` : `${attribute.key} "${value}" does not exist (looked for ${file}): paths resolve beside this .dot file.`,
        ...ownerOf(written),
        ...(range ? { range } : {}),
      };
    }
  },
};

/** Ours: a yes_no gate (canonical §6.2 YES_NO) needs its two answers as edges, else no answer can route. */
export const questionTypeEdgesRule: LintRule = {
  name: 'question_type_edges',
  tier: 'validate',
  *check(context): Iterable<SpanDiagnostic> {
    const { handlerOf } = analyze(context);
    for (const node of context.graph.nodes.values()) {
      if (handlerOf(node) !== 'wait.human' || questionTypeOf(node) !== 'yes_no') continue;
      const edges = outgoingEdges(context.graph, node.id);
      if (yesNoEdges(edges)) continue;
      const attribute = node.attributes.get('human.question_type');
      yield {
        rule: 'question_type_edges',
        severity: 'error',
        message: `\`${node.id}\` asks a yes/no question, so it needs exactly two outgoing edges, one labelled yes (\`[Y] …\`) and one no (\`[N] …\`); it has ${edges.length === 0 ? 'none' : edges.map((edge) => `"${edgeCaption(edge)}"`).join(', ')}.`,
        nodeId: node.id,
        range: (attribute && attributeRangeOf(attribute)) ?? node.idRange,
      };
    }
  },
};
