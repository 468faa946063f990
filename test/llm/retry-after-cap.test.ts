import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CliRig, cliChat } from './cli-rig';
import { openAiError } from './fakes/openai-wire';
import { isAlive } from '../processes';
import { waitFor } from './wait-for';
import { bundledCli } from '../test-bundle';

const repo = path.resolve(__dirname, '../..');

/**
 * `attractor run` under a pseudo-terminal (util-linux `script`), so it prints its progress lines as
 * a user sees them; returns the output so far and a way to stop it.
 */
function runInTerminal(args: readonly string[], env: Record<string, string>): { output: () => string; stop: () => Promise<void> } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(OPENAI|ANTHROPIC|ATTRACTOR)_/.test(key)));
  const command = [process.execPath, bundledCli(), ...args].join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...clean, ...env }, cwd: repo, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return {
    output: () => output,
    stop: async () => {
      // script hangs up its terminal on SIGTERM; the run cancels on the hang-up.
      if (child.pid !== undefined && isAlive(child.pid)) child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    },
  };
}

describe('a Retry-After above the cap', () => {
  let rig: CliRig;
  beforeEach(async () => {
    rig = await new CliRig().start();
  });
  afterEach(() => rig.stop());

  it('is capped at 120 s in the node\'s retry ladder too, and the retry event says so', async () => {
    rig.server.always(() => openAiError(429, 'Rate limit reached', { 'retry-after': '600' }));
    const file = path.join(rig.dir, 'pipeline.dot');
    fs.writeFileSync(
      file,
      `digraph one {
        graph [llm_model="gpt-4o"]
        start [shape=Mdiamond]
        done [shape=Msquare]
        work [max_retries=1, prompt="work"]
        start -> work -> done
      }`,
    );
    const run = runInTerminal(['run', file, '--cwd', rig.work, '--logs-root', rig.logs], cliChat.env(rig.baseUrl));
    try {
      await waitFor(() => /↻ work retry 1/.test(run.output()), 'the node retry line', 30_000);
      await waitFor(() => /\r?\n/.test(run.output().slice(run.output().indexOf('↻'))), 'the whole retry line');
      const line = run.output().slice(run.output().indexOf('↻')).split(/\r?\n/)[0]!;
      assert.match(line, /↻ work retry 1 in 2m00s: openai 429: Rate limit reached \(Retry-After 10m00s capped at 2m00s\)/);
      assert.equal(rig.server.requests.length, 1, 'the client does not wait out a Retry-After above the cap either');
    } finally {
      await run.stop();
    }
  });
});
