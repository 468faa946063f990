import fs from 'node:fs';
import path from 'node:path';
import { readFileHead } from '../../engine/io/read-file-checked';

/** Files whose first lines say how a project is built and checked: the gate commands a draft should use. */
const keyFiles = ['package.json', 'Makefile', 'pyproject.toml', 'setup.cfg', 'Cargo.toml', 'go.mod', 'pom.xml', 'build.gradle', 'README.md'];
const linesPerFile = 40;
const maxEntries = 80;

/** A cheap look at the workspace for the model: the top-level listing and the heads of key files. */
export function workspaceSummary(root: string | undefined): string {
  if (!root) return 'No workspace folder is open.';
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true }).filter((entry) => entry.name !== '.git' && entry.name !== 'node_modules');
  } catch (error) {
    return `The workspace folder ${root} cannot be read (${(error as Error).message}).`;
  }
  const names = entries.slice(0, maxEntries).map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
  const parts = [`Workspace ${path.basename(root)}, top level: ${names.join(', ')}${entries.length > maxEntries ? `, … (${entries.length} entries)` : ''}`];
  for (const file of keyFiles) {
    let text: string;
    try {
      text = readFileHead(path.join(root, file), 64 * 1024).text;
    } catch {
      continue;
    }
    const head = text.split('\n').slice(0, linesPerFile).join('\n');
    parts.push(`--- ${file} (first ${linesPerFile} lines) ---\n${head}`);
  }
  return parts.join('\n\n');
}
