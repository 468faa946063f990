// A stand-in for the `vscode` module, bundled in place of it by register.test.ts: just the API
// registerChat touches, recording what was registered on globalThis.fakeVscode for the test.
import fs from 'node:fs';
import path from 'node:path';

export interface FakeVscodeState {
  workspaceRoot: string;
  trusted: boolean;
  saveTarget: string | undefined;
  tools: Map<string, { prepareInvocation?: (options: { input: unknown }, token: unknown) => unknown; invoke: (options: { input: unknown; toolInvocationToken: unknown }, token: unknown) => unknown }>;
  participants: Map<string, { handler: (...args: unknown[]) => unknown; iconPath?: unknown }>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  shownDocuments: string[];
}

const state = (globalThis as unknown as { fakeVscode: FakeVscodeState }).fakeVscode;

export class Uri {
  private constructor(readonly fsPath: string) {}
  static file(file: string): Uri {
    return new Uri(file);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(path.join(base.fsPath, ...parts));
  }
}

export class MarkdownString {
  constructor(readonly value: string) {}
}
export class ThemeIcon {
  constructor(readonly id: string) {}
}
export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}
export class LanguageModelToolResult {
  constructor(readonly content: unknown[]) {}
}
export const LanguageModelChatMessage = {
  User: (text: string) => ({ role: 'user', text }),
  Assistant: (text: string) => ({ role: 'assistant', text }),
};

const disposable = { dispose: () => undefined };

export const workspace = {
  get workspaceFolders() {
    return [{ uri: Uri.file(state.workspaceRoot) }];
  },
  get isTrusted() {
    return state.trusted;
  },
  getConfiguration: () => ({ get: (_key: string, fallback: string) => fallback }),
  fs: { writeFile: async (uri: Uri, bytes: Uint8Array) => fs.writeFileSync(uri.fsPath, bytes) },
};

export const window = {
  activeTextEditor: undefined,
  showSaveDialog: async () => (state.saveTarget ? Uri.file(state.saveTarget) : undefined),
  showTextDocument: async (uri: Uri) => state.shownDocuments.push(uri.fsPath),
};

export const lm = {
  registerTool: (name: string, tool: FakeVscodeState['tools'] extends Map<string, infer T> ? T : never) => {
    state.tools.set(name, tool);
    return disposable;
  },
};

export const chat = {
  createChatParticipant: (id: string, handler: (...args: unknown[]) => unknown) => {
    const participant = { handler, dispose: () => undefined } as { handler: typeof handler; iconPath?: unknown; dispose(): void };
    state.participants.set(id, participant);
    return participant;
  },
};

export const commands = {
  registerCommand: (id: string, callback: (...args: unknown[]) => unknown) => {
    state.commands.set(id, callback);
    return disposable;
  },
};
