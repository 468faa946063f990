import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { located, none, pipeline, single } from './lint-helpers';

const RULE = 'ambiguous_command_variable';
const tool = (command: string, extra = '') =>
  pipeline(`  work [prompt="x"${extra}]\n  t [shape=parallelogram, tool_command="${command}"]\n  start -> work -> t -> done`);

describe('ambiguous_command_variable', () => {
  it("a pipeline variable inside '…' is substituted all the same: warn, naming tool_env", () => {
    const text = tool("awk '{print \\\"$goal\\\"}' f");
    const d = single(text, RULE);
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d)?.text, '$goal');
    assert.match(d.message, /inside '…'.*tool_env="goal"/s);
  });

  it('a pipeline variable in a quoted here-document stays literal: warn', () => {
    const d = single(tool("cat <<'EOF'\n$last_response\nEOF"), RULE);
    assert.match(d.message, /quoted here-document/);
  });

  it('a value substituted into sh -c "…" or eval "…" becomes code of the inner shell: warn', () => {
    assert.match(single(tool('sh -c \\"echo $last_response\\"'), RULE).message, /another interpreter/);
    assert.match(single(tool('eval \\"$tool.output\\"'), RULE).message, /another interpreter/);
  });

  it('a value bash takes as a variable name (unset, read, printf -v): warn', () => {
    assert.match(single(tool('unset $last_response'), RULE).message, /as a variable name/);
    assert.match(single(tool('printf -v \\"$goal\\" %s x'), RULE).message, /as a variable name/);
  });

  it('a declared output the command also sets as a shell variable is ambiguous: warn; ${context.f} is not', () => {
    const text = tool('for f in a b; do echo \\"$f\\"; done', ', outputs="f"');
    assert.match(single(text, RULE).message, /both the pipeline variable f and a shell variable/);
    none(tool('for g in a b; do echo \\"$g\\" ${context.f}; done', ', outputs="f"'), RULE);
  });

  it('a name a condition reads from the context, or a dotted one, that is no pipeline variable: warn with ${context.…}', () => {
    const d = single(pipeline('  t [shape=parallelogram, tool_command="echo $score"]\n  start -> t\n  t -> done [condition="context.score=1"]'), RULE);
    assert.match(d.message, /\$\{context\.score\}/);
    assert.match(single(tool('echo ${human.gate.anwser}'), RULE).message, /\$\{context\.human\.gate\.anwser\}/);
  });

  it('quiet on plain forms: engine keys, declared outputs, shell variables the command sets, environment variables', () => {
    none(tool('echo \\"$goal\\" $tool.output ${last_response} > out.txt; for f in *.txt; do wc -l \\"$f\\"; done; echo $HOME $PATH \\"$1\\"'), RULE);
    none(tool('x=1; echo $x.txt; read -r line; echo \\"$line\\"'), RULE);
    none(tool('echo $score', ', outputs="score"'), RULE);
    none(tool('echo $target'), RULE); // a launch parameter, as far as lint can tell
  });
});
