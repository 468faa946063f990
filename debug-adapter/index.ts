// What the extension imports to run the adapter inline (DebugAdapterInlineImplementation).
export { AttractorDebugSession } from './session';
