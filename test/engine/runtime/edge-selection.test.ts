import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDot } from '../../../engine/parse/dot-parser';
import { coerceSuggestedId, normalizeLabel, selectEdge } from '../../../engine/runtime/edge-selection';
import type { Outcome } from '../../../engine/runtime/outcome';

function select(dot: string, outcome: Outcome, context: Record<string, unknown> = {}): string {
  const { graph } = parseDot(`digraph G { ${dot} }`);
  assert.ok(graph);
  const result = selectEdge({ edges: graph.edges.filter((e) => e.from === 'n'), outcome, lookup: (k) => context[k], nodes: graph.nodes });
  return result.kind === 'edge' ? `${result.edge.to}:${result.step}` : `none`;
}

const ok: Outcome = { status: 'success', isExplicit: true };
const fail: Outcome = { status: 'fail', isExplicit: true, failureReason: 'x' };

describe('edge selection (canonical §3.3 with the ledger)', () => {
  const cases: Array<[string, string, Outcome, Record<string, unknown>, string]> = [
    ['condition beats weight', 'n -> x [condition="outcome=success"]; n -> y [weight=100]', ok, {}, 'x:condition'],
    ['weight beats lexical', 'n -> b [weight=1]; n -> z [weight=5]', ok, {}, 'z:weight'],
    ['lexical tiebreak', 'n -> zeta; n -> beta', ok, {}, 'beta:lexical'],
    ['several conditions match: weight then lexical', 'n -> b [condition="outcome=success"]; n -> a [condition="outcome=success"]; n -> c [condition="outcome=success", weight=2]', ok, {}, 'c:condition'],
    ['preferred label over weight', 'n -> ship [label="Ship"]; n -> hold [label="Hold", weight=5]', { ...ok, preferredLabel: 'ship' }, {}, 'ship:preferred_label'],
    ['accelerator prefixes are normalised', 'n -> a [label="[A] Approve"]; n -> r [label="[R] Rework"]', { ...ok, preferredLabel: 'Rework' }, {}, 'r:preferred_label'],
    ['suggested ids after labels', 'n -> a; n -> b', { ...ok, suggestedNextIds: ['b'] }, {}, 'b:suggested_next_ids'],
    ['int suggested id is coerced', 'n -> 3; n -> a', { ...ok, suggestedNextIds: [3 as unknown as string] }, {}, '3:suggested_next_ids'],
    ['a failed condition is never picked up by label', 'n -> fix [condition="outcome=retry", label="Fix"]; n -> test [condition="outcome=fail"]', { ...ok, preferredLabel: 'Fix' }, {}, 'none'],
    ['only conditional edges and none matches: none', 'n -> fix [condition="outcome=retry"]; n -> test [condition="outcome=fail"]', ok, {}, 'none'],
    ['fail takes the fail edge', 'n -> r [condition="outcome=fail"]; n -> ok [condition="outcome=success"]', fail, {}, 'r:condition'],
    ['fail does not flow down a plain edge', 'n -> next', fail, {}, 'none'],
    ['fail flows into runs_on=always', 'n -> cleanup; cleanup [runs_on=always]', fail, {}, 'cleanup:runs_on'],
    ['fail flows into runs_on=failure but not runs_on=success', 'n -> a; n -> b; a [runs_on=success]; b [runs_on=failure]', fail, {}, 'b:runs_on'],
    ['context conditions', 'n -> yes [condition="context.tool.last_line=go && outcome=success"]; n -> no [condition="context.tool.last_line!=go"]', ok, { 'tool.last_line': 'go' }, 'yes:condition'],
    ['outcome resolves to the preferred label when set (ledger)', 'n -> a [condition="outcome=gate_pass"]; n -> b [condition="outcome=success"]', { ...ok, preferredLabel: 'gate_pass' }, {}, 'a:condition'],
    ['no edges at all', '', ok, {}, 'none'],
  ];
  for (const [name, dot, outcome, context, expected] of cases) it(name, () => assert.equal(select(dot, outcome, context), expected));

  it('names the suggestions and edges when nothing resolves', () => {
    const { graph } = parseDot('digraph G { n -> fix [condition="outcome=retry"] }');
    const result = selectEdge({ edges: graph?.edges ?? [], outcome: { ...ok, suggestedNextIds: ['ghost'] }, lookup: () => undefined, nodes: graph?.nodes ?? new Map() });
    assert.equal(result.kind, 'none');
    if (result.kind === 'none') {
      assert.match(result.reason, /n -> fix \[outcome=retry\]/);
      assert.match(result.reason, /ghost/);
    }
  });

  it('normalises labels and coerces only integer ids', () => {
    assert.equal(normalizeLabel('  [Y] Yes, deploy '), 'yes, deploy');
    assert.equal(normalizeLabel('Y) Yes'), 'yes');
    assert.equal(normalizeLabel('Y - Yes'), 'yes');
    assert.equal(coerceSuggestedId(3), '3');
    assert.equal(coerceSuggestedId(3.5), undefined);
    assert.equal(coerceSuggestedId(true), undefined);
    assert.equal(coerceSuggestedId(null), undefined);
  });
});
