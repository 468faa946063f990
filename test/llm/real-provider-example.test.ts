import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FakeHttpServer } from './fakes/fake-http-server';
import { messageStream } from './fakes/anthropic-wire';
import { chatStream } from './fakes/openai-wire';
import { runCli } from './cli-process';

const example = path.resolve(__dirname, '../../examples/real-provider.dot');

const wordCount = 'import sys\n\ndef count(text):\n    return len(text.split())\n\nif __name__ == "__main__":\n    print(count(sys.stdin.read()))\n';
const wordCountTest = 'from word_count import count\nassert count("a b  c") == 3\nassert count("") == 0\nprint("ok")\n';

describe('examples/real-provider.dot', () => {
  it('runs end to end with both providers, each node on the provider its stylesheet names', async () => {
    const anthropic = new FakeHttpServer();
    const openai = new FakeHttpServer();
    const [anthropicUrl, openaiUrl] = await Promise.all([anthropic.start(), openai.start()]);
    anthropic.script(
      // plan
      messageStream({ toolCalls: [{ name: 'list_dir', arguments: {} }] }),
      messageStream({ toolCalls: [{ name: 'write_file', arguments: { path: 'PLAN.md', content: '1. write it\n2. test it\n' } }, { name: 'report_outcome', arguments: { status: 'success' } }] }),
      // implement
      messageStream({
        toolCalls: [
          { name: 'write_file', arguments: { path: 'word_count.py', content: wordCount } },
          { name: 'write_file', arguments: { path: 'test_word_count.py', content: wordCountTest } },
        ],
      }),
      messageStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }),
    );
    openai.script(
      chatStream({ toolCalls: [{ name: 'shell', arguments: { command: 'python3 test_word_count.py' } }] }, 'gpt-5-mini'),
      chatStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success', notes: 'tests pass' } }] }, 'gpt-5-mini'),
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'example-'));
    const work = path.join(dir, 'work');
    fs.mkdirSync(work);
    try {
      const result = await runCli(['run', example, '--cwd', work, '--logs-root', path.join(dir, 'logs'), '--json'], {
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: anthropicUrl,
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: `${openaiUrl}/v1`,
      });
      assert.equal(result.code, 0, result.stderr + result.stdout);
      assert.deepEqual(anthropic.requests.map((r) => r.body.model), Array(4).fill('claude-sonnet-4-6'));
      assert.deepEqual(openai.requests.map((r) => r.body.model), ['gpt-5-mini', 'gpt-5-mini']);
      assert.equal(openai.requests[0]!.body.reasoning_effort, 'medium');
      assert.match(JSON.stringify(openai.requests[1]!.body), /stdout:\\nok\\n/);
      assert.equal(fs.readFileSync(path.join(work, 'word_count.py'), 'utf8'), wordCount);
    } finally {
      await Promise.all([anthropic.stop(), openai.stop()]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
