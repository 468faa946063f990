// Pipelines written for the reference engine (issue 14): one fixture per class in
// test/fixtures/reference-corpus, each run through the `attractor` CLI process as a user would.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractor, attractorWith, corpus, diagnostics, named, readJson, run, workspace } from './corpus-cli';

describe('pipelines written for the reference bundle (CLI process)', () => {

  it('every fixture validates and lints without a crash, and the ones the reference admits are admitted', () => {
    // The rules this issue made precise or added fire in their own fixture and nowhere else in the corpus.
    const firesOnlyIn: Readonly<Record<string, string | undefined>> = {
      'CMD-001': 'cmd001-precision.dot',
      goal_gate_has_retry: undefined,
      'TOPO-001': 'dead-conditions.dot',
      outcome_value: 'data-flow.dot',
      context_key_unwritten: 'data-flow.dot',
      edge_target_exists: 'implicit-node.dot',
      dollar_escape: 'dollar-escape.dot',
    };
    // One process per command for all of them: each diagnostic names its file (the same as each file alone).
    const files = fs.readdirSync(corpus).filter((name) => name.endsWith('.dot'));
    const validated = diagnostics('validate', ...files);
    assert.equal(validated.status, 0, JSON.stringify(validated.diagnostics.filter((d) => d.severity === 'error')));
    const linted = diagnostics('lint', ...files).diagnostics;
    assert.deepEqual(linted.filter((d) => !files.includes(d.file ?? '')), [], 'every diagnostic names its file');
    for (const file of files) {
      for (const [rule, home] of Object.entries(firesOnlyIn)) {
        if (file !== home) assert.deepEqual(named(linted.filter((d) => d.file === file), rule), [], `${rule} in ${file}`);
      }
    }
  });

  it('a comment inside a graph [ ... ] attribute list is stripped, as in a node list', () => {
    const dir = workspace();
    const ran = run(dir, 'graph-attribute-comment.dot');
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'hello.txt'), 'utf8'), 'hello\n');
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'run', 'manifest.json'), 'utf8')) as { goal?: string };
    assert.equal(manifest.goal, 'say hello');
  });

  it('start and exit declared by type="start" / type="exit" are found, and the topology lint runs', () => {
    const linted = diagnostics('lint', 'start-exit-by-type.dot').diagnostics;
    assert.deepEqual([...named(linted, 'start_node'), ...named(linted, 'terminal_node')], []);
    assert.equal(named(linted, 'TOPO-003').length, 1, 'the topology lint runs once a start is found');
    assert.deepEqual(named(linted, 'attribute_value'), [], 'with an explicit type, the shape only draws the node');
    const dir = workspace();
    const ran = run(dir, 'start-exit-by-type.dot');
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(ran.result.status, 'success');
    assert.equal(fs.readFileSync(path.join(dir, 'work.txt'), 'utf8'), 'worked\n');
  });

  it('start and exit found by their id alone run as start and exit, not as LLM nodes', () => {
    const dir = workspace();
    const ran = run(dir, 'start-exit-by-id.dot');
    assert.equal(ran.result.status, 'success', ran.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'work.txt'), 'utf8'), 'worked\n');
  });

  it('an edge to an undeclared node admits it implicitly, with a warning naming it and a fix that declares it', () => {
    const { status, diagnostics: found } = diagnostics('validate', 'implicit-node.dot');
    assert.equal(status, 0);
    const [warning, ...more] = named(found, 'edge_target_exists');
    assert.deepEqual(more, []);
    assert.equal(warning?.severity, 'warning');
    assert.equal(warning?.node_id, 'summarize');
    assert.match(warning?.message ?? '', /`summarize`/);
    assert.match(warning?.fix?.title ?? '', /Declare `summarize`/);
    assert.deepEqual(named(found, 'prompt_on_llm_nodes'), [], 'one warning per implicit node');
    const dir = workspace();
    fs.writeFileSync(path.join(dir, 'script.json'), JSON.stringify({ llm: { summarize: [{ text: 'summarized' }] } }));
    const ran = run(dir, 'implicit-node.dot', '--scripted', 'script.json');
    assert.equal(ran.result.status, 'success', ran.stderr);
  });

  it('--param goal="…" sets the goal: $goal in commands, graph.goal and the manifest', () => {
    const dir = workspace();
    const ran = run(dir, 'param-goal.dot', '--param', 'goal=Fix the TypeError');
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'goal.txt'), 'utf8'), 'Fix the TypeError\n');
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'run', 'manifest.json'), 'utf8')) as { goal?: string };
    assert.equal(manifest.goal, 'Fix the TypeError');
    const checkpoint = JSON.parse(fs.readFileSync(path.join(dir, 'run', 'checkpoint.json'), 'utf8')) as { context: Record<string, unknown> };
    assert.equal(checkpoint.context['graph.goal'], 'Fix the TypeError');
  });

  it('tool_env in the reference form exports context keys as upper-case environment variables', () => {
    const dir = workspace();
    const ran = run(dir, 'tool-env.dot');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'env.txt'), 'utf8'), 'report.md|ship\n');
  });

  it('a bare dotted $tool.output in a tool_command expands, without a lint warning', () => {
    const dir = workspace();
    const ran = run(dir, 'tool-output-bare.dot');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8').trim(), 'hello');
    assert.deepEqual(named(diagnostics('lint', 'tool-output-bare.dot').diagnostics, 'ambiguous_command_variable'), []);
  });

  it("a folder node's context.* attributes reach the child pipeline's context", () => {
    const dir = workspace();
    const ran = run(dir, 'folder-context.dot');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'target.txt'), 'utf8'), 'widgets\n');
    assert.deepEqual(named(diagnostics('lint', 'folder-context.dot').diagnostics, 'unknown_attribute'), []);
  });

  it("a manager node's context.* attributes reach the supervised child's context", () => {
    const dir = workspace();
    const ran = run(dir, 'manager-context.dot');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'target.txt'), 'utf8'), 'widgets\n');
    assert.deepEqual(named(diagnostics('lint', 'manager-context.dot').diagnostics, 'unknown_attribute'), []);
  });

  it('a manager without stack.child_dotfile runs its in-graph child as sprints, steering the second, then routes on', () => {
    const dir = workspace();
    const ran = run(dir, 'manager-in-graph.dot');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'sprints.txt'), 'utf8'), 'sprint\nsprint\n', 'two sprints, each to completion');
    assert.equal(fs.readFileSync(path.join(dir, 'steering-1.txt'), 'utf8'), '\n', 'the first sprint is not steered');
    const steering = fs.readFileSync(path.join(dir, 'steering-2.txt'), 'utf8');
    assert.match(steering, /^\[Manager Steering — Cycle 1 of 5\]\nStatus: fail\nFailure reason: .*exit code 1/);
    assert.match(steering, /Cycles remaining: 4\n/);
    assert.equal(fs.readFileSync(path.join(dir, 'report.txt'), 'utf8'), 'cycles=2 last=success first=fail\n');
    const status = readJson(dir, 'run', 'manager', 'status.json');
    assert.equal(status.outcome, 'success');
    assert.equal(status.cycle_index, 1);
    assert.deepEqual(named(diagnostics('lint', 'manager-in-graph.dot').diagnostics, 'unknown_attribute'), []);
  });

  it('a manager with stack.child_dotfile, one cycle and observe only finishes with its child sprint (a human gate inside it)', () => {
    const dir = workspace();
    const ran = run(path.join(dir, 'manager-child-dotfile'), 'parent.dot', '--scripted', 'answers.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'manager-child-dotfile', 'approved.txt'), 'utf8'), 'approved\n');
    const status = readJson(dir, 'manager-child-dotfile', 'run', 'manager', 'status.json');
    assert.equal(status.outcome, 'success');
    assert.equal((status.context_updates as Record<string, unknown>)['manager.cycles'], 1);
  });

  it('`$$` is a literal `$` in commands and prompts: $$(…), $${x} and $$$$ reach bash as $(…), ${x} and $$', () => {
    const dir = workspace();
    const ran = run(dir, 'dollar-escape.dot', '--scripted', 'dollar-escape.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
    assert.equal(read('loop.txt'), 'file a\nfile b\n');
    assert.equal(read('brace.txt'), '5\n', "the shell's own ${x}, not its pid followed by {x}");
    assert.equal(read('cost.txt'), 'cost: $5\n');
    assert.match(read('pid.txt'), /^\d+\n$/);
    assert.equal(read('lone.txt'), 'total $\n');
    assert.equal(read('shadow.txt'), 'mine\n');
    assert.match(read(path.join('run', 'price', 'prompt.md')), /It costs \$10 to ship it; keep \$goal as written\.$/);
    const found = named(diagnostics('lint', 'dollar-escape.dot').diagnostics, 'dollar_escape').map((d) => `${d.node_id}: ${d.fix?.title ?? ''}`);
    assert.deepEqual(found, ['lone: Write `$$$$` (the shell\'s process id)', 'shadow: ', 'price: ']);
  });

  it('`outcome=<label>` out of an LLM node routes on the label it reports, and lint is quiet on it', () => {
    const dir = workspace();
    const ran = run(dir, 'outcome-label.dot', '--scripted', 'outcome-label.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'routed.txt'), 'utf8'), 'processed\n');
    const found = diagnostics('lint', 'outcome-label.dot').diagnostics;
    assert.deepEqual([...named(found, 'outcome_value'), ...named(found, 'TOPO-001')], []);
  });

  it('graph attributes are in the context as graph.<name>, retries as internal.retry_count.<node>, and conditions on both route', () => {
    const dir = workspace();
    const ran = run(dir, 'context-keys.dot', '--scripted', 'context-keys.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'report.txt'), 'utf8'), 'Nightly 2 2\n');
    const context = (readJson(dir, 'run', 'checkpoint.json').context ?? {}) as Record<string, unknown>;
    assert.deepEqual(
      Object.fromEntries(Object.entries(context).filter(([key]) => key.startsWith('graph.') || key.startsWith('internal.retry_count.'))),
      { 'graph.goal': 'ship', 'graph.label': 'Nightly', 'graph.default_max_retries': '2', 'internal.retry_count.start': 0, 'internal.retry_count.work': 2, 'internal.retry_count.report': 0 },
    );
    assert.deepEqual(named(diagnostics('lint', 'context-keys.dot').diagnostics, 'context_key_unwritten'), []);
  });

  it('a context value past 100 KB is stored as artifacts/{id}.json and referenced from the context; later nodes read the value', () => {
    const dir = workspace();
    const ran = run(dir, 'artifacts.dot');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(dir, 'size.txt'), 'utf8'), '120000\n');
    const checkpoint = readJson(dir, 'run', 'checkpoint.json');
    const context = checkpoint.context as Record<string, unknown>;
    const reference = context.report as { $artifact: string; name: string; size_bytes: number; path: string };
    assert.equal(reference.name, 'report');
    assert.equal(reference.size_bytes, 120_002);
    assert.equal(reference.path, `artifacts/${reference.$artifact}.json`);
    assert.equal(context.small, 'ok', 'values under the threshold stay in the context');
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'run', reference.path), 'utf8')), 'x'.repeat(120_000));
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'run', 'artifacts', 'index.json'), 'utf8')) as { id: string; node_id?: string }[];
    assert.deepEqual(index.find((info) => info.id === reference.$artifact)?.node_id, 'big');
    assert.ok(JSON.stringify(checkpoint).length < 20_000, 'the checkpoint holds references, not the values');
  });

  it('CMD-001 fires only where a pipe decides the exit status and hides a failure', () => {
    const found = named(diagnostics('lint', 'cmd001-precision.dot').diagnostics, 'CMD-001');
    assert.deepEqual(
      found.map((d) => d.node_id),
      ['loud'],
    );
  });

  it('goal_gate_has_retry is quiet on a goal gate whose failure edge is a loop_restart back-edge', () => {
    assert.deepEqual(named(diagnostics('lint', 'goal-gate-loop-restart.dot').diagnostics, 'goal_gate_has_retry'), []);
  });

  it('TOPO-001 finds dead outcome conditions out of start, tools and gates; TOPO-006 no longer blames start', () => {
    const found = diagnostics('lint', 'dead-conditions.dot').diagnostics;
    const dead = named(found, 'TOPO-001').map((d) => `${d.node_id}: ${d.message}`);
    assert.equal(dead.length, 2, dead.join('\n'));
    assert.match(dead[0] ?? '', /^start: `outcome=fail` can never hold .*a start node always succeeds/);
    assert.match(dead[1] ?? '', /^build: `outcome=partial_success` can never hold .*a tool node ends in success or fail/);
    assert.deepEqual(named(found, 'TOPO-006'), []);
  });

  it('conditions on context keys nothing upstream writes, and misspelled outcomes, warn with did-you-mean', () => {
    const found = diagnostics('lint', 'data-flow.dot').diagnostics;
    assert.deepEqual(named(found, 'TOPO-001'), [], 'a misspelled outcome is reported once, by outcome_value');
    const outcome = named(found, 'outcome_value');
    assert.equal(outcome.length, 1, JSON.stringify(found));
    assert.match(outcome[0]?.message ?? '', /`sucess` is not a status, and `check` \(a tool node\) reports no label.*did you mean `success`/);
    assert.match(outcome[0]?.fix?.title ?? '', /success/);
    const keys = named(found, 'context_key_unwritten').map((d) => d.message);
    assert.equal(keys.length, 2, keys.join('\n'));
    assert.match(keys[0] ?? '', /`plan_redy`.*did you mean `plan_ready`/);
    assert.match(keys[1] ?? '', /`never_written`/);
  });

  it("a scripted human answer's attachments reach the context and the node's records", () => {
    const dir = workspace();
    const ran = run(dir, 'human-gate-attachments.dot', '--scripted', 'human-gate-attachments.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    const attached = path.join(dir, 'notes.md');
    assert.equal(fs.readFileSync(path.join(dir, 'attachments.txt'), 'utf8'), `${JSON.stringify([attached])}\n`);
    const status = JSON.parse(fs.readFileSync(path.join(dir, 'run', 'review', 'status.json'), 'utf8')) as Record<string, unknown>;
    assert.match(JSON.stringify(status), /notes\.md/);

    fs.writeFileSync(path.join(dir, 'missing.json'), JSON.stringify({ human: { review: [{ choice: 'A', attachments: ['gone.md'] }] } }));
    const refused = attractor(dir, 'run', 'human-gate-attachments.dot', '--scripted', 'missing.json', '--logs-root', 'other');
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /human\.review\[0\]: attachment gone\.md does not exist/);
  });

  it('the manifest names the runner and its provider selection (ledger §28)', () => {
    const dir = workspace();
    const scripted = run(dir, 'ledger-fields.dot', '--scripted', 'ledger-fields.json');
    assert.equal(scripted.result.status, 'success', `${scripted.stdout}\n${scripted.stderr}`);
    const manifest = readJson(dir, 'run', 'manifest.json');
    assert.equal(manifest.runner_version, manifest.engine_version, 'the CLI and the engine ship in one bundle');
    assert.equal(manifest.runner_commit, manifest.engine_commit);
    assert.match(String(manifest.runner_commit), /^([0-9a-f]{40}|unknown)$/);
    assert.equal(manifest.provider, 'scripted');

    const provider = (env: NodeJS.ProcessEnv, logsRoot: string) => {
      const ran = attractorWith(env, dir, 'run', 'start-exit-by-id.dot', '--logs-root', logsRoot, '--json');
      assert.equal(ran.status, 0, ran.stderr);
      return readJson(dir, logsRoot, 'manifest.json').provider;
    };
    assert.equal(provider({ ATTRACTOR_DEFAULT_MODEL: '' }, 'no-default'), 'none', 'every LLM node names its own');
    assert.equal(provider({ ATTRACTOR_DEFAULT_MODEL: 'claude-sonnet-4-5' }, 'inferred'), 'anthropic');
    assert.equal(provider({ ATTRACTOR_DEFAULT_MODEL: 'my-local-model', ATTRACTOR_DEFAULT_PROVIDER: 'openai' }, 'named'), 'openai');
  });

  it('failed_step and cycle_index reach status.json and the trace (ledger §30)', () => {
    const dir = workspace();
    const ran = run(dir, 'ledger-fields.dot', '--scripted', 'ledger-fields.json');
    assert.equal(ran.result.status, 'success', `${ran.stdout}\n${ran.stderr}`);
    const trace = fs
      .readFileSync(path.join(dir, 'run', 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const records = (node: string) => trace.filter((record) => record.node_id === node);

    assert.deepEqual(records('child').map((record) => record.cycle_index), [0, 1]);
    assert.equal(readJson(dir, 'run', 'child', 'status.json').cycle_index, 1);
    assert.ok(trace.filter((record) => record.node_id !== 'child').every((record) => !('cycle_index' in record)));

    const [failedTool, passedTool] = records('again');
    assert.deepEqual(failedTool?.failed_step, {
      command: 'test -f twice || { touch twice; echo first try; echo not yet >&2; exit 3; }',
      exit_code: 3,
      stdout_tail: 'first try\n',
      stderr_tail: 'not yet\n',
    });
    assert.equal(passedTool?.failed_step, undefined);

    const review = readJson(dir, 'run', 'review', 'status.json');
    assert.equal(review.outcome, 'partial_success', 'continue_on_fail keeps the failure\'s failed_step');
    const step = review.failed_step as Record<string, unknown>;
    assert.equal(step.prompt, 'Review the work on ship the widget');
    assert.deepEqual([step.error, step.response_tail], ['build broken', 'The build is broken: make exits 2.']);
    assert.deepEqual(records('review')[0]?.failed_step, step);
  });
});
