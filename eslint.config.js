// A small rule set: the recommended checks of JavaScript, typescript-eslint and
// eslint-plugin-svelte, plus what keeps the layers honest. Formatting is Prettier's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'test-results/',
      'playwright-report/',
      'core/wasm/generated/',
      'core/wasm/as/',
      'bench/data/',
      'bench/results/',
      'test/fixtures/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node }, ecmaVersion: 'latest', sourceType: 'module' },
    rules: {
      // `_name` marks what a signature or destructuring must hold but the code does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // Names, tar headers and Go quoting handle control characters on purpose.
      'no-control-regex': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      // A `let` assigned once after closures that read it were made (worker channels, pools).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Playwright fixtures take `{}` when they need no other fixture.
    files: ['test/**'],
    rules: { 'no-empty-pattern': 'off' },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
    // `let { … } = $props()` is Svelte's idiom; svelte/prefer-const knows it.
    rules: { 'prefer-const': 'off', 'svelte/prefer-const': 'error' },
  },
);
