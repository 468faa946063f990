import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertFixRepairs, located, none, pipeline, single } from './lint-helpers';

const RULE = 'dollar_escape';
const tool = (command: string) => pipeline(`  t [shape=parallelogram, tool_command="${command}"]\n  start -> t -> done`);

describe('dollar_escape', () => {
  it('a `$$` that gives bash a lone `$` warns, and its fix writes the shell pid as `$$$$`', () => {
    const text = tool('mktemp /tmp/run.$$');
    const d = single(text, RULE);
    assert.equal(located(text, d).text, '$$');
    assert.match(d.message, /lone `\$`.*`\$\$\$\$` for the shell's `\$\$`/);
    assert.match(assertFixRepairs(text, d), /run\.\$\$\$\$"/);
  });

  it('the escape in front of what bash expands, and `$$$$`, are quiet', () => {
    none(tool('for f in $$(ls); do echo $$f; done; x=1; echo $${x} $$1 $$? $$$$'), RULE);
  });

  it('`$$` before a pipeline variable warns in commands, prompts and gate labels: the reference would substitute it', () => {
    const command = single(tool('echo $${goal}'), RULE);
    assert.match(command.message, /bash receives `\$\{goal\}` and not the value of goal/);
    const text = pipeline('  w [prompt="costs $$last_response"]\n  g [shape=hexagon, label="pay $$goal?"]\n  start -> w -> g\n  g -> done [label="ok"]');
    const found = [single(text.replace('pay $$goal?', 'pay?'), RULE), single(text.replace('costs $$last_response', 'costs'), RULE)];
    assert.match(found[0]?.message ?? '', /`w` prompt: `\$\$last_response`/);
    assert.match(found[1]?.message ?? '', /`g` label: `\$\$goal`/);
  });

  it("`$$` before the shell's own variables stays quiet, and a label on a tool node is never expanded", () => {
    none(tool('echo $${HOME}'), RULE);
    none(pipeline('  t [shape=parallelogram, label="pay $$goal", tool_command="true"]\n  start -> t -> done'), RULE);
  });
});
