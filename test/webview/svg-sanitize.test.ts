// The SVG sanitiser on its own, in Chromium, against hostile SVG that Graphviz never emits but a
// future Graphviz or a crafted input might: the rendered graph must never carry active content.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as esbuild from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../browser';

let browser: Browser;
let bundle: string;

before(async () => {
  const result = await esbuild.build({ entryPoints: [path.join(__dirname, '../../webview/svg-sanitize.ts')], bundle: true, format: 'iife', globalName: 'svgSanitize', write: false, platform: 'browser' });
  bundle = result.outputFiles[0]?.text ?? '';
  browser = await launchChromium();
});
after(async () => {
  // Unset when the launch failed.
  await browser?.close();
});

const hostile = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="window.__ran = 'svg onload'">
  <script>window.__ran = 'script'</script>
  <style>@import url(http://127.0.0.1:9/x.css);</style>
  <g id="node:a" class="node" onclick="window.__ran = 'onclick'" style="background:url(http://127.0.0.1:9/x)">
    <title>a</title>
    <a xlink:href="javascript:window.__ran = 'link'" href="javascript:void 0"><text>a</text></a>
    <image href="http://127.0.0.1:9/track.png" width="1" height="1"/>
    <use href="#local"/>
    <set attributeName="onmouseover" to="window.__ran = 'set'"/>
    <animate attributeName="href" values="javascript:alert(1)"/>
    <foreignObject width="10" height="10"><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:parent.__ran = 'iframe'"></iframe></foreignObject>
  </g>
</svg>`;

test('scripts, handlers, foreign content, animation and external references are removed', async () => {
  const page = await browser.newPage();
  await page.addScriptTag({ content: bundle });
  const result = await page.evaluate((markup) => {
    const api = (window as unknown as { svgSanitize: { sanitizeSvg(markup: string, target: Document): SVGSVGElement } }).svgSanitize;
    const svg = api.sanitizeSvg(markup, document);
    document.body.append(svg);
    svg.querySelector('g')?.dispatchEvent(new MouseEvent('click'));
    const attributes = [svg, ...Array.from(svg.querySelectorAll('*'))].flatMap((e) => Array.from(e.attributes).filter((a) => !a.name.startsWith('xmlns')).map((a) => `${e.localName}@${a.name}=${a.value}`));
    return { elements: Array.from(svg.querySelectorAll('*')).map((e) => e.localName), attributes, ran: (window as unknown as { __ran?: string }).__ran };
  }, hostile);
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => (window as unknown as { __ran?: string }).__ran), undefined);
  assert.equal(result.ran, undefined);
  assert.deepEqual(result.elements.sort(), ['a', 'g', 'image', 'text', 'title', 'use']);
  assert.ok(!result.attributes.some((a) => /@on|@style|javascript:|http:/.test(a)), result.attributes.join('\n'));
  assert.ok(result.attributes.includes('use@href=#local'), 'local references stay');
  await page.close();
});

test('text that is not SVG is refused rather than inserted', async () => {
  const page = await browser.newPage();
  await page.addScriptTag({ content: bundle });
  const error = await page.evaluate(() => {
    const api = (window as unknown as { svgSanitize: { sanitizeSvg(markup: string, target: Document): SVGSVGElement } }).svgSanitize;
    try {
      api.sanitizeSvg('<html><body><img src=x onerror="window.__ran=1"></body></html>', document);
      return 'accepted';
    } catch (e) {
      return (e as Error).message;
    }
  });
  assert.match(error, /does not parse/);
  assert.equal(await page.evaluate(() => (window as unknown as { __ran?: number }).__ran), undefined);
  await page.close();
});
