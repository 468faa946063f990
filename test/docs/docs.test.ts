// The README and the user guide are checked as a reader would use them: every link leads to a file
// (and a heading) that exists, and every `attractor` command they show names a real command and
// real options of it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';
import { commandLines, headingSlugs, localLinks, optionsOf } from './markdown';

const root = path.resolve(__dirname, '../..');
const README_MAX_LINES = 250;

function guidePages(): string[] {
  const docs = path.join(root, 'docs');
  const pages = fs.readdirSync(docs).filter((name) => name.endsWith('.md')).map((name) => path.join(docs, name));
  return [path.join(root, 'README.md'), ...pages];
}

const relative = (file: string): string => path.relative(root, file);

describe('README and user guide', () => {
  let cli: string;
  const helpOf = new Map<string, string>();
  const help = (command: string): string => {
    let text = helpOf.get(command);
    if (text === undefined) {
      const result = spawnSync(process.execPath, [cli, ...(command ? [command] : []), '--help'], { encoding: 'utf8' });
      text = result.stdout;
      helpOf.set(command, text);
    }
    return text;
  };
  before(() => {
    cli = bundledCli();
  });

  it(`the README stays a front page (at most ${README_MAX_LINES} lines)`, () => {
    const lines = fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move detail into docs/`);
  });

  it('every local link leads to a file that exists, and an anchor to a heading of it', () => {
    const broken: string[] = [];
    for (const page of guidePages()) {
      const text = fs.readFileSync(page, 'utf8');
      for (const link of localLinks(text)) {
        const target = link.path === '' ? page : path.resolve(path.dirname(page), decodeURIComponent(link.path));
        if (!fs.existsSync(target)) {
          broken.push(`${relative(page)}:${link.line}: ${link.path} does not exist`);
          continue;
        }
        if (link.anchor && target.endsWith('.md') && !headingSlugs(fs.readFileSync(target, 'utf8')).has(link.anchor)) {
          broken.push(`${relative(page)}:${link.line}: ${relative(target)} has no heading #${link.anchor}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('every attractor command shown is a command of the CLI, with options it has', () => {
    const commands = help('');
    const wrong: string[] = [];
    for (const page of guidePages()) {
      for (const shown of commandLines(fs.readFileSync(page, 'utf8'))) {
        const [command] = shown.words;
        if (!command || !new RegExp(`^  ${command} `, 'm').test(commands)) {
          wrong.push(`${relative(page)}:${shown.line}: attractor ${command ?? ''} is not a command`);
          continue;
        }
        const known = optionsOf(help(command));
        for (const option of shown.options) {
          if (!known.has(option)) wrong.push(`${relative(page)}:${shown.line}: attractor ${command} has no ${option}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('every npm script shown exists in package.json', () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const missing: string[] = [];
    for (const page of guidePages()) {
      for (const match of fs.readFileSync(page, 'utf8').matchAll(/npm run ([a-z][\w:-]*)/g)) {
        if (!(match[1]! in scripts)) missing.push(`${relative(page)}: npm run ${match[1]}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('every guide page is reachable from the README by links', () => {
    const reached = new Set<string>();
    const queue = [path.join(root, 'README.md')];
    for (let page = queue.pop(); page !== undefined; page = queue.pop()) {
      if (reached.has(page) || !page.endsWith('.md') || !fs.existsSync(page)) continue;
      reached.add(page);
      for (const link of localLinks(fs.readFileSync(page, 'utf8'))) if (link.path) queue.push(path.resolve(path.dirname(page), link.path));
    }
    assert.deepEqual(guidePages().filter((page) => !reached.has(page)).map(relative), []);
  });
});
