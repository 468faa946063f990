// What the docs test reads out of Markdown: local links, heading anchors and the `attractor`
// command lines of shell code blocks.

export interface LocalLink {
  readonly line: number;
  /** The file part, relative to the page ('' for an anchor on the page itself). */
  readonly path: string;
  readonly anchor?: string;
}

export interface CommandLine {
  readonly line: number;
  /** The words after `attractor`, the first being the command. */
  readonly words: readonly string[];
  readonly options: readonly string[];
}

const FENCE = /^\s*```/;

/** Lines outside fenced code blocks, with their one-based numbers. */
function proseLines(text: string): Array<[number, string]> {
  const lines: Array<[number, string]> = [];
  let inCode = false;
  text.split('\n').forEach((line, index) => {
    if (FENCE.test(line)) inCode = !inCode;
    else if (!inCode) lines.push([index + 1, line.replace(/`[^`]*`/g, '')]);
  });
  return lines;
}

/** Links and images to files of the repository (not URLs), outside code. */
export function localLinks(text: string): LocalLink[] {
  const links: LocalLink[] = [];
  for (const [line, content] of proseLines(text)) {
    for (const match of content.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf('#');
      links.push(hash < 0 ? { line, path: target } : { line, path: target.slice(0, hash), anchor: target.slice(hash + 1) });
    }
  }
  return links;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  for (const [, content] of proseLines(text.replace(/`/g, ''))) {
    const heading = /^#{1,6}\s+(.*)$/.exec(content);
    if (!heading) continue;
    const base = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    let slug = base;
    for (let n = 1; slugs.has(slug); n++) slug = `${base}-${n}`;
    slugs.add(slug);
  }
  return slugs;
}

/**
 * Every `attractor …` command of the shell code blocks: a line ending in `\`, or followed by lines
 * indented deeper than it, continues; `# …` after a space is a comment.
 */
export function commandLines(text: string): CommandLine[] {
  const commands: CommandLine[] = [];
  let inShell = false;
  let current: { line: number; indent: number; text: string } | undefined;
  const finish = (): void => {
    if (current) commands.push(parseCommand(current.line, current.text));
    current = undefined;
  };
  text.split('\n').forEach((raw, index) => {
    const fence = /^\s*```(\w*)/.exec(raw);
    if (fence) {
      finish();
      inShell = !inShell && (fence[1] === 'sh' || fence[1] === 'bash');
      return;
    }
    if (!inShell) return;
    const line = raw.replace(/(^|\s)#.*$/, '').trimEnd();
    const indent = /^\s*/.exec(raw)![0].length;
    const continues = current && (indent > current.indent || current.text.endsWith('\\'));
    if (continues && current) {
      if (line.trim()) current.text = `${current.text.replace(/\\$/, '')} ${line.trim()}`;
      return;
    }
    finish();
    const start = /(?:^|\s)(?:npx\s+)?attractor\s+(.*)$/.exec(line);
    if (start) current = { line: index + 1, indent, text: start[1]! };
  });
  finish();
  return commands;
}

function parseCommand(line: number, text: string): CommandLine {
  const words = text.split(/\s+/).filter(Boolean);
  const options = [...text.matchAll(/(?:^|[\s[])(--[a-z][a-z0-9-]*)/g)].map((match) => match[1]!);
  return { line, words, options };
}

/** The long options a command's `--help` lists. */
export function optionsOf(help: string): Set<string> {
  return new Set([...help.matchAll(/--[a-z][a-z0-9-]*/g)].map((match) => match[0]));
}
