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
  ['engine/runtime/bad.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n", /only extension\/ imports vscode/],
  ['engine/runtime/bad.ts', "import { renderWebviewHtml } from '../../host/view/page-html';\nexport const x = renderWebviewHtml;\n", /engine\/ is the core: it never imports host\//],
  ['engine/bad.ts', "export { startServer } from '../language-server/server';\n", /engine\/ is the core: it never imports language-server\//],
  ['engine/model/bad.ts', "export const load = () => import('../../extension/main');\n", /engine\/ is the core: it never imports extension\//],
  ['engine/validate/bad.ts', "import { boolAttr } from '../runtime/node-config';\nexport const x = boolAttr;\n", /engine\/validate\/ reads pipelines: it never imports engine\/runtime\/, which runs them/],
  ['engine/model/bad.ts', "import type { Outcome } from '../runtime/outcome';\nexport type X = Outcome;\n", /engine\/model\/ reads pipelines: it never imports engine\/runtime\//],
  ['host/bad.ts', "import { PipelineServer } from '../server';\nexport const x = PipelineServer;\n", /host\/ never imports a face \(server\/\)/],
  ['host/protocol/bad.ts', "import fs from 'node:fs';\nexport const x = fs;\n", /also runs in the graph view's page: it never imports the Node module node:fs/],
  ['host/view/bad.ts', "import path from 'path';\nexport const x = path;\n", /never imports the Node module path/],
  ['webview/bad.ts', "import fs from 'node:fs';\nexport const x = fs;\n", /never imports the Node module node:fs/],
  ['webview/bad.ts', "import path from 'path';\nexport const x = path;\n", /never imports the Node module path/],
  ['webview/bad.ts', "import { RunFiles } from '../host/run-files';\nexport const x = RunFiles;\n", /of host\/ it imports only host\/protocol\/ and host\/view\/ \(not host\/run-files\)/],
  ['debug-adapter/bad.ts', "import { runCommand } from '../cli/run-command';\nexport const x = runCommand;\n", /a face never imports another face's modules: debug-adapter\/ may load cli\/index\.ts/],
  ['extension/bad.ts', "import { AttractorDebugSession } from '../debug-adapter/session';\nexport const x = AttractorDebugSession;\n", /may load debug-adapter\/index\.ts, nothing else of it/],
  ['server/bad.ts', "import { DurableRunClient } from '../restate/workflow';\nexport const x = DurableRunClient;\n", /a face never imports another face's modules/],
  ['restate/bad.ts', "import { parseAnswer } from '../server/requests';\nexport const x = parseAnswer;\n", /a face never imports another face's modules/],
  ['debug-adapter/bad.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n", /only extension\/ imports vscode/],
  ['extension/bad.ts', "import { testDist } from '../test/test-bundle';\nexport const x = testDist;\n", /never imports test\//],
  ['extension/bad.ts', "import { launchPipelineFile, parseDot } from '../engine';\nexport const x = [launchPipelineFile, parseDot];\n", /the extension host parses no pipeline: it asks the language server .*parseDot/],
  ['extension/lm/bad.ts', "import { preparePipeline } from '../../engine/prepare';\nexport const x = preparePipeline;\n", /the extension host parses no pipeline/],
  ['extension/bad.ts', "import { parseDot } from '../engine/parse/dot-parser';\nexport const x = parseDot;\n", /the extension host parses no pipeline/],
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
  ['engine/validate/ok.ts', "import { boolAttr } from '../model/attribute-readers';\nimport { parseCondition } from '../conditions/condition';\nexport const x = [boolAttr, parseCondition];\n"],
  ['host/ok.ts', "import fs from 'node:fs';\nimport { runPipeline } from '../engine';\nimport { RunProjection } from './view/run-projection';\nexport const x = [fs, runPipeline, RunProjection];\n"],
  ['extension/ok.ts', "import * as vscode from 'vscode';\nimport { AttractorDebugSession } from '../debug-adapter';\nimport { RunProjection } from '../host/view/run-projection';\nexport const x = [vscode, AttractorDebugSession, RunProjection];\n"],
  ['extension/chat/ok.ts', "import { preparePipeline } from '../../engine/prepare';\nimport { launchPipelineFile } from '../../engine';\nexport const x = [preparePipeline, launchPipelineFile];\n"],
  ['cli/ok.ts', "import { PipelineServer } from '../server';\nimport { serveWorker } from '../restate/index';\nexport const x = [PipelineServer, serveWorker];\n"],
  ['debug-adapter/ok.ts', "import { parseDot } from '../engine/parse/dot-parser';\nimport { runPipeline } from '../engine';\nexport const x = [parseDot, runPipeline];\n"],
  ['webview/ok.ts', "import { parseDot } from '../engine/parse/dot-parser';\nimport { layoutSvg } from './graphviz';\nimport { parseExtensionMessage } from '../host/protocol/webview';\nexport const x = [parseDot, layoutSvg, parseExtensionMessage];\n"],
  ['test/ok.ts', "import { renderWebviewHtml } from '../host/view/page-html';\nimport { AttractorDebugSession } from '../debug-adapter/session';\nimport fs from 'node:fs';\nexport const x = [renderWebviewHtml, AttractorDebugSession, fs];\n"],
];

for (const [file, source] of allowed) {
  test(`lint allows in ${file}: ${source.split('\n')[0]}`, async () => {
    assert.deepEqual(await layeringErrors(file, source), []);
  });
}
