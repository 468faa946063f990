// Entry point of the graph webview in VS Code: the graph view talking to the extension.
import { startGraphView } from './graph-page';
import { VsCodeHost } from './host';

startGraphView(new VsCodeHost());
