import fs from 'node:fs/promises';
import path from 'node:path';
import type { AgentTool } from './agent-tool';
import { stringArg } from './agent-tool';
import { BoundedRegex } from './bounded-regex';
import { globToRegExp } from './glob-pattern';
import { ToolError } from './tool-error';
import { readConfinedFile } from './confined-file';
import type { Workspace } from './workspace';

const maxGlobResults = 1000;
const maxGrepMatches = 200;
const maxGrepFileBytes = 1024 * 1024;
const grepBudgetMs = 10_000;
const globBudgetMs = 2_000;
const globBatchSize = 256;
const skippedDirectories = new Set(['.git', 'node_modules']);

/** Files under `dir` as '/'-separated paths relative to it; symlinks are not followed out of the tree. */
async function* walkFiles(dir: string, signal: AbortSignal, prefix = ''): AsyncGenerator<string> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (signal.aborted) return;
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!skippedDirectories.has(entry.name)) yield* walkFiles(path.join(dir, entry.name), signal, relative);
    } else if (entry.isFile()) yield relative;
  }
}

async function searchRoot(workspace: Workspace, requested: string | undefined): Promise<string> {
  const root = workspace.resolve(requested ?? '.');
  const stat = await fs.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) throw new ToolError(`${requested ?? '.'}: not a directory`);
  return root;
}

export const globTool: AgentTool = {
  definition: {
    name: 'glob',
    description: 'Find files by glob pattern (e.g. "src/**/*.ts") under `path` (default: the working directory). .git and node_modules are skipped.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' }, path: { type: 'string' } }, required: ['pattern'] },
  },
  async execute(args, { workspace, signal }) {
    const pattern = stringArg(args, 'pattern');
    if (!pattern) throw new ToolError('glob: `pattern` (string) is required');
    const root = await searchRoot(workspace, stringArg(args, 'path'));
    // A glob like `*a*a*a*a*b` backtracks like a bad regex: it gets grep's time budget.
    const matcher = new BoundedRegex('glob', globToRegExp(pattern).source, globBudgetMs);
    const found: string[] = [];
    const batch: string[] = [];
    const matchBatch = (): void => {
      for (const i of matcher.matchingLines(batch)) found.push(workspace.relative(path.join(root, batch[i] as string)));
      batch.length = 0;
    };
    for await (const file of walkFiles(root, signal)) {
      if (batch.push(file) < globBatchSize) continue;
      matchBatch();
      if (found.length > maxGlobResults) break;
    }
    matchBatch();
    if (found.length > maxGlobResults) return `${found.slice(0, maxGlobResults).join('\n')}\n[more than ${maxGlobResults} matches; narrow the pattern]`;
    return found.length > 0 ? found.join('\n') : 'no files match';
  },
};

export const grepTool: AgentTool = {
  definition: {
    name: 'grep',
    description: 'Search file contents with a JavaScript regular expression. Optional `path` (directory) and `include` glob. Prints file:line: text.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' }, path: { type: 'string' }, include: { type: 'string' } }, required: ['pattern'] },
  },
  async execute(args, { workspace, signal }) {
    const pattern = stringArg(args, 'pattern');
    if (!pattern) throw new ToolError('grep: `pattern` (string) is required');
    const regex = new BoundedRegex('grep', pattern, grepBudgetMs);
    const include = stringArg(args, 'include');
    const includeMatcher = include ? new BoundedRegex('grep include', globToRegExp(include.includes('/') ? include : `**/${include}`).source, globBudgetMs) : undefined;
    const root = await searchRoot(workspace, stringArg(args, 'path'));
    const matches: string[] = [];
    for await (const file of walkFiles(root, signal)) {
      if (includeMatcher && includeMatcher.matchingLines([file]).length === 0) continue;
      const absolute = path.join(root, file);
      // Unreadable, too large or hard-linked (see confined-file.ts): not searched.
      const text = await readConfinedFile(absolute, 'grep', maxGrepFileBytes).catch(() => '');
      if (text.includes('\0')) continue;
      const lines = text.split('\n');
      for (const i of regex.matchingLines(lines)) {
        if (matches.length === maxGrepMatches) return `${matches.join('\n')}\n[more than ${maxGrepMatches} matches; narrow the search]`;
        matches.push(`${workspace.relative(absolute)}:${i + 1}: ${lines[i]}`);
      }
    }
    return matches.length > 0 ? matches.join('\n') : 'no matches';
  },
};
