import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extensionLlmSettings } from '../../extension/llm-settings';

const noDefault = { defaultModel: '' };

test('keys come only from SecretStorage; base URLs and the API flavour from the environment', () => {
  const env = { OPENAI_API_KEY: 'env-key', ANTHROPIC_API_KEY: 'env-key', GEMINI_API_KEY: 'env-key', GOOGLE_API_KEY: 'env-key', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', GEMINI_BASE_URL: 'http://127.0.0.1:8', ATTRACTOR_OPENAI_API: 'responses' };
  assert.deepEqual(extensionLlmSettings(env, { anthropic: 'stored', gemini: 'stored-gemini' }, noDefault), {
    openai: { apiKey: undefined, baseUrl: 'http://127.0.0.1:9/v1', api: 'responses' },
    anthropic: { apiKey: 'stored', baseUrl: undefined },
    gemini: { apiKey: 'stored-gemini', baseUrl: 'http://127.0.0.1:8' },
  });
  assert.equal(extensionLlmSettings(env, {}, noDefault).gemini.apiKey, undefined, 'neither GEMINI_API_KEY nor GOOGLE_API_KEY leaks in');
});

test('the default model comes from the settings, else from the environment', () => {
  const env = { ATTRACTOR_DEFAULT_MODEL: 'gpt-4o-mini' };
  assert.deepEqual(extensionLlmSettings(env, {}, { defaultModel: 'house-model', defaultProvider: 'anthropic' }).defaultModel, { model: 'house-model', provider: 'anthropic' });
  assert.deepEqual(extensionLlmSettings(env, {}, { defaultModel: 'claude-haiku-4-5' }).defaultModel, { model: 'claude-haiku-4-5' });
  assert.deepEqual(extensionLlmSettings(env, {}, noDefault).defaultModel, { model: 'gpt-4o-mini' });
  assert.equal(extensionLlmSettings({}, {}, noDefault).defaultModel, undefined);
});

test('a malformed ATTRACTOR_* variable is an error with its name', () => {
  assert.throws(() => extensionLlmSettings({ ATTRACTOR_DEFAULT_MODEL: 'x', ATTRACTOR_DEFAULT_PROVIDER: 'mistral' }, {}, noDefault), /ATTRACTOR_DEFAULT_PROVIDER must be openai or anthropic or gemini/);
});
