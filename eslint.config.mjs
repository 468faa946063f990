import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layering from './scripts/eslint-layering.mjs';

export default tseslint.config(
  // Generated: bundles, test bundles, run directories, VS Code downloads, profiles.
  { ignores: ['dist/', '**/node_modules/', '**/.test-bundles/', '**/.test-build/', '**/.attractor-runs/', '**/.attractor-demo/', '**/.vscode-test/', '**/.prof/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly' } },
    plugins: { layering },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'layering/imports': 'error',
    },
  },
  // No product source file over 500 lines: a longer one holds more than one job, and is split by job.
  {
    files: ['{engine,host,cli,server,restate,language-server,debug-adapter,webview,extension}/**/*.{ts,mjs}'],
    rules: { 'max-lines': ['error', { max: 500 }] },
  },
);
