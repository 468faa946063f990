// Hover text on an LLM node: where it would run, asked of the backend a launch would use. Pure (no `vscode`).
import { resolveHandlerType } from '../../engine/model/handler-types';
import type { SourceSpan } from '../../engine/model/source';
import type { LlmBackend } from '../../engine/llm/llm-backend';
import { preparePipeline } from '../../engine/prepare';
import { modelSelectionOf } from '../../engine/runtime/node-config';
import { vscodeLmSource } from './model-mapping';

const contains = (span: SourceSpan, offset: number): boolean => span.start <= offset && offset <= span.end;

/** Markdown for the LLM node declared or referenced at the zero-based position, or undefined elsewhere. */
export function routeHoverAt(text: string, line: number, character: number, backend: Pick<LlmBackend, 'route'>): string | undefined {
  // The transformed graph, as a launch sees it: a model stylesheet may set the node's llm_model.
  const { graph, lineIndex } = preparePipeline(text, { mode: 'lint' });
  if (!graph) return undefined;
  const offset = lineIndex.offsetAt(line, character);
  const node = [...graph.nodes.values()].find((candidate) => [...candidate.declarations, ...candidate.references].some((span) => contains(span, offset)));
  if (!node || resolveHandlerType(node) !== 'codergen') return undefined;
  const route = backend.route(node.id, modelSelectionOf(node, graph));
  if (!route.ok) return `**Model:** none can run this node: ${route.message}`;
  const { model, source } = route.value;
  return source === vscodeLmSource ? `**Model:** VS Code's chat model \`${model}\`` : `**Model:** \`${model}\` on ${source}, with the stored API key`;
}
