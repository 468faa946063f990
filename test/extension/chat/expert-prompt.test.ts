import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzePipeline, convergenceProblems } from '../../../extension/chat/pipeline-facts';
import { expertPromptPath, loadExpertPrompt } from '../../../extension/chat/expert-prompt';
import { repoRoot } from './chat-fakes';

const prompt = loadExpertPrompt(expertPromptPath(repoRoot));

describe('attractor-expert prompt', () => {
  it('drops the maintainer comment and keeps the knowledge the participant relies on', () => {
    assert.ok(prompt.startsWith('# You are the attractor expert'));
    for (const needle of ['three-question test', 'Is there a cycle?', 'machine-checkable evidence, external to the worker', 'bad day', 'ceremony', 'plan → implement → test', 'parallelogram', 'Mdiamond', 'Msquare', 'loop_restart=true', 'feedback_from', 'goal_gate=true', 'CMD-001', 'VERDICT: pipeline', 'VERDICT: no pipeline']) {
      assert.ok(prompt.includes(needle), `the prompt lost "${needle}"`);
    }
  });

  it('teaches by an example that lints clean and has a tool gate on its cycle', () => {
    const dot = /```dot\n([\s\S]*?)```/.exec(prompt)?.[1];
    assert.ok(dot);
    const analysis = analyzePipeline(dot);
    assert.ok(analysis.ok);
    assert.deepEqual(analysis.facts.diagnostics.map((d) => d.message), []);
    assert.deepEqual(convergenceProblems(analysis.facts), []);
  });
});
