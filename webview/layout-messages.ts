// The messages between the page and its layout worker (webview/layout-worker.ts).
import type { LayoutEngine } from '../host/protocol/webview';

export interface LayoutRequest {
  readonly id: number;
  readonly dot: string;
  readonly engine: LayoutEngine;
}

export type LayoutReply = { readonly id: number; readonly ok: true; readonly svg: string } | { readonly id: number; readonly ok: false; readonly error: string; readonly stackOverflow: boolean };
