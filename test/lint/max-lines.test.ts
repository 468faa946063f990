// `npm run lint` refuses a product source file over 500 lines (eslint.config.mjs); tests and tools are not held to it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

async function maxLinesErrors(file: string, lines: number): Promise<string[]> {
  const source = Array.from({ length: lines }, (_, i) => `export const x${i} = ${i};`).join('\n');
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'max-lines').map((m) => m.message);
}

test('a product file of 501 lines is refused, one of 500 is not', async () => {
  assert.match((await maxLinesErrors('engine/runtime/long.ts', 501))[0] ?? '', /too many lines \(501\)\. Maximum allowed is 500/);
  assert.deepEqual(await maxLinesErrors('engine/runtime/long.ts', 500), []);
  assert.equal((await maxLinesErrors('debug-adapter/long.ts', 600)).length, 1);
});

test('tests, benches and scripts are not held to it', async () => {
  assert.deepEqual(await maxLinesErrors('test/engine/long.test.ts', 900), []);
  assert.deepEqual(await maxLinesErrors('scripts/long.mjs', 900), []);
});
