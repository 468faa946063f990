// `npm run lint` enforces the layering (scripts/eslint-layering.mjs): each wrong import below fails
// it with its reason, and the same import where the layering allows it passes.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: path.resolve(__dirname, '..', '..') });

/** The layering findings of `source` linted as if it were the repository file `file`. */
async function layeringErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.resolve(__dirname, '..', '..', file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'layering/imports').map((m) => m.message);
}

const wrong: Array<[file: string, source: string, reason: RegExp]> = [
  ['engine/runtime/bad.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n", /engine\/ never imports vscode/],
  ['engine/runtime/bad.ts', "import { renderWebviewHtml } from '../../webview/html';\nexport const x = renderWebviewHtml;\n", /engine\/ never imports a face \(webview\/\)/],
  ['engine/bad.ts', "export { startServer } from '../language-server/server';\n", /never imports a face \(language-server\/\)/],
  ['engine/model/bad.ts', "export const load = () => import('../../extension/main');\n", /never imports a face \(extension\/\)/],
  ['webview/bad.ts', "import fs from 'node:fs';\nexport const x = fs;\n", /never imports the Node module node:fs/],
  ['webview/bad.ts', "import path from 'path';\nexport const x = path;\n", /never imports the Node module path/],
  ['webview/bad.ts', "import { RunFiles } from './run-files';\nexport const x = RunFiles;\n", /never imports webview\/run-files\.ts, which runs in the extension host/],
  ['debug-adapter/bad.ts', "import { runCommand } from '../engine/cli/run-command';\nexport const x = runCommand;\n", /not engine\/cli\//],
  ['extension/bad.ts', "import { testDist } from '../test/test-bundle';\nexport const x = testDist;\n", /never imports test\//],
];

for (const [file, source, reason] of wrong) {
  test(`lint refuses in ${file}: ${source.split('\n')[0]}`, async () => {
    const errors = await layeringErrors(file, source);
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0] ?? '', reason);
  });
}

const allowed: Array<[file: string, source: string]> = [
  ['engine/runtime/ok.ts', "import fs from 'node:fs';\nimport { parseDot } from '../parse/dot-parser';\nexport const x = [fs, parseDot];\n"],
  ['debug-adapter/ok.ts', "import * as vscode from 'vscode';\nimport { parseDot } from '../engine/parse/dot-parser';\nimport { runPipeline } from '../engine';\nexport const x = [vscode, parseDot, runPipeline];\n"],
  ['webview/run-files.ts', "import fs from 'node:fs';\nexport const x = fs;\n"],
  ['webview/ok.ts', "import { parseDot } from '../engine/parse/dot-parser';\nimport { layoutSvg } from './graphviz';\nexport const x = [parseDot, layoutSvg];\n"],
  ['test/ok.ts', "import { renderWebviewHtml } from '../webview/html';\nimport fs from 'node:fs';\nexport const x = [renderWebviewHtml, fs];\n"],
];

for (const [file, source] of allowed) {
  test(`lint allows in ${file}: ${source.split('\n')[0]}`, async () => {
    assert.deepEqual(await layeringErrors(file, source), []);
  });
}
