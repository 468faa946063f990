import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LlmBackend } from '../../engine/llm/llm-backend';
import { costUsd, inferProvider } from '../../engine/llm/model-catalog';
import { resolveModel, settingsFromEnv } from '../../engine/llm/provider-settings';
import { ProviderError } from '../../engine/runtime/backend';
import { codergenRequest, fakeNode } from './harness';

describe('provider settings', () => {
  it('reads keys, base URLs and the OpenAI API choice from the environment', () => {
    const settings = settingsFromEnv({ OPENAI_API_KEY: 'k1', OPENAI_BASE_URL: 'http://localhost:8080/v1', ANTHROPIC_API_KEY: ' ', ATTRACTOR_OPENAI_API: 'Responses' });
    assert.deepEqual(settings, {
      openai: { apiKey: 'k1', baseUrl: 'http://localhost:8080/v1', api: 'responses' },
      anthropic: { apiKey: undefined, baseUrl: undefined },
      gemini: { apiKey: undefined, baseUrl: undefined },
    });
    assert.equal(settingsFromEnv({}).openai.api, 'chat');
    assert.throws(() => settingsFromEnv({ ATTRACTOR_OPENAI_API: 'completions' }), /ATTRACTOR_OPENAI_API must be "chat" or "responses"/);
  });

  it('reads the default model and its provider; a provider without a model is no default', () => {
    assert.deepEqual(settingsFromEnv({ ATTRACTOR_DEFAULT_MODEL: ' gpt-4o-mini ' }).defaultModel, { model: 'gpt-4o-mini' });
    assert.deepEqual(settingsFromEnv({ ATTRACTOR_DEFAULT_MODEL: 'proxy', ATTRACTOR_DEFAULT_PROVIDER: 'Anthropic' }).defaultModel, { model: 'proxy', provider: 'anthropic' });
    assert.equal(settingsFromEnv({ ATTRACTOR_DEFAULT_PROVIDER: 'openai' }).defaultModel, undefined);
    assert.throws(() => settingsFromEnv({ ATTRACTOR_DEFAULT_MODEL: 'x', ATTRACTOR_DEFAULT_PROVIDER: 'mistral' }), /ATTRACTOR_DEFAULT_PROVIDER must be openai or anthropic or gemini \(got "mistral"\)/);
  });

  it("reads the first backoff of a model call's retries; the default policy's without it", () => {
    assert.equal(settingsFromEnv({}).retryDelayMs, undefined);
    assert.equal(settingsFromEnv({ ATTRACTOR_LLM_RETRY_DELAY_MS: ' 50 ' }).retryDelayMs, 50);
    assert.equal(settingsFromEnv({ ATTRACTOR_LLM_RETRY_DELAY_MS: '0' }).retryDelayMs, 0);
    for (const malformed of ['1s', '-5', '1.5', '30001']) {
      assert.throws(() => settingsFromEnv({ ATTRACTOR_LLM_RETRY_DELAY_MS: malformed }), new RegExp(`ATTRACTOR_LLM_RETRY_DELAY_MS must be a whole number of milliseconds from 0 to 30000, got "${malformed}"`));
    }
  });

  it('infers the provider from unmistakable model families only', () => {
    assert.equal(inferProvider('claude-opus-4-6'), 'anthropic');
    assert.equal(inferProvider('gpt-5-mini'), 'openai');
    assert.equal(inferProvider('o4-mini'), 'openai');
    assert.equal(inferProvider('gemini-2.5-pro'), 'gemini');
    assert.equal(inferProvider('llama-3.1-8b-instruct'), undefined);
  });

  it('reads the Gemini key from GEMINI_API_KEY or GOOGLE_API_KEY (which wins, as in Google\'s SDK) and GEMINI_BASE_URL', () => {
    assert.deepEqual(settingsFromEnv({ GEMINI_API_KEY: 'g1', GEMINI_BASE_URL: 'http://127.0.0.1:9' }).gemini, { apiKey: 'g1', baseUrl: 'http://127.0.0.1:9' });
    assert.equal(settingsFromEnv({ GOOGLE_API_KEY: 'g2' }).gemini.apiKey, 'g2');
    assert.equal(settingsFromEnv({ GEMINI_API_KEY: 'g1', GOOGLE_API_KEY: 'g2' }).gemini.apiKey, 'g2');
    assert.equal(settingsFromEnv({ GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:7' }).gemini.baseUrl, 'http://127.0.0.1:7', "the SDK's own variable, when ours is unset");
  });

  it('prices known models (dated snapshots as their family) and never guesses the rest', () => {
    assert.equal(costUsd('gpt-4o-2024-08-06', { inputTokens: 1_000_000, outputTokens: 0 }), 2.5);
    assert.equal(costUsd('claude-haiku-4-5-20251001', { inputTokens: 0, outputTokens: 1_000_000 }), 5);
    assert.equal(costUsd('gpt-4o', { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 1_000_000 }), 1.25);
    // 1M prompt tokens of which 600k cache reads and 200k cache writes (Anthropic: writes bill at 1.25x).
    assert.equal(costUsd('claude-haiku-4-5', { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 600_000, cacheWriteTokens: 200_000 }), 0.2 * 1 + 0.6 * 0.1 + 0.2 * 1.25);
    // Gemini Pro bills the whole call at its long-prompt rates once the prompt exceeds 200k tokens.
    assert.equal(costUsd('gemini-2.5-pro', { inputTokens: 200_000, outputTokens: 100_000 }), 0.2 * 1.25 + 0.1 * 10);
    assert.equal(costUsd('gemini-2.5-pro', { inputTokens: 200_001, outputTokens: 100_000 }), 0.200001 * 2.5 + 0.1 * 15);
    assert.equal(costUsd('gemini-2.5-flash', { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 1_000_000 }), 0.03);
    assert.equal(costUsd('gemini-2.0-flash-001', { inputTokens: 1_000_000, outputTokens: 0 }), 0.1, "Gemini's modelVersion of a stable model");
    assert.equal(costUsd('qwen2.5-coder', { inputTokens: 10, outputTokens: 10 }), 'unknown');
  });
});

describe('preflight', () => {
  const backend = new LlmBackend({ settings: { openai: { apiKey: 'sk', api: 'chat' }, anthropic: {}, gemini: {} } });
  const node = (id: string) => fakeNode(id);

  it('names the node, the provider and the missing credential for every node the run cannot serve', () => {
    const problems = backend.preflight([
      { node: node('plan'), model: { model: 'gpt-5-mini' } },
      { node: node('review'), model: { model: 'claude-opus-4-6' } },
      { node: node('local'), model: { provider: 'anthropic', model: 'my-proxy-model' } },
      { node: node('bare'), model: {} },
      { node: node('mystery'), model: { model: 'llama3' } },
      { node: node('gemini'), model: { model: 'gemini-2.5-pro' } },
      { node: node('mistral'), model: { provider: 'mistral', model: 'mistral-large' } },
      { node: node('effort'), model: { model: 'gpt-5', reasoningEffort: 'extreme' } },
    ]);
    assert.deepEqual(
      problems.map((p) => [p.nodeId, p.provider]),
      [
        ['review', 'anthropic'],
        ['local', 'anthropic'],
        ['bare', 'none'],
        ['mystery', 'unknown'],
        ['gemini', 'gemini'],
        ['mistral', 'mistral'],
        ['effort', 'openai'],
      ],
    );
    assert.equal(problems[0]!.message, "node 'review' needs provider 'anthropic' but ANTHROPIC_API_KEY is not set");
    assert.match(problems[2]!.message, /node 'bare' has no model: set llm_model .* model_stylesheet/);
    assert.match(problems[3]!.message, /cannot tell the provider of model 'llama3'; set llm_provider/);
    assert.equal(problems[4]!.message, "node 'gemini' needs provider 'gemini' but GEMINI_API_KEY (or GOOGLE_API_KEY) is not set");
    assert.match(problems[5]!.message, /unknown llm_provider 'mistral'; this build serves openai and anthropic and gemini/);
  });

  it('gives a node without a model the default model, unless the node asks for another provider', () => {
    const settings = { openai: { apiKey: 'sk', api: 'chat' as const }, anthropic: { apiKey: 'sk-ant' }, gemini: {}, defaultModel: { model: 'gpt-4o-mini' } };
    assert.deepEqual(resolveModel('bare', {}, settings), { ok: true, value: { provider: 'openai', model: 'gpt-4o-mini' } });
    assert.deepEqual(resolveModel('effort', { reasoningEffort: 'High' }, settings), { ok: true, value: { provider: 'openai', model: 'gpt-4o-mini', reasoningEffort: 'high' } });
    assert.deepEqual(resolveModel('own', { model: 'claude-haiku-4-5' }, settings), { ok: true, value: { provider: 'anthropic', model: 'claude-haiku-4-5' } }, "a node's own model wins");
    assert.deepEqual(resolveModel('same', { provider: 'openai' }, settings), { ok: true, value: { provider: 'openai', model: 'gpt-4o-mini' } });
    const other = resolveModel('other', { provider: 'anthropic' }, settings);
    assert.equal(other.ok, false);
    if (!other.ok) assert.match(other.message, /node 'other' asks for provider 'anthropic' but has no model, and the default model 'gpt-4o-mini' is for 'openai'/);
    const proxy = { ...settings, defaultModel: { model: 'house-model', provider: 'anthropic' as const } };
    assert.deepEqual(resolveModel('bare', {}, proxy), { ok: true, value: { provider: 'anthropic', model: 'house-model' } });
    const unknown = resolveModel('bare', {}, { ...settings, defaultModel: { model: 'house-model' } });
    assert.equal(unknown.ok, false);
    if (!unknown.ok) assert.match(unknown.message, /cannot tell the provider of model 'house-model'; set the default provider/);
  });

  it('run() refuses an unservable node with a non-transient ProviderError instead of substituting anything', async () => {
    const error = await backend
      .run(codergenRequest({ node: node('review'), workDir: '.', stageDir: '.', model: { model: 'claude-opus-4-6' } }))
      .catch((e: unknown) => e);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.transient, false);
    assert.match(error.message, /ANTHROPIC_API_KEY is not set/);
  });
});
