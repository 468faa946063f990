// What vscode-lm-run.test.ts bundles with the fake `vscode`: the extension's run path and its LLM backends, in one bundle.
export { runLocally } from '../../../extension/local-run';
export { llmBackendFactory } from '../../../extension/secrets';
export { SECRET_LLM_BACKEND } from '../../../extension/debug-configuration';
export { llmBackend } from '../../../extension/secrets';
export { routeHover } from '../../../extension/lm/route-hover';
export { askedModelConsent } from '../../../extension/lm/model-consent';
