import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ErrorPolicy, JoinPolicy } from '../../../engine/runtime/join-policy';
import { decideJoin, readParallelConfig, successesNeeded } from '../../../engine/runtime/join-policy';
import { findFanIn } from '../../../engine/runtime/fan-in-target';
import { contextChanges, scoreOf } from '../../../engine/runtime/parallel-results';
import { parseDot } from '../../../engine/parse/dot-parser';

function verdict(join: JoinPolicy, errorPolicy: ErrorPolicy, total: number, succeeded: number, failed: number): string {
  const decision = decideJoin(join, errorPolicy, { total, succeeded, failed });
  return decision.kind === 'pending' ? 'pending' : decision.status;
}

function graphOf(text: string) {
  const parsed = parseDot(text);
  assert.ok(parsed.graph, JSON.stringify(parsed.diagnostics));
  return parsed.graph;
}

function nodeOf(attributes: string) {
  const node = graphOf(`digraph t { fan [shape=component${attributes ? `, ${attributes}` : ''}] }`).nodes.get('fan');
  assert.ok(node);
  return node;
}

describe('join decisions', () => {
  const waitAll: JoinPolicy = { kind: 'wait_all' };
  const first: JoinPolicy = { kind: 'first_success' };
  const twoOf: JoinPolicy = { kind: 'k_of_n', k: 2 };
  const half: JoinPolicy = { kind: 'quorum', fraction: 0.5 };

  // [policy, error policy, total, succeeded, failed, verdict]
  const table: Array<[JoinPolicy, ErrorPolicy, number, number, number, string]> = [
    [waitAll, 'continue', 0, 0, 0, 'success'],
    [waitAll, 'continue', 3, 2, 0, 'pending'],
    [waitAll, 'continue', 3, 3, 0, 'success'],
    [waitAll, 'continue', 3, 2, 1, 'partial_success'],
    [waitAll, 'continue', 2, 0, 2, 'partial_success'],
    [waitAll, 'ignore', 3, 2, 1, 'success'],
    [waitAll, 'ignore', 2, 0, 2, 'fail'],
    [waitAll, 'fail_fast', 3, 0, 1, 'fail'],
    [first, 'continue', 3, 0, 2, 'pending'],
    [first, 'continue', 3, 1, 1, 'success'],
    [first, 'continue', 3, 0, 3, 'fail'],
    [first, 'fail_fast', 3, 0, 1, 'fail'],
    [twoOf, 'continue', 3, 1, 0, 'pending'],
    [twoOf, 'continue', 3, 2, 0, 'success'],
    [twoOf, 'continue', 3, 1, 2, 'fail'],
    [twoOf, 'continue', 3, 0, 2, 'fail'],
    [twoOf, 'continue', 1, 0, 0, 'fail'],
    [half, 'continue', 2, 1, 0, 'pending'],
    [half, 'continue', 2, 1, 1, 'fail'],
    [half, 'continue', 2, 2, 0, 'success'],
    [half, 'continue', 3, 2, 0, 'success'],
    [half, 'continue', 4, 2, 1, 'pending'],
    [half, 'continue', 4, 2, 2, 'fail'],
    [{ kind: 'quorum', fraction: 0 }, 'continue', 5, 1, 0, 'success'],
    [{ kind: 'quorum', fraction: 1 }, 'continue', 2, 2, 0, 'fail'],
  ];
  for (const [join, errorPolicy, total, succeeded, failed, want] of table) {
    it(`${join.kind}${'k' in join ? ` k=${join.k}` : ''}${'fraction' in join ? ` ${join.fraction}` : ''} ${errorPolicy}: ${succeeded} ok, ${failed} failed of ${total} → ${want}`, () => {
      assert.equal(verdict(join, errorPolicy, total, succeeded, failed), want);
    });
  }

  it('quorum needs strictly more than the fraction', () => {
    assert.deepEqual([2, 3, 4, 5, 10].map((n) => successesNeeded(half, n)), [2, 2, 3, 3, 6]);
  });
});

describe('parallel configuration', () => {
  it('defaults to wait_all, continue and 4 at once', () => {
    assert.deepEqual(readParallelConfig(nodeOf('')), { ok: true, config: { join: { kind: 'wait_all' }, errorPolicy: 'continue', maxParallel: 4 } });
  });

  it('reads k, quorum, error_policy and max_parallel', () => {
    assert.deepEqual(readParallelConfig(nodeOf('join_policy=k_of_n, k=3, error_policy=fail_fast, max_parallel=2')), { ok: true, config: { join: { kind: 'k_of_n', k: 3 }, errorPolicy: 'fail_fast', maxParallel: 2 } });
    assert.deepEqual(readParallelConfig(nodeOf('join_policy=quorum, quorum=0.75')), { ok: true, config: { join: { kind: 'quorum', fraction: 0.75 }, errorPolicy: 'continue', maxParallel: 4 } });
  });

  it('names the attribute it cannot use', () => {
    const error = (attributes: string) => {
      const read = readParallelConfig(nodeOf(attributes));
      return read.ok ? '' : read.error;
    };
    assert.match(error('join_policy=k_of_n'), /needs k/);
    assert.match(error('join_policy=quorum, quorum=1.5'), /quorum="1.5" is not a fraction/);
    assert.match(error('join_policy=most'), /join_policy="most"/);
    assert.match(error('max_parallel=0'), /max_parallel="0"/);
    assert.match(error('error_policy=panic'), /error_policy="panic"/);
  });
});

describe('finding the fan-in', () => {
  it('follows each branch to the fan-in where they converge', () => {
    const graph = graphOf(`digraph t {
  fan [shape=component]; a; b; c; join [shape=tripleoctagon]; after
  fan -> a -> c -> join; fan -> b -> join; join -> after
}`);
    const found = findFanIn(graph, ['a', 'b']);
    assert.equal(found?.continueAt, 'join');
    assert.deepEqual([...(found?.stopAt ?? [])], ['join']);
  });

  it('skips over a nested fan-out and its own fan-in', () => {
    const graph = graphOf(`digraph t {
  outer [shape=component]; inner [shape=component]; i1; i2
  inner_join [shape=tripleoctagon]; outer_join [shape=tripleoctagon]; b2
  outer -> inner; inner -> i1 -> inner_join; inner -> i2 -> inner_join; inner_join -> outer_join
  outer -> b2 -> outer_join
}`);
    assert.equal(findFanIn(graph, ['inner', 'b2'])?.continueAt, 'outer_join');
    assert.equal(findFanIn(graph, ['i1', 'i2'])?.continueAt, 'inner_join');
  });

  it('prefers the fan-in most branches reach and stops each branch at any fan-in', () => {
    const graph = graphOf(`digraph t {
  a; b; c; j1 [shape=tripleoctagon]; j2 [shape=tripleoctagon]
  a -> j1; b -> j1; c -> j2
}`);
    const found = findFanIn(graph, ['a', 'b', 'c']);
    assert.equal(found?.continueAt, 'j1');
    assert.deepEqual([...(found?.stopAt ?? [])].sort(), ['j1', 'j2']);
  });

  it('finds nothing when the branches never join, and survives cycles', () => {
    const graph = graphOf(`digraph t { a; b; a -> b -> a }`);
    assert.equal(findFanIn(graph, ['a', 'b']), undefined);
  });
});

describe('branch result bookkeeping', () => {
  it('keeps only the keys a branch added or changed, without per-node bookkeeping', () => {
    const before = { goal: 'x', counter: 1, list: [1] };
    const after = { goal: 'x', counter: 2, list: [1], fresh: 'yes', current_node: 'b', outcome: 'success', preferred_label: '' };
    assert.deepEqual(contextChanges(before, after), { counter: 2, fresh: 'yes' });
  });

  it('reads a numeric score, as a number or as numeric text', () => {
    assert.equal(scoreOf({ score: 3.5 }), 3.5);
    assert.equal(scoreOf({ score: '7' }), 7);
    assert.equal(scoreOf({ score: 'high' }), undefined);
    assert.equal(scoreOf({}), undefined);
  });
});
