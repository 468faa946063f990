import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchChatModel, type ChatModelInfo } from '../../../extension/lm/model-mapping';

const model = (id: string, family = id, vendor = 'copilot'): ChatModelInfo => ({ id, family, vendor, name: id.toUpperCase() });
const offered = [model('gpt-4.1'), model('gpt-5-mini'), model('claude-haiku-4.5'), model('claude-sonnet-4.5'), model('gemini-2.5-pro'), model('qwen3', 'qwen', 'ollama')];
const pick = (selection: { model?: string; provider?: string }, choice = '', models = offered): string => {
  const match = matchChatModel('n', selection, models, choice);
  return match.ok ? match.model.id : `refused: ${match.message}`;
};

test('claude-* → the closest Claude model, gpt-*/o* → GPT, gemini-* → Gemini', () => {
  assert.equal(pick({ model: 'claude-sonnet-4-5' }), 'claude-sonnet-4.5');
  assert.equal(pick({ model: 'claude-haiku-4-5' }), 'claude-haiku-4.5');
  assert.equal(pick({ model: 'gpt-5' }), 'gpt-5-mini');
  assert.equal(pick({ model: 'o3' }), 'gpt-4.1');
  assert.equal(pick({ model: 'gemini-3-pro-preview' }), 'gemini-2.5-pro');
});

test('an exact id or family wins; a declared llm_provider picks the family of an unknown name', () => {
  assert.equal(pick({ model: 'qwen' }), 'qwen3');
  assert.equal(pick({ model: 'gpt-4.1' }), 'gpt-4.1');
  assert.equal(pick({ model: 'my-finetune', provider: 'anthropic' }), 'claude-haiku-4.5');
});

test('any other name takes the user\'s choice; without one it is refused, naming the models offered', () => {
  assert.equal(pick({ model: 'llama-3' }, 'qwen'), 'qwen3');
  assert.match(pick({ model: 'llama-3' }), /^refused: node 'n' asks for llama-3.*attractor\.llm\.vscodeModel.*QWEN3 \(ollama\/qwen\)/);
  assert.match(pick({ model: 'llama-3' }, 'mistral'), /^refused: .*vscodeModel is 'mistral'/);
});

test('a family VS Code does not offer is refused rather than served by another vendor\'s model', () => {
  assert.match(pick({ model: 'claude-opus-4-6' }, 'qwen', [model('gpt-4.1'), model('qwen3', 'qwen')]), /^refused: node 'n' asks for claude-opus-4-6, and VS Code offers no Claude model/);
});

test('a node naming no model takes the choice, else the first model; no models at all is refused', () => {
  assert.equal(pick({}), 'gpt-4.1');
  assert.equal(pick({}, 'claude-sonnet-4.5'), 'claude-sonnet-4.5');
  const byDefault = matchChatModel('n', {}, offered, '', { model: 'claude-sonnet-4-5' });
  assert.ok(byDefault.ok && byDefault.model.id === 'claude-sonnet-4.5', 'the run\'s default model maps like a node\'s own');
  assert.match(pick({ model: 'gpt-4.1' }, '', []), /VS Code offers no chat model/);
});
