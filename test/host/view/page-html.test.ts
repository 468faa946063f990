import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, renderWebviewHtml } from '../../../host/view/page-html';

const options = { cspSource: 'https://file+.vscode-resource.vscode-cdn.net', nonce: 'c2VjcmV0LW5vbmNlLTEyMzQ1Ng==', scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/dist/webview.js', styleUri: 'https://file+.vscode-resource.vscode-cdn.net/dist/webview.css' };

test('the page carries a strict CSP and loads only its nonce script and stylesheet', () => {
  const html = renderWebviewHtml(options);
  const csp = contentSecurityPolicy(options);
  assert.ok(html.includes(`content="${csp}"`));
  const directives = new Map(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
  assert.equal(directives.get('default-src'), "'none'");
  assert.equal(directives.get('script-src'), `'nonce-${options.nonce}' 'wasm-unsafe-eval'`);
  assert.equal(directives.get('style-src'), options.cspSource);
  assert.equal(directives.get('img-src'), `${options.cspSource} data:`);
  assert.equal(directives.get('connect-src'), "'none'");
  assert.equal(directives.get('worker-src'), 'blob:', 'only the layout worker the page starts from its own bundled script');
  assert.ok(!csp.includes('unsafe-inline') && !csp.includes("'unsafe-eval'"));
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.ok(html.includes(`<script nonce="${options.nonce}" src="${options.scriptUri}"></script>`));
  assert.ok(!/ on[a-z]+=/.test(html), 'no inline handlers');
});

test('values that could break out of an attribute are refused', () => {
  assert.throws(() => renderWebviewHtml({ ...options, nonce: 'short' }), /nonce/);
  assert.throws(() => renderWebviewHtml({ ...options, scriptUri: 'x" onload="alert(1)' }), /scriptUri/);
  assert.throws(() => renderWebviewHtml({ ...options, cspSource: "x; script-src 'unsafe-inline'" }), /cspSource/);
});
