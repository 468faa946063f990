// Issue 27's smaller gaps, each through the `attractor` CLI process on a fixture of
// test/fixtures/reference-corpus: what the canonical spec names and the reference engine does.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { diagnostics, named, readJson, run, workspace } from './corpus-cli';

interface TraceRecord {
  readonly node_id: string;
  readonly status: string;
  readonly attempt: number;
  readonly duration_ms: number;
}

function trace(dir: string): TraceRecord[] {
  return fs
    .readFileSync(path.join(dir, 'run', 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TraceRecord);
}

describe("the canonical spec's smaller features (CLI process)", () => {
  it("retry_policy names §3.6's presets: their attempts, and their backoffs between them", () => {
    const dir = workspace();
    const ran = run(dir, 'backoff-presets.dot', '--scripted', 'backoff-presets.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    const byNode = new Map(trace(dir).map((record) => [record.node_id, record]));
    const visit = (id: string) => byNode.get(id) as TraceRecord;
    assert.equal(visit('once').attempt, 1, 'none: a single attempt');
    assert.equal(visit('steady').attempt, 3, 'linear: three attempts');
    assert.ok(visit('steady').duration_ms >= 500, `linear: two waits of 500 ms ±50 %, took ${visit('steady').duration_ms} ms`);
    assert.equal(visit('eager').attempt, 2, 'an explicit max_retries counts the attempts');
    assert.ok(visit('eager').duration_ms >= 250, `aggressive: 500 ms ±50 %, took ${visit('eager').duration_ms} ms`);
    assert.equal(visit('slow').attempt, 2);
    assert.ok(visit('slow').duration_ms >= 1000, `patient: 2 s ±50 %, took ${visit('slow').duration_ms} ms`);
    assert.deepEqual(named(diagnostics('lint', 'backoff-presets.dot').diagnostics, 'unknown_attribute'), []);
  });

  it('lint knows the presets: an unknown retry_policy is flagged with the names it could be', () => {
    const dir = workspace();
    fs.writeFileSync(path.join(dir, 'typo.dot'), 'digraph t {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  a [prompt="x", retry_policy=patiant]\n  start -> a -> done\n}\n');
    const found = diagnostics('lint', path.join(dir, 'typo.dot')).diagnostics.filter((d) => /retry_policy/.test(d.message));
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.match(found[0]?.fix?.title ?? found[0]?.message ?? '', /patient/);
  });

  it('human gates ask YES_NO and CONFIRMATION questions: yes/no pick an edge; a confirmation goes on, or fails when declined', () => {
    const dir = workspace();
    const ran = run(dir, 'question-types.dot', '--scripted', 'question-types.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'deployed.txt'), 'utf8'), 'shipped\n');
    assert.equal(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'held\n');
    const byNode = new Map(trace(dir).map((record) => [record.node_id, record]));
    assert.equal(byNode.get('publish')?.status, 'fail', 'a declined confirmation is a failure');
    const deploy = readJson(dir, 'run', 'deploy', 'status.json');
    assert.equal((deploy.context_updates as Record<string, unknown>)['human.gate.selected'], 'Y');
    assert.deepEqual(named(diagnostics('lint', 'question-types.dot').diagnostics, 'attribute_value'), []);
  });

  it('a yes_no gate needs one yes edge and one no edge: anything else is refused before the run', () => {
    const dir = workspace();
    fs.writeFileSync(path.join(dir, 'half.dot'), 'digraph t {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  ask [shape=hexagon, label="Go?", "human.question_type"=yes_no]\n  start -> ask\n  ask -> done [label="[G] Go"]\n}\n');
    const found = named(diagnostics('validate', path.join(dir, 'half.dot')).diagnostics, 'question_type_edges');
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0]?.severity, 'error');
    assert.match(found[0]?.message ?? '', /yes.*no/i);
  });

  it("fidelity's summary modes carry what canonical §5.4 says: low counts, medium adds outcomes and context, high adds failures and updates", () => {
    const dir = workspace();
    const ran = run(dir, 'fidelity-modes.dot', '--scripted', 'fidelity-modes.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    const prompt = (node: string) => fs.readFileSync(path.join(dir, 'run', node, 'prompt.md'), 'utf8');
    const truncate = prompt('t');
    assert.match(truncate, /ship the widget/);
    assert.doesNotMatch(truncate, /measure|widget_size/, 'truncate: only the goal and the run');

    const compact = prompt('c');
    assert.match(compact, /- measure: success/);
    assert.match(compact, /- lint: fail/);
    assert.match(compact, /widget_size: 42/);

    const low = prompt('low');
    assert.match(low, /Progress: 5 of 6 stages succeeded, 1 failed\./);
    assert.match(low, /Stages: start, measure, lint, draft, t, c/);
    assert.doesNotMatch(low, /widget_size|lint broke|Notes drafted/, 'low: counts and names, no values');

    const medium = prompt('medium');
    assert.match(medium, /- measure: success — tool completed/);
    assert.match(medium, /Last response:\n {2}ok\n/);
    assert.match(medium, /- draft: success — Notes drafted: the widget is 42 wide\./);
    assert.match(medium, /widget_size: 42/);
    assert.doesNotMatch(medium, /lint broke/, 'medium: outcomes without failure detail');

    const high = prompt('high');
    assert.match(high, /- lint: fail\n\s+Failure: tool command failed \(exit code 2\): lint broke/);
    assert.match(high, /widget_size: 42/);
    assert.match(high, /Last response:/);
    for (const [name, text] of [['low', low], ['medium', medium], ['high', high]] as const) assert.ok(text.length < { low: 2400, medium: 6000, high: 12000 }[name] + 200, `${name} within its budget`);
  });

  it('attractor run --handlers MODULE registers the custom handlers a module exports, by type or by shape', () => {
    const dir = workspace();
    fs.writeFileSync(
      path.join(dir, 'stamp-handlers.mjs'),
      `import fs from 'node:fs';
import path from 'node:path';
export const handlers = {
  stamp: {
    async execute({ node, context, services }) {
      fs.writeFileSync(path.join(services.cwd, 'stamped.txt'), node.id + ' for ' + context.get('graph.goal') + '\\n');
      return { status: 'success', isExplicit: true, notes: 'stamped', contextUpdates: { 'stamp.by': node.id } };
    },
  },
  hexagon: { async execute() { return { status: 'success', isExplicit: true, suggestedNextIds: ['done'] }; } },
};
`,
    );
    fs.writeFileSync(
      path.join(dir, 'custom.dot'),
      'digraph custom {\n  graph [goal="ship"]\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  mark [type="stamp"]\n  show [shape=parallelogram, tool_command="echo ${context.stamp.by} > shown.txt"]\n  ask [shape=hexagon, label="Never asked"]\n  start -> mark -> show -> ask\n  ask -> done [label="[D] Done"]\n}\n',
    );
    const ran = run(dir, 'custom.dot', '--handlers', 'stamp-handlers.mjs');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'stamped.txt'), 'utf8'), 'mark for ship\n');
    assert.equal(fs.readFileSync(path.join(dir, 'shown.txt'), 'utf8'), 'mark\n');
    assert.doesNotMatch(ran.stderr, /type_known/, 'a registered type is known to validation');

    fs.writeFileSync(path.join(dir, 'empty.mjs'), 'export const handlers = { broken: { run() {} } };\n');
    const refused = run(dir, 'custom.dot', '--handlers', 'empty.mjs');
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /empty\.mjs: handler "broken" has no execute function/);
  });

  it('auto_status: a node whose handler wrote no status (an empty answer, a skip) succeeds with the auto-status note; without it the empty answer fails', () => {
    const dir = workspace();
    const ran = run(dir, 'auto-status.dot', '--scripted', 'auto-status.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'reached.txt'), 'utf8'), 'reached\n');
    const status = (node: string) => readJson(dir, 'run', node, 'status.json');
    assert.equal(status('quiet').outcome, 'success');
    assert.equal(status('quiet').notes, 'auto-status: handler completed without writing status');
    assert.equal(status('mute').outcome, 'fail');
    assert.equal(status('needs').outcome, 'success');
  });
});
