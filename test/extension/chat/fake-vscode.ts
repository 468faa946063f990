// A stand-in for the `vscode` module, bundled in place of it by register.test.ts,
// vscode-lm-run.test.ts and runs-view.test.ts: just the API the extension touches there, recording
// what was registered on globalThis.fakeVscode for the test, and a `vscode.lm` whose chat models
// answer from a script.
import fs from 'node:fs';
import path from 'node:path';
import type { ScriptedReply } from '../../e2e/scripted-lm-extension/script';

export interface FakeVscodeState {
  workspaceRoot: string;
  trusted: boolean;
  saveTarget: string | undefined;
  tools: Map<string, { prepareInvocation?: (options: { input: unknown }, token: unknown) => unknown; invoke: (options: { input: unknown; toolInvocationToken: unknown }, token: unknown) => unknown }>;
  participants: Map<string, { handler: (...args: unknown[]) => unknown; iconPath?: unknown }>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  shownDocuments: string[];
  /** The options of each `showTextDocument`, in order. */
  shownOptions?: unknown[];
  /** What the active editor group shows: a text editor, the Welcome page's walkthrough, or nothing. */
  activeTab?: 'text' | 'welcome';
  /** What `vscode.lm.selectChatModels()` offers. */
  chatModels?: ScriptedChatModel[];
  /** Every `sendRequest`, in order. */
  lmRequests?: { modelId: string; messages: unknown[]; options: { justification?: string; tools?: { name: string }[]; toolMode?: number } }[];
  /** Requests whose cancellation token fired. */
  lmCancelled?: number;
  /** Every quick pick and input box created, in order. */
  quickInputs?: FakeQuickInput[];
  /** Every status bar item created, in order. */
  statusItems?: FakeStatusItem[];
  /** Every notification and modal shown, in order. */
  shownMessages?: ShownMessage[];
  /** What the person picks in each next notification or modal (undefined: dismissed, Cancel), perhaps later. */
  messageAnswers?: (string | undefined | Promise<string | undefined>)[];
  /** Every file system watcher created, in order: a test raises their events. */
  watchers?: FakeFileSystemWatcher[];
}

export interface ShownMessage {
  readonly severity: 'information' | 'warning' | 'error';
  readonly message: string;
  readonly modal: boolean;
  readonly detail?: string;
  readonly items: string[];
}

export interface ScriptedChatModel {
  readonly id: string;
  readonly vendor: string;
  readonly family: string;
  readonly name: string;
  readonly replies: ScriptedReply[];
}

const state = (globalThis as unknown as { fakeVscode: FakeVscodeState }).fakeVscode;
const disposable = { dispose: () => undefined };

export class Uri {
  private constructor(readonly fsPath: string) {}
  static file(file: string): Uri {
    return new Uri(file);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(path.join(base.fsPath, ...parts));
  }
}

export class TabInputText {
  constructor(readonly uri: Uri) {}
}
export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

export class EventEmitter<T> {
  private readonly listeners = new Set<(value: T) => void>();
  readonly event = (listener: (value: T) => void) => {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  };
  fire(value: T): void {
    for (const listener of this.listeners) listener(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export class TreeItem {
  description: string | undefined;
  tooltip: unknown;
  iconPath: unknown;
  contextValue: string | undefined;
  resourceUri: Uri | undefined;
  command: unknown;
  id: string | undefined;
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState,
  ) {}
}

/** A watcher whose events the test raises, as VS Code's file watcher would. */
export class FakeFileSystemWatcher {
  readonly created = new EventEmitter<Uri>();
  readonly changed = new EventEmitter<Uri>();
  readonly deleted = new EventEmitter<Uri>();
  readonly onDidCreate = this.created.event;
  readonly onDidChange = this.changed.event;
  readonly onDidDelete = this.deleted.event;
  disposed = false;
  constructor(readonly glob: string) {}
  dispose(): void {
    this.disposed = true;
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
export class LanguageModelToolCallPart {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}
export class LanguageModelToolResultPart {
  constructor(
    readonly callId: string,
    readonly content: unknown[],
  ) {}
}
export enum LanguageModelChatToolMode {
  Auto = 1,
  Required = 2,
}
export class LanguageModelError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

type Listener = () => void;

/** A quick pick or input box: shown until the test accepts a value or something hides it. */
export class FakeQuickInput {
  title: string | undefined;
  placeholder: string | undefined;
  prompt: string | undefined;
  value = '';
  items: { label: string; description?: string; key?: string }[] = [];
  selectedItems: { label: string; description?: string; key?: string }[] = [];
  buttons: unknown[] = [];
  ignoreFocusOut = false;
  visible = false;
  disposed = false;
  private readonly accepted: Listener[] = [];
  private readonly hidden: Listener[] = [];
  constructor(readonly kind: 'quickPick' | 'inputBox') {}
  onDidAccept(listener: Listener) {
    this.accepted.push(listener);
    return disposable;
  }
  onDidHide(listener: Listener) {
    this.hidden.push(listener);
    return disposable;
  }
  onDidTriggerButton() {
    return disposable;
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    if (!this.visible) return;
    this.visible = false;
    for (const listener of this.hidden) listener();
  }
  dispose(): void {
    this.disposed = true;
  }
  /** The person picks the item with this label (a quick pick) or types this text (an input box) and presses Enter. */
  accept(answer: string): void {
    if (this.kind === 'quickPick') this.selectedItems = this.items.filter((item) => item.label === answer);
    else this.value = answer;
    for (const listener of this.accepted) listener();
  }
}

export interface FakeStatusItem {
  text: string;
  tooltip: string | undefined;
  command: unknown;
  visible: boolean;
  disposed: boolean;
}
export class CancellationTokenSource {
  private readonly listeners: Listener[] = [];
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: (listener: Listener) => {
      this.listeners.push(listener);
      return disposable;
    },
  };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    for (const listener of this.listeners) listener();
  }
  dispose(): void {}
}
export class LanguageModelToolResult {
  constructor(readonly content: unknown[]) {}
}
export const LanguageModelChatMessage = {
  User: (content: string | unknown[]) => (typeof content === 'string' ? { role: 'user', text: content } : { role: 'user', content }),
  Assistant: (content: string | unknown[]) => (typeof content === 'string' ? { role: 'assistant', text: content } : { role: 'assistant', content }),
};

export const workspace = {
  get workspaceFolders() {
    return [{ uri: Uri.file(state.workspaceRoot) }];
  },
  get isTrusted() {
    return state.trusted;
  },
  getConfiguration: () => ({ get: (_key: string, fallback: string) => fallback }),
  createFileSystemWatcher: (glob: string) => {
    const watcher = new FakeFileSystemWatcher(glob);
    (state.watchers ??= []).push(watcher);
    return watcher;
  },
  fs: {
    writeFile: async (uri: Uri, bytes: Uint8Array) => fs.writeFileSync(uri.fsPath, bytes),
    createDirectory: async (uri: Uri) => void fs.mkdirSync(uri.fsPath, { recursive: true }),
    copy: async (source: Uri, target: Uri) => fs.copyFileSync(source.fsPath, target.fsPath),
  },
};

/** showInformationMessage and its kin: (message, options?, ...items), answered from `messageAnswers`. */
function showMessage(severity: ShownMessage['severity']) {
  return async (message: string, ...rest: unknown[]): Promise<string | undefined> => {
    const options = typeof rest[0] === 'object' && rest[0] !== null ? (rest.shift() as { modal?: boolean; detail?: string }) : {};
    const items = rest as string[];
    (state.shownMessages ??= []).push({ severity, message, modal: options.modal === true, ...(options.detail ? { detail: options.detail } : {}), items });
    if (items.length === 0) return undefined;
    return await state.messageAnswers?.shift();
  };
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export const window = {
  activeTextEditor: undefined,
  createQuickPick: () => recordInput(new FakeQuickInput('quickPick')),
  createInputBox: () => recordInput(new FakeQuickInput('inputBox')),
  createStatusBarItem: () => {
    const item: FakeStatusItem & { show(): void; hide(): void; dispose(): void } = {
      text: '',
      tooltip: undefined,
      command: undefined,
      visible: false,
      disposed: false,
      show: () => void (item.visible = true),
      hide: () => void (item.visible = false),
      dispose: () => {
        item.visible = false;
        item.disposed = true;
      },
    };
    (state.statusItems ??= []).push(item);
    return item;
  },
  showInformationMessage: showMessage('information'),
  showWarningMessage: showMessage('warning'),
  showErrorMessage: showMessage('error'),
  showSaveDialog: async () => (state.saveTarget ? Uri.file(state.saveTarget) : undefined),
  showTextDocument: async (uri: Uri, options?: unknown) => {
    (state.shownOptions ??= []).push(options);
    return state.shownDocuments.push(uri.fsPath);
  },
  tabGroups: {
    get activeTabGroup() {
      const input = state.activeTab === 'text' ? new TabInputText(Uri.file(path.join(state.workspaceRoot, 'notes.md'))) : { walkthrough: 'attractor.start' };
      return { activeTab: state.activeTab === undefined ? undefined : { input } };
    },
  },
};

function recordInput(input: FakeQuickInput): FakeQuickInput {
  (state.quickInputs ??= []).push(input);
  return input;
}

type Token = CancellationTokenSource['token'];

/** A `LanguageModelChat` that answers each request with the next scripted reply. */
function chatModel(spec: ScriptedChatModel) {
  return {
    id: spec.id,
    vendor: spec.vendor,
    family: spec.family,
    name: spec.name,
    version: '1',
    maxInputTokens: 100_000,
    sendRequest: async (messages: unknown[], options: NonNullable<FakeVscodeState['lmRequests']>[number]['options'], token: Token) => {
      (state.lmRequests ??= []).push({ modelId: spec.id, messages, options });
      token.onCancellationRequested(() => (state.lmCancelled = (state.lmCancelled ?? 0) + 1));
      const reply = spec.replies.shift();
      if (!reply) throw new LanguageModelError(`${spec.id}: no scripted reply left`, 'Unknown');
      if ('error' in reply) throw new LanguageModelError(reply.message, reply.error);
      const parts = 'hang' in reply ? [] : [...(reply.text ? [new LanguageModelTextPart(reply.text)] : []), ...(reply.toolCalls ?? []).map((call, i) => new LanguageModelToolCallPart(`call_${state.lmRequests?.length}_${i}`, call.name, call.input))];
      async function* stream(): AsyncIterable<unknown> {
        yield* parts;
        // A hanging model answers nothing until the caller cancels, then ends its stream as VS Code does.
        if ('hang' in reply!) await new Promise<void>((resolve) => (reply.ignoresCancellation ? undefined : token.onCancellationRequested(resolve)));
      }
      return { stream: stream(), text: (async function* () {})() };
    },
  };
}

export const lm = {
  selectChatModels: async () => (state.chatModels ?? []).map(chatModel),
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
