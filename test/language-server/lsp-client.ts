/** Test harness: the bundled server as a child process, spoken to over stdio JSON-RPC. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ProtocolConnection, PublishDiagnosticsParams, TextDocumentContentChangeEvent } from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, testDist } from '../test-bundle';
import { createProtocolConnection, DidChangeTextDocumentNotification, DidCloseTextDocumentNotification, DidOpenTextDocumentNotification, InitializedNotification, InitializeRequest, PublishDiagnosticsNotification, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';

export const fixtures = path.join(__dirname, 'fixtures');

/** The server under test is the bundled one (test-bundle.ts). */
export const serverPath = path.join(testDist, 'language-server.js');
export const workerPath = path.join(testDist, 'language-server-worker.js');
export { ensureTestBundle };

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

  /**
   * `server` is the bundled server unless a test installs one elsewhere (the packaged layout);
   * `node` runs it (the benches start dot-language-support's server under Node 24); `env` overlays
   * this process's environment (`undefined` removes a variable).
   */
  static async start(initializationOptions: Record<string, unknown> = { diagnosticsDelayMs: 20 }, server = serverPath, execArgv: readonly string[] = [], node = process.execPath, env: NodeJS.ProcessEnv = {}): Promise<LspClient> {
    const child = spawn(node, [...execArgv, server, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
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

  async close(uri: string): Promise<void> {
    this.versions.delete(uri);
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
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
