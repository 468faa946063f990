// What the extension asks about a pipeline the editor shows: the language server holds its parse
// and answers (host/protocol/language-server.ts); the extension host parses nothing itself.
import type * as vscode from 'vscode';
import type { BaseLanguageClient } from 'vscode-languageclient';
import type { CheckResult } from '../host/protocol/guards';
import { BREAKPOINT_TARGETS_METHOD, NODE_AT_METHOD, parseBreakpointTargetsResult, parseNodeAtResult, type BreakpointTargetsParams, type BreakpointTargetsResult, type NodeAtParams, type NodeAtResult } from '../host/protocol/language-server';

export class PipelineQueries {
  constructor(
    private readonly client: Promise<BaseLanguageClient | undefined>,
    private readonly log: Pick<vscode.LogOutputChannel, 'warn'>,
  ) {}

  /** The nodes and edges that breakpoints on these zero-based lines bind to; null while the pipeline does not parse. */
  breakpointTargets(uri: vscode.Uri, lines: readonly number[]): Promise<BreakpointTargetsResult> {
    return this.ask(BREAKPOINT_TARGETS_METHOD, { textDocument: { uri: uri.toString() }, lines } satisfies BreakpointTargetsParams, parseBreakpointTargetsResult);
  }

  /** The node declared or referenced at a zero-based position, as a launch would see it. */
  nodeAt(uri: vscode.Uri, position: { readonly line: number; readonly character: number }): Promise<NodeAtResult> {
    return this.ask(NODE_AT_METHOD, { textDocument: { uri: uri.toString() }, position: { line: position.line, character: position.character } } satisfies NodeAtParams, parseNodeAtResult);
  }

  private async ask<T>(method: string, params: object, check: (value: unknown) => CheckResult<T | null>): Promise<T | null> {
    try {
      const client = await this.client;
      if (!client) return null;
      const result = check(await client.sendRequest(method, params));
      if (result.ok) return result.value;
      this.log.warn(`the language server answered ${method} with a malformed result: ${result.error}`);
    } catch (error) {
      this.log.warn(`${method} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return null;
  }
}
