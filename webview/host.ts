// The graph view's side of the channel to its host: typed posts out, validated messages in. In VS
// Code the host is the extension (postMessage); in a browser, `attractor serve` (browser-host.ts).
import { parseViewState, type ViewState } from './view-state';
import { parseExtensionMessage, type ExtensionToWebviewMessage, type WebviewToExtensionMessage } from '../host/protocol/webview';

export interface ViewHost {
  post(message: WebviewToExtensionMessage): void;
  readonly savedState: ViewState | undefined;
  saveState(state: ViewState): void;
  /** Delivers each valid message; a malformed one is dropped and reported, never half-applied. */
  listen(handler: (message: ExtensionToWebviewMessage) => void, onRejected: (error: string) => void): void;
  /** Whether an ended run may be re-run from one of its visits here (absent: it may). */
  readonly rerunsVisits?: boolean;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export class VsCodeHost implements ViewHost {
  private readonly api = acquireVsCodeApi();

  post(message: WebviewToExtensionMessage): void {
    this.api.postMessage(message);
  }

  get savedState(): ViewState | undefined {
    return parseViewState(this.api.getState());
  }

  saveState(state: ViewState): void {
    this.api.setState(state);
  }

  listen(handler: (message: ExtensionToWebviewMessage) => void, onRejected: (error: string) => void): void {
    window.addEventListener('message', (event: MessageEvent) => {
      const result = parseExtensionMessage(event.data);
      if (!result.ok) {
        onRejected(result.error);
        this.post({ type: 'protocolError', error: result.error });
        return;
      }
      handler(result.value);
    });
  }
}
