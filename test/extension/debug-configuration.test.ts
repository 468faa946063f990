// launch.json completion for the `attractor` debugger: F5 without launch.json, the dynamic entries, trust.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { demoScriptFor, dynamicConfigurations, initialConfigurations, resolveAttachConfiguration, resolveDebugConfiguration, SECRET_LLM_BACKEND, type ResolveContext } from '../../extension/debug-configuration';
import { defaultSettings } from '../../extension/settings';

const program = path.resolve('/ws/pipelines/review.dot');
const context = (overrides: Partial<ResolveContext> = {}): ResolveContext => ({
  activeProgram: program,
  workspaceFolder: '/ws',
  settings: defaultSettings,
  trusted: true,
  fileExists: (file) => file === demoScriptFor(program),
  now: new Date('2026-11-29T12:00:00.000Z'),
  ...overrides,
});

test('F5 without launch.json debugs the active pipeline with its demo script, in a run directory under the workspace', () => {
  const resolution = resolveDebugConfiguration({}, context());
  assert.ok(resolution.ok);
  assert.deepEqual(resolution.configuration, {
    type: 'attractor',
    request: 'launch',
    name: 'Debug pipeline review.dot',
    program,
    logsRoot: path.resolve('/ws/.attractor-runs/review-2026-11-29T12-00-00-000Z'),
    maxParallel: 4,
    sandbox: 'auto',
    backend: 'scripted',
    scripted: path.resolve('/ws/pipelines/review.scripted.json'),
  });
});

test('launch.json values win; "llm" is served with SecretStorage keys; a resume keeps its own directory', () => {
  const explicit = resolveDebugConfiguration({ type: 'attractor', request: 'launch', name: 'x', program: '/other.dot', logsRoot: '/runs/a', backend: 'scripted', scripted: 's.json' }, context());
  assert.ok(explicit.ok);
  assert.equal(explicit.configuration.program, '/other.dot');
  assert.equal(explicit.configuration.logsRoot, '/runs/a');
  assert.equal(explicit.configuration.scripted, 's.json');

  const llm = resolveDebugConfiguration({ backend: 'llm' }, context());
  assert.ok(llm.ok);
  assert.equal(llm.configuration.backend, SECRET_LLM_BACKEND);

  const bySetting = resolveDebugConfiguration({}, context({ settings: { ...defaultSettings, backend: 'llm' }, fileExists: () => false }));
  assert.ok(bySetting.ok);
  assert.equal(bySetting.configuration.backend, SECRET_LLM_BACKEND);

  const resumed = resolveDebugConfiguration({ resume: '/ws/.attractor-runs/old' }, context());
  assert.ok(resumed.ok);
  assert.equal(resumed.configuration.resume, '/ws/.attractor-runs/old');
  assert.equal(resumed.configuration.logsRoot, undefined);
});

test('the run directory setting is relative to the workspace folder unless absolute', () => {
  const relative = resolveDebugConfiguration({}, context({ settings: { ...defaultSettings, runDirectory: 'out/runs' } }));
  assert.ok(relative.ok);
  assert.equal(path.dirname(relative.configuration.logsRoot!), path.resolve('/ws/out/runs'));
  const outside = resolveDebugConfiguration({}, context({ workspaceFolder: undefined }));
  assert.ok(outside.ok);
  assert.equal(path.dirname(outside.configuration.logsRoot!), path.resolve('/ws/pipelines/.attractor-runs'));
});

test('maxParallel comes from launch.json, else from the attractor.maxParallel setting; a bad one is refused', () => {
  const bySetting = resolveDebugConfiguration({}, context({ settings: { ...defaultSettings, maxParallel: 2 } }));
  assert.ok(bySetting.ok);
  assert.equal(bySetting.configuration.maxParallel, 2);
  const explicit = resolveDebugConfiguration({ maxParallel: 7 }, context({ settings: { ...defaultSettings, maxParallel: 2 } }));
  assert.ok(explicit.ok);
  assert.equal(explicit.configuration.maxParallel, 7);
  const bad = resolveDebugConfiguration({ maxParallel: 1.5 }, context());
  assert.ok(!bad.ok);
  assert.match(bad.message, /"maxParallel" must be an integer of at least 1 \(got 1\.5\)/);
});

test('sandbox comes from launch.json, else from the attractor.sandbox setting; a bad one is refused', () => {
  const bySetting = resolveDebugConfiguration({}, context({ settings: { ...defaultSettings, sandbox: 'workspace' } }));
  assert.ok(bySetting.ok);
  assert.equal(bySetting.configuration.sandbox, 'workspace');
  const explicit = resolveDebugConfiguration({ sandbox: 'off' }, context({ settings: { ...defaultSettings, sandbox: 'workspace' } }));
  assert.ok(explicit.ok);
  assert.equal(explicit.configuration.sandbox, 'off');
  const bad = resolveDebugConfiguration({ sandbox: 'strict' as 'off' }, context());
  assert.ok(!bad.ok);
  assert.match(bad.message, /"sandbox" must be one of auto, off, workspace, workspace-network \(got "strict"\)/);
});

test('refusals say why: untrusted workspace, no pipeline', () => {
  const untrusted = resolveDebugConfiguration({}, context({ trusted: false }));
  assert.ok(!untrusted.ok);
  assert.match(untrusted.message, /trusted workspace/);
  const none = resolveDebugConfiguration({}, context({ activeProgram: undefined }));
  assert.ok(!none.ok);
  assert.match(none.message, /Open a \.dot pipeline/);
});

test('a pipeline without a demo script runs on the LLM backend (VS Code\'s models unless a key is stored), nothing to configure', () => {
  const noScript = resolveDebugConfiguration({}, context({ fileExists: () => false }));
  assert.ok(noScript.ok);
  assert.equal(noScript.configuration.backend, SECRET_LLM_BACKEND);
});

test('initial and dynamic configurations', () => {
  assert.deepEqual(initialConfigurations().map((c) => [c.type, c.request, c.program]), [['attractor', 'launch', '${file}']]);
  assert.deepEqual(
    dynamicConfigurations(program).map((c) => [c.name, c.noDebug ?? false]),
    [
      ['Run pipeline review.dot', true],
      ['Debug pipeline review.dot', false],
    ],
  );
});

test('an attach configuration defaults to the connected server with its stored token; another server gets no token of ours', () => {
  const connected = { url: 'http://10.0.0.5:8474', token: 'stored-secret' };
  const bare = resolveAttachConfiguration({ type: 'attractor', request: 'attach' }, connected);
  assert.ok(bare.ok);
  assert.deepEqual(bare.configuration, { type: 'attractor', request: 'attach', name: 'Attach to the newest run on http://10.0.0.5:8474', url: connected.url, token: 'stored-secret' });

  const named = resolveAttachConfiguration({ type: 'attractor', request: 'attach', url: connected.url, runId: 'r1' }, connected);
  assert.ok(named.ok);
  assert.equal(named.configuration.token, 'stored-secret');
  assert.equal(named.configuration.name, 'Attach to run r1 on http://10.0.0.5:8474');

  const elsewhere = resolveAttachConfiguration({ type: 'attractor', request: 'attach', url: 'http://127.0.0.1:9000' }, connected);
  assert.ok(elsewhere.ok);
  assert.equal(elsewhere.configuration.token, undefined, 'the connected server\'s token is never sent to another server');

  const explicit = resolveAttachConfiguration({ type: 'attractor', request: 'attach', url: 'http://127.0.0.1:9000', token: 'given' }, connected);
  assert.ok(explicit.ok);
  assert.equal(explicit.configuration.token, 'given');

  const nowhere = resolveAttachConfiguration({ type: 'attractor', request: 'attach' }, undefined);
  assert.ok(!nowhere.ok);
  assert.match(nowhere.message, /set "url" in launch.json, or connect first/);
});
