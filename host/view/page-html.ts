// The webview's page. Everything it loads comes from the extension's own files (cspSource); the
// only script runs by nonce, and 'wasm-unsafe-eval' is there solely to compile WASM Graphviz (in the
// layout worker, which inherits this policy). The worker is started from a blob of its bundled script
// that the page makes itself: VS Code serves extension files from another origin than the page's and
// a worker must be same-origin, so `worker-src blob:` is the narrowest source that can start it.

export interface WebviewHtmlOptions {
  /** `webview.cspSource`: the origin VS Code serves the extension's local resources from. */
  readonly cspSource: string;
  /** A fresh random value per page load. */
  readonly nonce: string;
  readonly scriptUri: string;
  readonly styleUri: string;
}

export function contentSecurityPolicy({ cspSource, nonce }: Pick<WebviewHtmlOptions, 'cspSource' | 'nonce'>): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' 'wasm-unsafe-eval'`,
    'worker-src blob:',
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "object-src 'none'",
  ].join('; ');
}

export function renderWebviewHtml(options: WebviewHtmlOptions): string {
  for (const [name, value] of Object.entries(options)) {
    if (/["<>\s]/.test(value) && name !== 'cspSource') throw new Error(`renderWebviewHtml: ${name} must not contain quotes, angle brackets or spaces`);
  }
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(options.nonce)) throw new Error('renderWebviewHtml: the nonce must be at least 16 base64 characters');
  if (/["<>;]/.test(options.cspSource)) throw new Error('renderWebviewHtml: cspSource must not contain quotes, angle brackets or semicolons');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(options)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${options.styleUri}">
<title>Attractor graph</title>
</head>
<body>
<script nonce="${options.nonce}" src="${options.scriptUri}"></script>
</body>
</html>
`;
}

/**
 * The browser app `attractor serve` answers GET / with: its script and style sheet are files of the
 * server's own origin (no inline script or style, no nonce to keep), it talks to nothing but that
 * origin, and no other site may frame it. 'wasm-unsafe-eval' and `worker-src blob:` as for the webview.
 */
export const webAppPolicy = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  'worker-src blob:',
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** The browser app's page: its files are relative, so it also works below a proxy's path prefix. */
export const webAppHtml = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="web/app.css">
<script defer src="web/app.js"></script>
<title>Attractor</title>
</head>
<body class="web-app">
<noscript>This page needs JavaScript. The same runs are at GET /pipelines (JSON).</noscript>
</body>
</html>
`;
