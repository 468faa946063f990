import fs from 'node:fs/promises';
import path from 'node:path';
import type { AgentTool } from './agent-tool';
import { numberArg, stringArg } from './agent-tool';
import { ToolError } from './tool-error';
import { readConfinedFile, writeConfinedFile } from './confined-file';

const maxReadBytes = 256 * 1024;
/** Larger files are refused outright rather than loaded into the engine's memory. */
const maxFileBytes = 16 * 1024 * 1024;

async function fsCall<T>(what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolError(`${what}: no such file or directory`);
    if (code === 'EISDIR') throw new ToolError(`${what}: is a directory`);
    if (code === 'ENOTDIR') throw new ToolError(`${what}: not a directory`);
    throw new ToolError(`${what}: ${(error as Error).message}`);
  }
}

export const readFileTool: AgentTool = {
  definition: {
    name: 'read_file',
    description: 'Read a text file in the working directory. Optional 1-based `offset` line and `limit` lines.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, offset: { type: 'integer', minimum: 1 }, limit: { type: 'integer', minimum: 1 } },
      required: ['path'],
    },
  },
  async execute(args, { workspace }) {
    const file = workspace.resolve(args.path);
    const text = await readConfinedFile(file, `read_file ${String(args.path)}`, maxFileBytes);
    const offset = numberArg(args, 'offset');
    const limit = numberArg(args, 'limit');
    const selected = offset !== undefined || limit !== undefined ? text.split('\n').slice((offset ?? 1) - 1, limit !== undefined ? (offset ?? 1) - 1 + limit : undefined).join('\n') : text;
    if (Buffer.byteLength(selected) <= maxReadBytes) return selected;
    return `${selected.slice(0, maxReadBytes)}\n[truncated: the file is larger than ${maxReadBytes} bytes; read it with offset/limit]`;
  },
};

export const writeFileTool: AgentTool = {
  definition: {
    name: 'write_file',
    description: 'Create or overwrite a file in the working directory (parent directories are created).',
    parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  },
  async execute(args, { workspace }) {
    const file = workspace.resolve(args.path);
    const content = stringArg(args, 'content');
    if (content === undefined) throw new ToolError('write_file: `content` (string) is required');
    await fsCall(`write_file ${String(args.path)}`, () => fs.mkdir(path.dirname(file), { recursive: true }));
    await writeConfinedFile(file, `write_file ${String(args.path)}`, content);
    return `wrote ${Buffer.byteLength(content)} bytes to ${workspace.relative(file)}`;
  },
};

export const editFileTool: AgentTool = {
  definition: {
    name: 'edit_file',
    description: 'Replace an exact string in a file. `old_string` must occur exactly once unless `replace_all` is true.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' }, replace_all: { type: 'boolean' } },
      required: ['path', 'old_string', 'new_string'],
    },
  },
  async execute(args, { workspace }) {
    const file = workspace.resolve(args.path);
    const oldString = stringArg(args, 'old_string');
    const newString = stringArg(args, 'new_string');
    if (!oldString || newString === undefined) throw new ToolError('edit_file: non-empty `old_string` and `new_string` (strings) are required');
    const text = await readConfinedFile(file, `edit_file ${String(args.path)}`, maxFileBytes);
    const occurrences = text.split(oldString).length - 1;
    if (occurrences === 0) throw new ToolError(`edit_file ${String(args.path)}: old_string not found`);
    if (occurrences > 1 && args.replace_all !== true) throw new ToolError(`edit_file ${String(args.path)}: old_string occurs ${occurrences} times; make it unique or set replace_all`);
    const updated = args.replace_all === true ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
    await writeConfinedFile(file, `edit_file ${String(args.path)}`, updated);
    return `replaced ${args.replace_all === true ? occurrences : 1} occurrence(s) in ${workspace.relative(file)}`;
  },
};

export const listDirTool: AgentTool = {
  definition: {
    name: 'list_dir',
    description: 'List a directory of the working directory (default: its root). Directories end with "/".',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
  async execute(args, { workspace }) {
    const dir = workspace.resolve(stringArg(args, 'path') ?? '.');
    const entries = await fsCall(`list_dir ${String(args.path ?? '.')}`, () => fs.readdir(dir, { withFileTypes: true }));
    if (entries.length === 0) return '(empty directory)';
    return entries
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
      .sort()
      .join('\n');
  },
};
