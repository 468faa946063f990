// Hover text on an LLM node: where it would run, asked of the backend a launch would use. Pure (no `vscode`).
import type { LlmBackend } from '../../engine/llm/llm-backend';
import type { NodeAtResult } from '../../host/protocol/language-server';
import { vscodeLmSource } from './model-mapping';

/** Markdown for the node the language server found at the hovered position (`attractor/nodeAt`), or undefined if it is no LLM node. */
export function routeHover(node: NodeAtResult, backend: Pick<LlmBackend, 'route'>): string | undefined {
  if (!node || node.handler !== 'codergen') return undefined;
  const route = backend.route(node.nodeId, node.modelSelection);
  if (!route.ok) return `**Model:** none can run this node: ${route.message}`;
  const { model, source } = route.value;
  return source === vscodeLmSource ? `**Model:** VS Code's chat model \`${model}\`` : `**Model:** \`${model}\` on ${source}, with the stored API key`;
}
