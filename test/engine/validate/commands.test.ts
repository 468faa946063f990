import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { mayPipe, splitPipelines } from '../../../engine/validate/shell-pipelines';
import { assertFixRepairs, byRule, lintText, located, none, pipeline, single } from './lint-helpers';

const gate = (command: string) =>
  pipeline(`  work [prompt="x"]\n  gate [shape=parallelogram, tool_command="${command}"]\n  start -> work -> gate\n  gate -> done [condition="context.tool.last_line=gate_pass"]\n  gate -> work [condition="context.tool.last_line=gate_fail"]`);

describe('command rules', () => {
  it('splits a command into top-level pipelines, skipping quotes, substitutions and groups', () => {
    const pipelines = splitPipelines(`FOO=1 pytest -q 'a|b' "$(x | y)" | tail -5 && echo ok || { echo no | cat; }`);
    assert.deepEqual(
      pipelines.map((p) => [p.stages.map((s) => s.command), p.next?.operator]),
      [
        [['pytest', 'tail'], '&&'],
        [['echo'], '||'],
        [['echo'], undefined],
      ],
    );
  });

  it('a command mayPipe rules out splits into no pipeline of two stages', () => {
    const shell = fc.constantFrom('|', '||', '|&', '&', '&&', ';', '\n', '\\', "'", '"', '`', '#', '(', ')', '{', '}', ' ', 'a', 'echo', '$(', '>|');
    fc.assert(
      fc.property(fc.array(shell, { maxLength: 40 }), (tokens) => {
        const text = tokens.join('');
        if (!mayPipe(text)) assert.ok(splitPipelines(text).every((p) => p.stages.length === 1), text);
      }),
      { numRuns: 20_000 },
    );
    assert.equal(mayPipe('make check > out.txt 2>&1 && echo gate_pass || echo gate_fail'), false);
    assert.equal(mayPipe('pytest | tail -5'), true);
  });

  it('CMD-001: a pipe into tail hides the tested command; the fix redirects to a file', () => {
    const text = gate('pytest -q | tail -5 && echo gate_pass || echo gate_fail');
    const d = single(text, 'CMD-001');
    assert.equal(d.code, 'CMD-001');
    assert.equal(d.severity, 'warning');
    assert.equal(d.nodeId, 'gate');
    assert.deepEqual(located(text, d), { text: ' | tail -5', line: 4, character: 52 });
    const repaired = assertFixRepairs(text, d);
    assert.match(repaired, /tool_command="pytest -q > gate_output.txt 2>&1 && echo gate_pass \|\| echo gate_fail"/);
  });

  it('CMD-001: grep and multi-stage pipes too; pipefail, producers and redirects are fine', () => {
    const grep = gate('pytest | grep passed');
    const pipefail = assertFixRepairs(grep, single(grep, 'CMD-001'));
    assert.match(pipefail, /tool_command="set -o pipefail; pytest \| grep passed"/);
    const multi = gate('make test 2>&1 | sort | uniq');
    assertFixRepairs(multi, single(multi, 'CMD-001'));
    none(gate('set -o pipefail; pytest | tail -5'), 'CMD-001');
    none(gate('cat out.txt | grep -q fixed && echo gate_pass || echo gate_fail'), 'CMD-001');
    none(gate('pytest -q > out.txt 2>&1 && echo gate_pass || echo gate_fail'), 'CMD-001');
    none(gate('test \\"$(ls | wc -l)\\" = 3 && echo gate_pass || echo gate_fail'), 'CMD-001');
  });

  it('CMD-001: quiet where the pipe does not decide the exit status', () => {
    none(gate('if pytest -q | grep -q passed; then echo gate_pass; else echo gate_fail; fi'), 'CMD-001');
    none(gate('if true; then :; elif make | grep -q ok && ls | grep -q x; then echo ok; fi'), 'CMD-001');
    none(gate('while ls | grep -q job; do sleep 1; done; echo drained'), 'CMD-001');
    none(gate('until curl -s localhost | grep -q up\nthen_not_a_keyword=1\ndo sleep 1; done'), 'CMD-001');
    none(gate('git log | cut -c1-8 > commits.txt; make test > out.txt 2>&1 && echo gate_pass || echo gate_fail'), 'CMD-001');
    // The last statement decides, also inside if/then/fi, and under set -e every statement does.
    single(gate('if true; then pytest | tail -5; fi'), 'CMD-001');
    // Each branch's last statement decides when its branch runs.
    const branches = byRule(lintText(gate('if [ -f setup.cfg ]; then pytest | tail -5; elif true; then make | grep ok; else if true; then :; fi; echo none; fi')), 'CMD-001');
    assert.deepEqual(branches.map((d) => /a failing `(\w+)`/.exec(d.message)?.[1]), ['pytest', 'make']);
    none(gate('if true; then pytest | tail -5; fi; echo finished'), 'CMD-001');
    none(gate('pytest | tail -5 & wait'), 'CMD-001');
    single(gate('cd src; pytest | tail -5'), 'CMD-001');
    single(gate('set -e; pytest | tail -5; echo done'), 'CMD-001');
  });

  it('CMD-002: a token echoed after a status-hiding pipe', () => {
    const text = gate('pytest -q | tail -5 && echo gate_pass || echo gate_fail');
    const d = single(text, 'CMD-002');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: '&& echo gate_pass', line: 4, character: 63 });
    assert.equal(d.related?.length, 1);
    assertFixRepairs(text, d);
    none(gate('pytest -q | tail -5'), 'CMD-002');
    none(gate('pytest -q > out.txt && echo gate_pass || echo gate_fail'), 'CMD-002');
  });
});
