// The manifest against what it points to, in the files `vsce` packages: what VS Code finds (or
// silently does not) when it installs the .vsix.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { frontEndDocs, ruleAnchor, ruleDocs } from '../../engine/validate/rule-docs';
import { ensureTestBundle, LspClient } from '../language-server/lsp-client';

const repo = path.resolve(__dirname, '../..');

interface Grammar {
  readonly language?: string;
  readonly scopeName: string;
  readonly path: string;
  readonly embeddedLanguages?: Record<string, string>;
}
interface Manifest {
  readonly contributes: {
    readonly languages: { readonly id: string; readonly configuration?: string }[];
    readonly grammars: Grammar[];
    readonly breakpoints?: { readonly language: string }[];
    readonly debuggers?: { readonly languages?: string[] }[];
    readonly walkthroughs?: { readonly steps: { readonly media: { readonly image?: string; readonly markdown?: string } }[] }[];
    readonly configurationDefaults?: Record<string, unknown>;
  };
}

const manifest = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as Manifest;
const languageIds = new Set(manifest.contributes.languages.map((l) => l.id));

/** The files `vsce package` puts into the .vsix (the bundles only when built, so they are not asked about here). */
function packagedFiles(): Set<string> {
  const bin = path.join(repo, 'node_modules', '.bin', 'vsce');
  const ls = spawnSync(bin, ['ls', '--no-dependencies'], { cwd: repo, encoding: 'utf8' });
  assert.equal(ls.status, 0, ls.stderr);
  return new Set(ls.stdout.split('\n').map((line) => line.trim()).filter(Boolean));
}
const packaged = packagedFiles();

const relative = (manifestPath: string) => path.posix.normalize(manifestPath.replace(/^\.\//, ''));

function assertPackaged(manifestPath: string, what: string): string {
  const file = relative(manifestPath);
  assert.ok(packaged.has(file), `${what} ${manifestPath} is not in the .vsix (.vscodeignore)`);
  return fs.readFileSync(path.join(repo, file), 'utf8');
}

/** The slug VS Code's Markdown support and GitHub give a heading: what a `#fragment` must equal. */
function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[\][!/'"#$%&()*+,.:;<=>?@\\^{|}~`]/g, '')
    .replace(/^-+|-+$/g, '');
}

describe('package.json contributes, against the packaged files', () => {
  it('every grammar is packaged, names the scope its file declares, and maps each embedded scope to a language', () => {
    for (const grammar of manifest.contributes.grammars) {
      const file = JSON.parse(assertPackaged(grammar.path, 'grammar')) as { scopeName: string };
      assert.equal(grammar.scopeName, file.scopeName, `${grammar.path}: VS Code looks the grammar up by scopeName`);
      if (grammar.language) assert.ok(languageIds.has(grammar.language), `grammar language ${grammar.language}`);
      const embedded = new Set(JSON.stringify(file).match(/meta\.embedded\.[\w.-]+/g) ?? []);
      assert.deepEqual(new Set(Object.keys(grammar.embeddedLanguages ?? {})), embedded, 'embeddedLanguages covers exactly the grammar\'s embedded scopes');
    }
  });

  it('the syntax tests use the scope the manifest registers', () => {
    for (const test of fs.readdirSync(path.join(repo, 'test', 'syntaxes')).filter((f) => f.endsWith('.test.dot'))) {
      const header = /SYNTAX TEST "([^"]+)"/.exec(fs.readFileSync(path.join(repo, 'test', 'syntaxes', test), 'utf8'));
      assert.ok(manifest.contributes.grammars.some((g) => g.scopeName === header?.[1]), `${test} tests ${header?.[1]}`);
    }
  });

  it('every language configuration is packaged JSON; every language id used is declared', () => {
    for (const language of manifest.contributes.languages) {
      if (language.configuration) assert.doesNotThrow(() => JSON.parse(assertPackaged(language.configuration as string, 'language configuration')));
    }
    const used = [
      ...(manifest.contributes.breakpoints ?? []).map((b) => b.language),
      ...(manifest.contributes.debuggers ?? []).flatMap((d) => d.languages ?? []),
      ...Object.keys(manifest.contributes.configurationDefaults ?? {}).flatMap((key) => /^\[(.+)\]$/.exec(key)?.[1] ?? []),
    ];
    for (const id of used) assert.ok(languageIds.has(id), `language ${id} is not declared`);
  });

  it('VS Code\'s word-based suggestions are off for pipelines, so comment words do not fill completion', () => {
    assert.deepEqual(manifest.contributes.configurationDefaults?.['[attractor-dot]'], { 'editor.wordBasedSuggestions': 'off' });
  });

  it('every walkthrough medium is packaged', () => {
    for (const step of (manifest.contributes.walkthroughs ?? []).flatMap((w) => w.steps)) {
      for (const medium of [step.media.image, step.media.markdown]) if (medium) assertPackaged(medium, 'walkthrough medium');
    }
  });
});

describe('diagnostic code links in the installed extension', () => {
  // The extension as VS Code installs it: the packaged files, with the bundles beside them.
  const installed = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-installed-'));
  let client: LspClient;
  before(async () => {
    const dist = ensureTestBundle();
    for (const file of packaged) {
      fs.mkdirSync(path.dirname(path.join(installed, file)), { recursive: true });
      fs.copyFileSync(path.join(repo, file), path.join(installed, file));
    }
    fs.mkdirSync(path.join(installed, 'dist'), { recursive: true });
    for (const bundle of ['language-server.js', 'language-server-main.js', 'language-server-worker.js', 'language-server-checker.js']) fs.copyFileSync(path.join(dist, bundle), path.join(installed, 'dist', bundle));
    client = await LspClient.start({ diagnosticsDelayMs: 10 }, path.join(installed, 'dist', 'language-server.js'));
  });
  after(async () => {
    await client.stop();
    fs.rmSync(installed, { recursive: true, force: true });
  });

  it('every code\'s href is a heading of the packaged docs/rules.md', async () => {
    const rulesDoc = assertPackaged('docs/rules.md', 'the rules page');
    const anchors = new Set([...rulesDoc.matchAll(/^#+ (.+)$/gm)].map((m) => headingSlug(m[1] as string)));
    // One plain rule, a ledger-coded one, and the upper-case CMD codes.
    const uri = pathToFileURL(path.join(installed, 'codes.dot')).href;
    await client.open(uri, [
      'digraph codes {',
      '  start [shape=Mdiamond]',
      '  gate [shape=parallelogram, tool_command="pytest -q | tail -5 && echo ok"]',
      '  route [shape=diamond]',
      '  start -> gate -> route',
      '  route -> gate [condition="outcome=fail"]',
      '  route -> gate [condition="context.x=1"]',
      '  lonely [prompt="never runs"]',
      '}',
    ].join('\n'));
    const published = await client.diagnosticsFor(uri, (p) => p.diagnostics.length > 0);
    const codes = new Set(published.diagnostics.map((d) => String(d.code)));
    for (const code of ['terminal_node', 'TOPO-001', 'CMD-001', 'CMD-002']) assert.ok(codes.has(code), `${code} in ${[...codes].join(', ')}`);
    const rulesUri = pathToFileURL(path.join(installed, 'docs', 'rules.md')).href;
    for (const diagnostic of published.diagnostics) {
      const [page, fragment] = (diagnostic.codeDescription?.href ?? '').split('#');
      assert.equal(page, rulesUri, `${String(diagnostic.code)} links the packaged page`);
      assert.ok(anchors.has(fragment as string), `${String(diagnostic.code)}: #${fragment} is no heading of docs/rules.md`);
    }
    for (const [rule, doc] of Object.entries({ ...ruleDocs, ...frontEndDocs })) {
      const anchor = ruleAnchor(rule, doc.code);
      assert.ok(anchors.has(anchor), `${rule}: #${anchor} is no heading of docs/rules.md`);
    }
  });
});
