import path from 'node:path';
import type { SpanDiagnostic } from '../model/diagnostics';
import type { Attributes, Graph } from '../model/graph';
import { setAttribute, valueSpanOf, withNodeAttributes } from '../model/graph';
import type { Transform } from './transform';
import { isRecord } from '../model/json';
import { READ_LIMITS } from '../io/read-file-checked';

/**
 * Ledger response_schema: an inline JSON object, or a path to one resolved beside the .dot file.
 * The attribute's value becomes the schema's JSON text; a value that resolves to neither fails loud.
 */
export const responseSchemaTransform: Transform = {
  name: 'response_schema',
  apply(graph: Graph, context) {
    const updates = new Map<string, Attributes>();
    const diagnostics: SpanDiagnostic[] = [];
    const baseDir = graph.sourcePath ? path.dirname(graph.sourcePath) : process.cwd();
    for (const node of graph.nodes.values()) {
      const attribute = node.attributes.get('response_schema');
      if (!attribute) continue;
      const raw = attribute.value.trim();
      const fromFile = !raw.startsWith('{');
      const file = fromFile ? path.resolve(baseDir, raw) : undefined;
      const read = file ? context.readFile(file, READ_LIMITS.schema) : { text: raw };
      const text = 'text' in read ? read.text : undefined;
      const problem = 'problem' in read ? read.problem : schemaProblem(read.text);
      if (problem !== undefined || text === undefined) {
        const range = valueSpanOf(attribute);
        diagnostics.push({
          rule: 'response_schema',
          severity: 'error',
          message: `Node \`${node.id}\`: response_schema ${fromFile ? `"${raw}"` : ''} is not a JSON Schema object: ${problem}.`.replace('  ', ' '),
          nodeId: node.id,
          ...(range ? { range } : {}),
        });
        continue;
      }
      if (fromFile) updates.set(node.id, setAttribute(node.attributes, { ...attribute, value: text, origin: 'transform' }));
    }
    return { graph: withNodeAttributes(graph, updates), diagnostics };
  },
};

function schemaProblem(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? undefined : 'the JSON is not an object';
  } catch (error) {
    return `invalid JSON (${(error as Error).message})`;
  }
}
