// What the webview keeps across being hidden and shown again (VS Code reloads a hidden webview):
// the pan/zoom (and whether it still follows the graph's frame) and the layout engine. Read back
// through a check like any other input.
import { boolean, finiteNumber, object, oneOf, type Infer } from '../host/protocol/guards';
import { layoutEngines } from '../host/protocol/webview';

const viewState = object({ view: object({ x: finiteNumber, y: finiteNumber, k: finiteNumber }), engine: oneOf(layoutEngines) }, { following: boolean });
export type ViewState = Infer<typeof viewState>;

export function parseViewState(value: unknown): ViewState | undefined {
  const result = viewState(value, 'state');
  return result.ok ? result.value : undefined;
}
