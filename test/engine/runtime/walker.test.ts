import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CodergenRequest } from '../../../engine/runtime/backend';
import { CancelledError } from '../../../engine/runtime/walker';
import { instantClock, runDot } from './harness';

const frame = (body: string, graphAttrs = '') => `digraph t {\n${graphAttrs}\nstart [shape=Mdiamond]\ndone [shape=Msquare]\n${body}\n}`;

describe('retry ladder', () => {
  it('retries RETRY outcomes with backoff and counts attempts', async () => {
    const clock = instantClock();
    const run = await runDot(frame('n [prompt="x", max_retries=2]\nstart -> n -> done'), {
      clock,
      script: { llm: { n: [{ report_outcome: { status: 'retry' } }, { report_outcome: { status: 'retry' } }, { report_outcome: { status: 'success' } }] } },
    });
    assert.equal(run.result.status, 'success');
    assert.equal(run.trace.find((r) => r.node_id === 'n')?.attempt, 3);
    assert.deepEqual(clock.sleeps, [200, 400]);
  });

  it('retries transient provider errors, never 4xx', async () => {
    const transient = await runDot(frame('n [prompt="x", max_retries=1]\nstart -> n -> done'), {
      script: { llm: { n: [{ error: { status: 429, message: 'slow down' } }, { text: 'fine' }] } },
    });
    assert.equal(transient.result.status, 'success');
    const auth = await runDot(frame('n [prompt="x", max_retries=3]\nn -> done [condition="outcome=fail"]\nstart -> n'), {
      script: { llm: { n: [{ error: { status: 401, message: 'bad key' } }, { text: 'never' }] } },
    });
    assert.equal(auth.trace.find((r) => r.node_id === 'n')?.attempt, 1);
    assert.match(auth.trace.find((r) => r.node_id === 'n')?.failure_reason ?? '', /401: bad key/);
  });

  it('a goal gate answering in prose fails closed even with retries', async () => {
    const run = await runDot(frame('judge [goal_gate=true, max_retries=1, prompt="judge"]\nstart -> judge -> done'), {
      script: { llm: { judge: [{ text: 'Looks converged to me.' }] } },
    });
    assert.equal(run.result.status, 'fail');
    assert.match(run.result.failureReason ?? '', /max retries exceeded after 2 attempts/);
  });

  it('a goal gate retried by retry_target until an explicit verdict', async () => {
    const run = await runDot(
      frame('work [prompt="w"]\njudge [goal_gate=true, retry_target=work, prompt="j", allow_partial=true]\nstart -> work -> judge -> done'),
      { script: { llm: { work: [{ text: 'done' }], judge: [{ text: 'prose' }, { text: '{"status":"success"}' }] } } },
    );
    // Prose → RETRY → exhausted with allow_partial → PARTIAL_SUCCESS but not explicit → gate jumps to work.
    assert.equal(run.result.status, 'success');
    assert.deepEqual(run.path, ['work', 'judge', 'work', 'judge']);
    assert.ok(run.events.some((e) => e.type === 'jump' && e.to === 'work'));
  });
});

describe('must_write', () => {
  it('consumes attempts until the artifact is fresh', async () => {
    const run = await runDot(frame('w [prompt="x", must_write="out.md", max_retries=2]\nstart -> w -> done'), {
      script: { llm: { w: [{ text: 'forgot' }, { writes: { 'out.md': '  \n' }, text: 'blank' }, { writes: { 'out.md': '# real' }, text: 'ok' }] } },
    });
    assert.equal(run.result.status, 'success');
    assert.equal(run.trace.find((r) => r.node_id === 'w')?.attempt, 3);
  });

  it('allow_partial does not soften a missing artifact', async () => {
    const run = await runDot(frame('w [prompt="x", must_write="out.md", allow_partial=true, max_retries=1]\nstart -> w -> done'), {
      script: { llm: { w: [{ report_outcome: { status: 'retry' } }] } },
    });
    assert.equal(run.result.status, 'fail');
    assert.match(run.result.failureReason ?? '', /must_write violated: out.md was not written/);
  });

  it('continue_on_fail cannot override the artifact contract', async () => {
    const run = await runDot(frame('w [prompt="x", must_write="out.md", continue_on_fail=true]\nstart -> w -> done'), {
      script: { llm: { w: [{ report_outcome: { status: 'fail' } }] } },
    });
    assert.equal(run.result.status, 'fail');
    assert.match(run.result.failureReason ?? '', /continue_on_fail cannot override/);
  });

  it('a planted artifact from an earlier iteration does not satisfy a later visit', async () => {
    const run = await runDot(
      frame('w [prompt="x", must_write="out.md"]\ngate [shape=parallelogram, tool_command="echo again"]\nstart -> w -> gate\ngate -> w [condition="context.iteration=0", loop_restart=true]\ngate -> done [condition="context.iteration!=0"]'),
      { script: { llm: { w: [{ writes: { 'out.md': 'first' }, text: 'ok' }, { text: 'did nothing' }] } } },
    );
    assert.equal(run.result.status, 'fail');
    assert.match(run.result.failureReason ?? '', /predates this node's start/);
  });
});

describe('routing', () => {
  it('continue_on_fail lets a failed node flow on as PARTIAL_SUCCESS, not explicit', async () => {
    const run = await runDot(frame('t [shape=parallelogram, tool_command="exit 4", continue_on_fail=true]\nnext [shape=parallelogram, tool_command="true"]\nstart -> t -> next -> done'));
    assert.equal(run.result.status, 'success');
    assert.deepEqual(run.trace.filter((r) => r.node_id === 't').map((r) => [r.status, r.is_explicit]), [['partial_success', false]]);
  });

  it('a failure routed into a runs_on=always cleanup still fails the run', async () => {
    const run = await runDot(frame('t [shape=parallelogram, tool_command="exit 1"]\ncleanup [shape=parallelogram, runs_on=always, tool_command="true"]\nstart -> t -> cleanup -> done'));
    assert.deepEqual(run.path, ['t', 'cleanup']);
    assert.equal(run.result.status, 'fail');
    assert.match(run.result.failureReason ?? '', /t failed/);
  });

  it('a failed tool leaves tool.last_line stale (the documented hazard TOPO-002 lints)', async () => {
    const run = await runDot(
      frame('ok [shape=parallelogram, tool_command="echo gate_pass"]\nbad [shape=parallelogram, tool_command="echo gate_fail; exit 1"]\nstart -> ok -> bad\nbad -> done [condition="context.tool.last_line=gate_pass"]'),
    );
    assert.equal(run.result.status, 'success', 'the stale value routes the run: this is why conditions must add && outcome=success');
  });

  it('a failed node with a retry_target jumps there', async () => {
    const run = await runDot(
      frame('t [shape=parallelogram, tool_command="test -f ok.txt || { touch ok.txt; exit 1; }", retry_target=fix]\nfix [shape=parallelogram, tool_command="true"]\nstart -> t -> done\nfix -> t'),
    );
    assert.equal(run.result.status, 'success');
    assert.deepEqual(run.path, ['t', 'fix', 't']);
  });

  it('max_steps stops a runaway loop', async () => {
    const run = await runDot(frame('a [shape=parallelogram, tool_command="true"]\nstart -> a\na -> a [condition="outcome=success"]\na -> done [condition="outcome=fail"]', 'graph [max_steps=5]'));
    assert.equal(run.result.status, 'fail');
    assert.match(run.result.failureReason ?? '', /max_steps_exceeded/);
  });

  it('requires= skips a node whose inputs are missing', async () => {
    const run = await runDot(frame('a [shape=parallelogram, requires="report_path", tool_command="echo ran > ran.txt"]\nstart -> a -> done'));
    assert.equal(run.trace.find((r) => r.node_id === 'a')?.status, 'skipped');
    assert.equal(run.read('ran.txt'), undefined);
  });
});

describe('iterations, feedback and context', () => {
  it('loop_restart increments $iteration, writes per-iteration records and feeds critics', async () => {
    const run = await runDot(
      frame(
        'gen [feedback_from=critic, prompt="Try. Earlier: $prior_critiques_gen"]\ncritic [shape=parallelogram, tool_command="echo critique-$iteration"]\ngate [shape=parallelogram, tool_command="test $iteration = 2 && echo pass || echo again"]\nstart -> gen -> critic -> gate\ngate -> done [condition="context.tool.last_line=pass"]\ngate -> gen [condition="context.tool.last_line=again", loop_restart=true]',
      ),
      { script: { llm: { gen: [{ text: 'attempt' }] } } },
    );
    assert.equal(run.result.status, 'success');
    assert.deepEqual([...new Set(run.trace.map((r) => r.iteration))], [0, 1, 2]);
    const prompt = fs.readFileSync(path.join(run.result.logsRoot, 'iteration_2', 'gen', 'prompt.md'), 'utf8');
    assert.match(prompt, /Iteration 0 critique: critique-0\nIteration 1 critique: critique-1/);
    assert.ok(!fs.readFileSync(path.join(run.result.logsRoot, 'iteration_0', 'gen', 'prompt.md'), 'utf8').includes('$prior_critiques_gen'));
    assert.ok(fs.existsSync(path.join(run.result.logsRoot, 'iteration_1', 'critic', 'status.json')));
  });

  it('shell-quotes context values expanded into commands', async () => {
    const run = await runDot(frame('a [shape=parallelogram, tool_command="printf %s $evil > out.txt"]\nstart -> a -> done'), { params: { evil: "x'; touch pwned; echo '" } });
    assert.equal(run.result.status, 'success');
    assert.equal(run.read('out.txt'), "x'; touch pwned; echo '");
    assert.equal(run.read('pwned'), undefined);
  });

  it('parse_json merges a tool\'s JSON into the context (a declared output is a command variable)', async () => {
    const run = await runDot(frame('a [shape=parallelogram, parse_json=true, outputs="score", tool_command="echo \'{\\"score\\": 7}\'"]\nb [shape=parallelogram, tool_command="echo ${score} > s.txt"]\nstart -> a -> b -> done'));
    assert.equal(run.read('s.txt'), '7\n');
  });

  it('context updates from report_outcome reach later conditions', async () => {
    const run = await runDot(frame('n [prompt="x"]\nyes [shape=parallelogram, tool_command="true"]\nno [shape=parallelogram, tool_command="true"]\nstart -> n\nn -> yes [condition="context.verdict=ship"]\nn -> no [condition="context.verdict!=ship"]\nyes -> done\nno -> done'), {
      script: { llm: { n: [{ report_outcome: { status: 'success', context_updates: { verdict: 'ship' } } }] } },
    });
    assert.deepEqual(run.path, ['n', 'yes']);
  });
});

describe('run directory', () => {
  it('writes manifest, checkpoint, trace, and flat plus per-iteration stage files', async () => {
    const run = await runDot(frame('n [prompt="Goal: $goal"]\nstart -> n -> done', 'graph [goal="ship"]'), { script: { llm: { n: [{ text: 'full response text' }] } } });
    const root = run.result.logsRoot;
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'manifest.json'), 'utf8'));
    assert.equal(manifest.goal, 'ship');
    assert.equal(manifest.engine_version, '0.1.0');
    assert.ok(typeof manifest.engine_commit === 'string');
    const checkpoint = JSON.parse(fs.readFileSync(path.join(root, 'checkpoint.json'), 'utf8'));
    assert.equal(checkpoint.status, 'success');
    assert.deepEqual(checkpoint.completedNodes, ['start', 'n', 'done']);
    assert.equal(fs.readFileSync(path.join(root, 'n', 'response.md'), 'utf8'), 'full response text');
    assert.match(fs.readFileSync(path.join(root, 'n', 'prompt.md'), 'utf8'), /Goal: ship/);
    const status = JSON.parse(fs.readFileSync(path.join(root, 'iteration_0', 'n', 'status.json'), 'utf8'));
    assert.deepEqual([status.outcome, status.is_explicit, status.attempt_count], ['success', false, 1]);
    const record = run.trace.find((r) => r.node_id === 'n');
    assert.deepEqual(Object.keys(record ?? {}).slice(0, 8), ['iteration', 'node_id', 'status', 'preferred_label', 'duration_ms', 'ts', 'is_explicit', 'attempt']);
  });

  it('node:end carries failed_step: a failed LLM call with no response, a tool whose tails are dropped past the size cap', async () => {
    const tool = `for i in $(seq 3000); do printf '€'; printf '€' >&2; done; exit 1`;
    const run = await runDot(frame(`n [prompt="Plan $goal"]\nt [shape=parallelogram, tool_command="${tool}"]\nstart -> n\nn -> t [condition="outcome=fail"]\nt -> done [condition="outcome=fail"]`, 'graph [goal="ship"]'), {
      script: { llm: { n: [{ error: { status: 400, message: 'bad request' } }] } },
    });
    const failedStep = (node: string) => run.events.flatMap((e) => (e.type === 'node:end' && e.nodeId === node ? [e.outcome.failedStep] : []));
    assert.deepEqual(failedStep('n'), [{ prompt: 'Plan ship', error: 'scripted provider error 400: bad request', response_tail: '' }]);
    assert.deepEqual(failedStep('t'), [{ command: tool, exit_code: 1, verification_gap: { log_filtered: true } }]);
    assert.deepEqual(run.trace.find((r) => r.node_id === 'n')?.failed_step, failedStep('n')[0]);
  });

  it('balances run:start and run:end, and every node:start with node:end', async () => {
    const run = await runDot(frame('a [shape=parallelogram, tool_command="true"]\nstart -> a -> done'));
    const count = (type: string) => run.events.filter((e) => e.type === type).length;
    assert.equal(count('run:start'), 1);
    assert.equal(count('run:end'), 1);
    assert.equal(count('node:start'), count('node:end'));
  });
});

describe('controller seams', () => {
  it('cancelNode fails only the running attempt; the run routes on', async () => {
    const hanging = {
      name: 'hanging',
      preflight: () => [],
      run: async (request: CodergenRequest) => {
        await request.beforeTurn?.(1);
        await new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }));
        return { responseText: 'never' };
      },
    };
    const turns: number[] = [];
    const run = await runDot(frame('slow [prompt="x", max_retries=3]\nrecover [shape=parallelogram, tool_command="echo recovered > r.txt"]\nstart -> slow\nslow -> recover [condition="outcome=fail"]\nslow -> done [condition="outcome=success"]\nrecover -> done'), {
      backend: hanging,
      controller: {
        beforeAgentTurn: (boundary) => {
          turns.push(boundary.turn);
          setTimeout(() => boundary.cancelNode('user pressed cancel'), 10);
        },
      },
    });
    assert.equal(run.result.status, 'success');
    assert.deepEqual(turns, [1], 'a cancelled attempt is not retried');
    assert.equal(run.trace.find((r) => r.node_id === 'slow')?.failure_reason, 'cancelled: user pressed cancel');
    assert.equal(run.read('r.txt'), 'recovered\n');
  });

  it('a node whose route never comes (the edge hook throws) still has its trace record', async () => {
    const run = await runDot(frame('a [shape=parallelogram, tool_command="echo a"]\nstart -> a -> done'), {
      controller: {
        beforeEdge: (boundary) => {
          if (boundary.from === 'a') throw new CancelledError('the debug session stopped the run');
        },
      },
    });
    assert.equal(run.result.status, 'cancelled');
    assert.equal(run.events.filter((e) => e.type === 'trace' && e.record.node_id === 'a').length, 1);
  });
});
