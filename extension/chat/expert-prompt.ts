import fs from 'node:fs';
import path from 'node:path';

/** Where the prompt file lives inside the extension (or the repository, for tests). */
export function expertPromptPath(extensionRoot: string): string {
  return path.join(extensionRoot, 'extension', 'chat', 'attractor-expert.md');
}

/** The attractor-expert system prompt, without its leading HTML comment (versioning notes for maintainers). */
export function loadExpertPrompt(file: string): string {
  return fs.readFileSync(file, 'utf8').replace(/^<!--[\s\S]*?-->\s*/, '');
}
