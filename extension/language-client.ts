// Starts the language server (dist/language-server.js) over Node IPC.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { languageServerEnvOverrides, languageServerExecArgv } from '../host/language-server-limits';

export const LANGUAGE_ID = 'attractor-dot';

export async function startLanguageClient(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<LanguageClient> {
  const module = vscode.Uri.joinPath(context.extensionUri, 'dist', 'language-server.js').fsPath;
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc, options: { execArgv: [...languageServerExecArgv], env: { ...languageServerEnvOverrides } } },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: [...languageServerExecArgv, '--nolazy', '--inspect=6019'], env: { ...languageServerEnvOverrides } } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: LANGUAGE_ID }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{dot,gv}') },
    outputChannel: log,
  };
  const client = new LanguageClient('attractor', 'Attractor language server', serverOptions, clientOptions);
  await client.start();
  return client;
}
