// Translation between the debug adapter's custom events/requests and the graph view's messages.
// Pure: the panel controller forwards what these return.
import path from 'node:path';
import type { CustomEventBodies } from '../host/protocol/debug';
import type { ExtensionToWebviewMessage } from '../host/protocol/webview';

/** The graph-view messages one DAP custom event calls for (none for events of another program). */
export function messagesForDebugEvent(event: string, body: unknown, program: string | undefined): ExtensionToWebviewMessage[] {
  switch (event) {
    case 'graphState': {
      const { program: stateProgram, logsRoot: _logsRoot, ...state } = body as CustomEventBodies['graphState'];
      if (program !== undefined && !samePath(stateProgram, program)) return [];
      return [{ type: 'graphState', ...state }];
    }
    case 'traceHistory': {
      const { records } = body as CustomEventBodies['traceHistory'];
      return [{ type: 'traceEntries', entries: [...records], replace: true }];
    }
    case 'traceEntry': {
      const { record } = body as CustomEventBodies['traceEntry'];
      return [{ type: 'traceEntries', entries: [record], replace: false }];
    }
    case 'humanGate': {
      const { threadId: _thread, ...gate } = body as CustomEventBodies['humanGate'];
      return [{ type: 'humanGate', ...gate }];
    }
    case 'humanGateClosed': {
      const { gateId } = body as CustomEventBodies['humanGateClosed'];
      return [{ type: 'humanGateClosed', gateId }];
    }
    default:
      return [];
  }
}

function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b);
}
