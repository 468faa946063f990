/** Document links for file-valued attributes: dot_file, response_schema (when a path), must_write. */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DocumentLink } from 'vscode-languageserver';
import type { DocumentView } from '../analysis/document-analysis';
import { offsetsToRange } from '../lsp-convert';
import { tokenValue } from '../syntax/scanner';

/** must_write is relative to the run's working directory: the workspace root when known. */
export function documentLinks(analysis: DocumentView, workspaceRoot: string | undefined): DocumentLink[] {
  if (!analysis.sourcePath) return [];
  const dir = path.dirname(analysis.sourcePath);
  const links: DocumentLink[] = [];
  for (const list of analysis.outline.lists) {
    for (const { key, value } of list.entries) {
      if (!value || value.kind === 'html') continue;
      const name = tokenValue(key);
      const target = tokenValue(value).trim();
      if (!target || target.includes('$')) continue;
      const base = name === 'must_write' ? (workspaceRoot ?? dir) : dir;
      if (name !== 'dot_file' && name !== 'must_write' && !(name === 'response_schema' && !target.startsWith('{'))) continue;
      const inner = value.kind === 'string' ? { start: value.start + 1, end: value.end - (value.terminated ? 1 : 0) } : value;
      links.push({
        range: offsetsToRange(analysis.lineIndex, inner.start, inner.end),
        target: pathToFileURL(path.resolve(base, target)).href,
        tooltip: name === 'must_write' ? 'File this node must write (relative to the run directory)' : name === 'dot_file' ? 'Open the sub-pipeline' : 'Open the response schema',
      });
    }
  }
  return links;
}
