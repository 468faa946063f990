// The bundled script of the layout worker (webview/layout-worker.ts). esbuild.mjs replaces this
// module's text with the bundle at build time; outside a bundle there is no worker to start.
export const layoutWorkerSource: string = '';
