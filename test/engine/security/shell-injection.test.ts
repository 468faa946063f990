// Values are data: hostile values reach tool commands through every quoting context, through
// --param, a model's text and context_updates, a human's freeform answer and parse_json, and
// none of them runs. Through the CLI process, with real bash.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../../test-bundle';

let cli = '';

/** Every way bash turns text into code: command substitution, backticks, quote breaking, arithmetic. */
const payload = `$(touch pwned_dollar)\`touch pwned_tick\`'"; touch pwned_semi; echo "' $((1+1)) \${x} a[$(touch pwned_arith)] \\ end`;

function run(dir: string, dot: string, script: object, ...args: string[]) {
  fs.writeFileSync(path.join(dir, 'p.dot'), dot);
  fs.writeFileSync(path.join(dir, 'script.json'), JSON.stringify(script));
  const result = spawnSync(process.execPath, [cli, 'run', 'p.dot', '--scripted', 'script.json', '--logs-root', 'run', ...args], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, stderr: result.stderr };
}

function pwned(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => name.startsWith('pwned'));
}

function read(dir: string, file: string): string {
  return fs.readFileSync(path.join(dir, file), 'utf8');
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-inject-'));

describe('tool commands: a value never becomes code', () => {
  before(() => {
    cli = bundledCli();
  });

  it('a --param value arrives verbatim unquoted, in "…", in \'…\', in $\'…\', in a heredoc and through tool_env', () => {
    const dir = tmp();
    const dot = `digraph t {
  start [shape=Mdiamond]
  bare [shape=parallelogram, tool_command="printf '%s' $p > bare.txt"]
  braced [shape=parallelogram, tool_command="printf '%s' \${p} > braced.txt"]
  dq [shape=parallelogram, tool_command="printf '%s' \\"v: $p.\\" > dq.txt"]
  sq [shape=parallelogram, tool_command="printf '%s' 'v: $p.' > sq.txt"]
  ansi [shape=parallelogram, tool_command="printf '%s' $'v: $p\\\\n' > ansi.txt"]
  heredoc [shape=parallelogram, tool_command="cat > heredoc.txt <<EOF
v: $p
EOF"]
  env [shape=parallelogram, tool_env="p", tool_command="printf '%s' \\"$P\\" > env.txt"]
  done [shape=Msquare]
  start -> bare -> braced -> dq -> sq -> ansi -> heredoc -> env -> done
}`;
    const result = run(dir, dot, {}, '--param', `p=${payload}`);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(pwned(dir), []);
    assert.equal(read(dir, 'bare.txt'), payload);
    assert.equal(read(dir, 'braced.txt'), payload);
    assert.equal(read(dir, 'dq.txt'), `v: ${payload}.`);
    assert.equal(read(dir, 'sq.txt'), `v: ${payload}.`);
    assert.equal(read(dir, 'ansi.txt'), `v: ${payload}\n`);
    assert.equal(read(dir, 'heredoc.txt'), `v: ${payload}\n`);
    assert.equal(read(dir, 'env.txt'), payload);
  });

  it("a model's final text ($last_response), a human's freeform answer and parse_json values arrive verbatim", () => {
    const dir = tmp();
    const dot = `digraph t {
  start [shape=Mdiamond]
  work [prompt="do it"]
  lr [shape=parallelogram, tool_command="printf '%s' \\"$last_response\\" > lr.txt"]
  ask [shape=hexagon, label="anything?", human.freeform=true]
  answer [shape=parallelogram, tool_command="printf '%s' \${human.gate.answer} > answer.txt"]
  json [shape=parallelogram, parse_json=true, tool_command="cat lr.txt | python3 -c 'import json,sys; print(json.dumps({\\"k\\": sys.stdin.read()}))'"]
  use [shape=parallelogram, tool_command="printf '%s' \\"\${context.k}\\" > k.txt"]
  done [shape=Msquare]
  start -> work -> lr -> ask
  ask -> answer [label="[O] ok"]
  answer -> json -> use -> done
}`;
    const result = run(dir, dot, { llm: { work: [{ text: payload }] }, human: { ask: [{ freeform: payload }] } });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(pwned(dir), []);
    assert.equal(read(dir, 'lr.txt'), payload);
    assert.equal(read(dir, 'answer.txt'), payload);
    assert.equal(read(dir, 'k.txt'), payload);
  });

  it("keys a model sets in context_updates never capture the author's shell variables", () => {
    const dir = tmp();
    const dot = `digraph t {
  start [shape=Mdiamond]
  work [prompt="do it"]
  loop [shape=parallelogram, tool_command="for f in one two; do echo \\"$f\\" $f; done > loop.txt; HOME=here; echo \${HOME} >> loop.txt"]
  done [shape=Msquare]
  start -> work -> loop -> done
}`;
    const updates = { f: '$(touch pwned_f)', HOME: '$(touch pwned_home)' };
    const result = run(dir, dot, { llm: { work: [{ text: 'ok', report_outcome: { status: 'success', context_updates: updates } }] } });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(pwned(dir), []);
    assert.equal(read(dir, 'loop.txt'), 'one one\ntwo two\nhere\n');
  });

  it('bare dotted $tool.output expands like ${tool.output}; a shell variable followed by .ext stays the shell\'s', () => {
    const dir = tmp();
    const dot = `digraph t {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="echo first"]
  b [shape=parallelogram, tool_command="name=x; printf '%s|%s' $tool.output $name.txt > b.txt"]
  done [shape=Msquare]
  start -> a -> b -> done
}`;
    const result = run(dir, dot, {});
    assert.equal(result.status, 0, result.stderr);
    assert.equal(read(dir, 'b.txt'), 'first\n|x.txt');
  });

  for (const [form, command] of [
    ['$(( ))', 'echo $(( $n + 1 )) > a.txt'],
    ['[[ -eq ]]', '[[ \\"$n\\" -eq 41 ]] && echo 42 > a.txt'],
    ['an array subscript', 'arr=(0 42); echo \\"${arr[$n - 40]}\\" > a.txt'],
    ['[[ -v ]]', '[[ -v $n ]] || echo 42 > a.txt'],
    ['let', 'let \\"m = $n + 1\\"; echo $m > a.txt'],
  ]) {
    it(`a value bash evaluates as arithmetic (${form}) must be an integer: otherwise the node fails and nothing runs`, () => {
      const dir = tmp();
      const dot = `digraph t {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="${command}"]
  done [shape=Msquare]
  start -> a -> done
}`;
      const good = run(dir, dot, {}, '--param', 'n=41');
      assert.equal(good.status, 0, good.stderr);
      assert.equal(read(dir, 'a.txt'), '42\n');
      fs.rmSync(path.join(dir, 'run'), { recursive: true });
      const bad = run(dir, dot, {}, '--param', 'n=a[$(touch pwned_arith)]');
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /n stands where bash evaluates its value as an expression/);
      assert.deepEqual(pwned(dir), []);
    });
  }

  it('attractor lint warns on each ambiguous form, at the reference', () => {
    const dir = tmp();
    fs.writeFileSync(
      path.join(dir, 'p.dot'),
      `digraph t {
  start [shape=Mdiamond]
  work [prompt="x", outputs="f"]
  t [shape=parallelogram, tool_command="for f in a; do echo $f; done; awk '{print \\"$goal\\"}' x; sh -c \\"echo $last_response\\""]
  done [shape=Msquare]
  start -> work -> t -> done
}`,
    );
    const lint = spawnSync(process.execPath, [cli, 'lint', 'p.dot', '--json'], { cwd: dir, encoding: 'utf8' });
    const found = (JSON.parse(lint.stdout) as { diagnostics: { rule: string; message: string }[] }).diagnostics.filter((d) => d.rule === 'ambiguous_command_variable');
    assert.deepEqual(
      found.map((d) => d.message.split(' ')[1]),
      ['`$f`', '`$goal`', '`$last_response`'],
    );
  });
});
