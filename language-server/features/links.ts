/** Document links for file-valued attributes: dot_file, response_schema (when a path), must_write. */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DocumentLink } from 'vscode-languageserver';
import type { DocumentView } from '../analysis/document-analysis';
import { offsetsToRange } from '../lsp-convert';
import { forEachListEntry } from '../syntax/outline';
import { HTML, valueSpan } from '../syntax/scanner';

/** must_write is relative to the run's working directory: the workspace root when known. */
export function documentLinks(analysis: DocumentView, workspaceRoot: string | undefined): DocumentLink[] {
  if (!analysis.sourcePath) return [];
  const dir = path.dirname(analysis.sourcePath);
  const links: DocumentLink[] = [];
  const { outline } = analysis;
  forEachListEntry(outline, (key, value) => {
    if (value < 0 || outline.kindOf(value) === HTML) return;
    const name = outline.valueOf(key);
    if (name !== 'dot_file' && name !== 'must_write' && name !== 'response_schema') return;
    const target = outline.valueOf(value).trim();
    if (!target || target.includes('$') || (name === 'response_schema' && target.startsWith('{'))) return;
    const base = name === 'must_write' ? (workspaceRoot ?? dir) : dir;
    const { start, end } = valueSpan(outline.token(value));
    links.push({
      range: offsetsToRange(analysis.lineIndex, start, end),
      target: pathToFileURL(path.resolve(base, target)).href,
      tooltip: name === 'must_write' ? 'File this node must write (relative to the run directory)' : name === 'dot_file' ? 'Open the sub-pipeline' : 'Open the response schema',
    });
  });
  return links;
}
