import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { looksLikeAttractorPipeline } from '../../extension/language-detection';
import { defaultSettings, readSettings } from '../../extension/settings';

test('settings: valid values are taken, malformed ones fall back to the defaults', () => {
  const values: Record<string, unknown> = {
    backend: 'llm',
    runDirectory: ' out/runs ',
    'graph.layoutEngine': 'neato',
    languageDetection: 'off',
    defaultModel: ' house-model ',
    defaultProvider: 'anthropic',
    maxParallel: 2,
    sandbox: 'workspace',
    'llm.source': 'vscode',
    'llm.vscodeModel': ' gpt-4o ',
  };
  assert.deepEqual(readSettings((key) => values[key]), {
    backend: 'llm',
    runDirectory: 'out/runs',
    layoutEngine: 'neato',
    languageDetection: 'off',
    defaultModel: 'house-model',
    defaultProvider: 'anthropic',
    maxParallel: 2,
    sandbox: 'workspace',
    llmSource: 'vscode',
    vscodeModel: 'gpt-4o',
  });
  const bad: Record<string, unknown> = { backend: 'gpt', runDirectory: 3, 'graph.layoutEngine': 'fancy', languageDetection: true, defaultModel: 5, defaultProvider: 'mistral', maxParallel: 0, sandbox: 'strict', 'llm.source': 'cloud', 'llm.vscodeModel': 7 };
  assert.deepEqual(readSettings((key) => bad[key]), defaultSettings);
});

test('every example is recognised as a pipeline; plain Graphviz is not', () => {
  const examples = path.resolve(__dirname, '..', '..', 'examples');
  for (const file of fs.readdirSync(examples).filter((name) => name.endsWith('.dot'))) {
    assert.ok(looksLikeAttractorPipeline(fs.readFileSync(path.join(examples, file), 'utf8')), file);
  }
  assert.ok(!looksLikeAttractorPipeline('digraph deps { a -> b; b -> c [color=red] }'));
  assert.ok(!looksLikeAttractorPipeline('graph g { start [shape=Mdiamond] }'));
});
