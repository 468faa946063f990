// The extension starts the server over Node IPC: same server, another transport.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { PublishDiagnosticsParams } from 'vscode-languageserver-protocol/node';
import {
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  InitializedNotification,
  InitializeRequest,
  IPCMessageReader,
  IPCMessageWriter,
  PublishDiagnosticsNotification,
} from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureText, fixtureUri, serverPath } from './lsp-client';

describe('language server over --node-ipc', () => {
  let server: ReturnType<typeof fork>;
  before(() => {
    ensureTestBundle();
    server = fork(serverPath, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  });
  after(() => {
    server.kill();
  });

  it('initialises and publishes diagnostics', async () => {
    const connection = createProtocolConnection(new IPCMessageReader(server), new IPCMessageWriter(server));
    const published = new Promise<PublishDiagnosticsParams>((resolve) => connection.onNotification(PublishDiagnosticsNotification.type, resolve));
    connection.listen();
    const result = await connection.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null });
    assert.equal(result.serverInfo?.name, 'attractor-language-server');
    await connection.sendNotification(InitializedNotification.type, {});
    await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: fixtureUri('child.dot'), languageId: 'dot', version: 1, text: fixtureText('child.dot') } });
    const diagnostics = await published;
    assert.ok(diagnostics.diagnostics.some((d) => d.code === 'terminal_node'));
    connection.dispose();
  });
});
