// The webview's side of the channel to the extension: typed posts out, validated messages in.
import { parseViewState, type ViewState } from './view-state';
import { parseExtensionMessage, type ExtensionToWebviewMessage, type WebviewToExtensionMessage } from '../host/protocol/webview';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export class Host {
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

  /** Delivers each valid message; a malformed one is dropped and reported, never half-applied. */
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
