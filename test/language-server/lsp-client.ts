/** Test harness: the bundled server as a child process, spoken to over stdio JSON-RPC. */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ProtocolConnection, PublishDiagnosticsParams, TextDocumentContentChangeEvent } from 'vscode-languageserver-protocol/node';
import { createProtocolConnection, DidChangeTextDocumentNotification, DidOpenTextDocumentNotification, InitializedNotification, InitializeRequest, PublishDiagnosticsNotification, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';

const root = path.resolve(__dirname, '..', '..');
const distServer = path.join(root, 'dist', 'language-server.js');
const distWorker = path.join(root, 'dist', 'language-server-worker.js');
export const fixtures = path.join(__dirname, 'fixtures');

/**
 * Where the tests start the server: a snapshot of dist/language-server.js (and its worker) taken
 * after `node esbuild.mjs`. Other test files rebuild dist/ while these run; a snapshot cannot be
 * caught half-written.
 */
export const serverPath = path.join(os.tmpdir(), `attractor-ls-${process.ppid}`, 'language-server.js');

/** Builds dist/ (unless it is newer than every source) and snapshots the server; test files run concurrently, so a lock directory serialises this. */
export function buildBundle(): void {
  const lock = path.join(os.tmpdir(), 'attractor-ls-build.lock');
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    if (fs.existsSync(serverPath)) return;
    for (let attempt = 0; ; attempt++) {
      if (!bundleIsFresh()) {
        const result = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
        if (result.status !== 0) throw new Error('esbuild failed');
      }
      const server = fs.readFileSync(distServer, 'utf8');
      const worker = fs.readFileSync(distWorker, 'utf8');
      // esbuild ends a bundle with its source map comment: a file without it was caught mid-write.
      if (isComplete(server) && isComplete(worker)) {
        fs.mkdirSync(path.dirname(serverPath), { recursive: true });
        fs.writeFileSync(path.join(path.dirname(serverPath), 'language-server-worker.js'), worker);
        fs.writeFileSync(serverPath, server);
        return;
      }
      if (attempt >= 3) throw new Error('dist/language-server.js keeps changing under the tests');
    }
  } finally {
    fs.rmdirSync(lock);
  }
}

function isComplete(bundle: string): boolean {
  return /\/\/# sourceMappingURL=\S+\s*$/.test(bundle);
}

function bundleIsFresh(): boolean {
  if (!fs.existsSync(distServer) || !fs.existsSync(distWorker)) return false;
  const built = Math.min(fs.statSync(distServer).mtimeMs, fs.statSync(distWorker).mtimeMs);
  const newest = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
      const full = path.join(dir, entry.name);
      return Math.max(latest, entry.isDirectory() ? newest(full) : entry.name.endsWith('.ts') ? fs.statSync(full).mtimeMs : 0);
    }, 0);
  return built >= Math.max(newest(path.join(root, 'engine')), newest(path.join(root, 'language-server')), fs.statSync(path.join(root, 'esbuild.mjs')).mtimeMs);
}

export function fixtureUri(name: string): string {
  return pathToFileURL(path.join(fixtures, name)).href;
}

export function fixtureText(name: string): string {
  return fs.readFileSync(path.join(fixtures, name), 'utf8');
}

export class LspClient {
  private readonly diagnostics = new Map<string, PublishDiagnosticsParams[]>();
  private readonly waiters: (() => void)[] = [];
  private readonly versions = new Map<string, number>();
  readonly exited: Promise<number | null>;

  private constructor(
    readonly process: ChildProcess,
    readonly connection: ProtocolConnection,
  ) {
    this.exited = new Promise((resolve) => process.on('exit', (code) => resolve(code)));
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.diagnostics.set(params.uri, [...(this.diagnostics.get(params.uri) ?? []), params]);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async start(initializationOptions: Record<string, unknown> = { diagnosticsDelayMs: 20 }): Promise<LspClient> {
    const child = spawn(process.execPath, [serverPath, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout as NodeJS.ReadableStream), new StreamMessageWriter(child.stdin as NodeJS.WritableStream));
    connection.listen();
    const client = new LspClient(child, connection);
    await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: pathToFileURL(fixtures).href,
      capabilities: {},
      initializationOptions,
      workspaceFolders: null,
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  async open(uri: string, text: string): Promise<void> {
    this.versions.set(uri, 1);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'dot', version: 1, text } });
  }

  async change(uri: string, changes: TextDocumentContentChangeEvent[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  /** Resolves with the first publication for `uri` (after `after` earlier ones) that satisfies `accept`. */
  async diagnosticsFor(uri: string, accept: (params: PublishDiagnosticsParams) => boolean = () => true): Promise<PublishDiagnosticsParams> {
    for (;;) {
      const found = (this.diagnostics.get(uri) ?? []).find(accept);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  published(uri: string): readonly PublishDiagnosticsParams[] {
    return this.diagnostics.get(uri) ?? [];
  }

  async stop(): Promise<void> {
    try {
      await this.connection.sendRequest('shutdown');
      await this.connection.sendNotification('exit');
    } catch {
      // already gone
    }
    this.connection.dispose();
    await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
    if (this.process.exitCode === null) this.process.kill();
  }
}

/** Zero-based position of the n-th occurrence of `needle` in `text` (plus `delta` characters). */
export function positionOf(text: string, needle: string, delta = 0, occurrence = 0): { line: number; character: number } {
  let index = -1;
  for (let k = 0; k <= occurrence; k++) {
    index = text.indexOf(needle, index + 1);
    if (index < 0) throw new Error(`${needle} not found`);
  }
  const offset = index + delta;
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}
