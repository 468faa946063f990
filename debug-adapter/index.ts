// What the extension imports to run the adapter inline (DebugAdapterInlineImplementation).
export { AttractorDebugSession } from './session';
export type { AttractorDebugSessionOptions } from './session';
export type { BackendFactory } from './backends';
export * from './protocol';
