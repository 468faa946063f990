import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { HttpError } from '../host/protocol/serve-api';
import { webAppHtml, webAppPolicy } from '../host/view/page-html';

/** The browser app's files, built by esbuild.mjs beside the server's own bundle (dist/). */
const ASSETS: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  'app.js': { file: 'web-app.js', type: 'text/javascript; charset=utf-8' },
  'app.css': { file: 'web-app.css', type: 'text/css; charset=utf-8' },
};

const PAGE_HEADERS = {
  'content-security-policy': webAppPolicy,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
} as const;

/** GET /: the browser app's page, under its CSP. */
export function sendWebPage(response: http.ServerResponse): void {
  response.writeHead(200, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' });
  response.end(webAppHtml);
}

/** GET /web/{file}: the app's script or style sheet; 404 for any other name, or when the app was not built. */
export function sendWebAsset(response: http.ServerResponse, name: string): void {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) throw new HttpError(404, `the browser app has no file ${name}`);
  let content: Buffer;
  try {
    content = fs.readFileSync(path.join(__dirname, asset.file));
  } catch {
    throw new HttpError(404, `the browser app's ${name} is not built beside this server (${asset.file}); run npm run build`);
  }
  response.writeHead(200, { ...PAGE_HEADERS, 'content-type': asset.type, 'content-length': content.length });
  response.end(content);
}
