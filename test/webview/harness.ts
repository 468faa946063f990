// Plays the extension's side of the webview protocol for tests and benches: serves the built page
// (the real renderWebviewHtml output, same CSP) from 127.0.0.1 with a stub acquireVsCodeApi that
// records what the webview posts, and delivers messages with window.postMessage.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { renderWebviewHtml } from '../../host/view/page-html';
import type { ExtensionToWebviewMessage, WebviewToExtensionMessage } from '../../host/protocol/webview';
import { launchChromium } from '../browser';
import { ensureTestBundle } from '../test-bundle';


// Records posts and CSP violations before the webview's own script runs.
const STUB = `
window.__posted = [];
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
window.acquireVsCodeApi = () => ({
  postMessage: (message) => window.__posted.push(JSON.parse(JSON.stringify(message))),
  // Like VS Code, state outlives a reload of the page (here, of the tab).
  getState: () => JSON.parse(sessionStorage.getItem('vscode-state') ?? 'null') ?? undefined,
  setState: (state) => sessionStorage.setItem('vscode-state', JSON.stringify(state)),
});
`;

export interface Harness {
  readonly browser: Browser;
  readonly origin: string;
  open(viewport?: { width: number; height: number }): Promise<WebviewPage>;
  /**
   * Closes the pages opened so far (a test file's `afterEach`): a page left open goes on rendering —
   * a running node pulses, the current edge flows — for the rest of the file.
   */
  closePages(): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  // The page under test is the shipped bundle (test-bundle.ts).
  const outdir = ensureTestBundle();
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const origin = `http://${request.headers.host}`;
    if (url.pathname === '/') {
      const nonce = crypto.randomBytes(16).toString('base64');
      const page = renderWebviewHtml({ cspSource: origin, nonce, scriptUri: `${origin}/dist/webview.js`, styleUri: `${origin}/dist/webview.css` });
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page.replace('<script nonce=', `<script nonce="${nonce}" src="${origin}/stub.js"></script>\n<script nonce=`));
    } else if (url.pathname === '/stub.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(STUB);
    } else if (/^\/dist\/webview\.(js|css)$/.test(url.pathname)) {
      response.writeHead(200, { 'content-type': url.pathname.endsWith('.js') ? 'text/javascript' : 'text/css' });
      response.end(fs.readFileSync(path.join(outdir, path.basename(url.pathname))));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closeServer = () => new Promise((resolve) => server.close(resolve));
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    // A listening server would keep the test process alive after its tests failed.
    await closeServer();
    throw error;
  }
  const pages = new Set<Page>();
  return {
    browser,
    origin,
    async open(viewport = { width: 1200, height: 800 }) {
      const page = await browser.newPage({ viewport });
      pages.add(page);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${origin}/`);
      const webview = new WebviewPage(page, errors);
      await webview.waitForPost((m) => m.type === 'ready');
      return webview;
    },
    async closePages() {
      await Promise.all([...pages].map((page) => page.close()));
      pages.clear();
    },
    async close() {
      await browser.close();
      await closeServer();
    },
  };
}

export class WebviewPage {
  private version = 0;

  constructor(
    readonly page: Page,
    readonly pageErrors: readonly string[],
  ) {}

  /** Delivers a message exactly as the extension's `webview.postMessage` would (it need not be valid). */
  async send(message: ExtensionToWebviewMessage | unknown): Promise<void> {
    await this.page.evaluate((m) => window.postMessage(m, '*'), message);
  }

  /** Sends a document and waits until that version has been rendered (or rejected with a banner). */
  async showDocument(text: string, uri = 'file:///work/pipeline.dot'): Promise<void> {
    const version = ++this.version;
    await this.send({ type: 'document', uri, version, text });
    await this.page.waitForSelector(`body[data-rendered-version="${version}"]`, { timeout: 60_000 });
  }

  async posted(): Promise<WebviewToExtensionMessage[]> {
    return this.page.evaluate(() => (window as unknown as { __posted: WebviewToExtensionMessage[] }).__posted);
  }

  async clearPosted(): Promise<void> {
    await this.page.evaluate(() => {
      (window as unknown as { __posted: unknown[] }).__posted.length = 0;
    });
  }

  async waitForPost(predicate: (message: WebviewToExtensionMessage) => boolean): Promise<WebviewToExtensionMessage> {
    for (let i = 0; i < 200; i++) {
      const found = (await this.posted()).find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`the webview never posted the expected message; it posted ${JSON.stringify(await this.posted())}`);
  }

  async cspViolations(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
  }

  async classesOf(svgId: string): Promise<string[]> {
    return this.page.evaluate((id) => Array.from(document.getElementById(id)?.classList ?? []), svgId);
  }
}
