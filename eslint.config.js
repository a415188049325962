import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.agent-eval/**', 'dist/**', '.dist-*/**', 'bin/**', 'scratch/**', 'eslint.config.js', 'ui/.svelte-kit/**', 'ui/build/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': ['error'],
    },
  },
  { files: ['test/**', 'bench/**', 'scripts/**', 'cli/**'], rules: { 'no-console': 'off' } },
  // Workflow code is deterministic and sandboxed (STYLE 1): only @temporalio/workflow and types of our own.
  {
    files: ['workflows/workflows.ts', 'workflows/contract.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^node:|^(fs|path|os|crypto|http|https|net|child_process|worker_threads)$', message: 'Workflow code must not use Node built-ins; do I/O in activities.' },
            { regex: '^@temporalio/(?!workflow$)', message: 'Workflow code imports only @temporalio/workflow.' },
            { regex: '^(?!@temporalio/workflow$|\\.)', message: 'Workflow code imports only @temporalio/workflow and local types.' },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports' }],
    },
  },
  // Plain JS files are in no tsconfig, so they get no type information: lint them without the type-checked rules.
  { files: ['**/*.{js,mjs,cjs}'], ...tseslint.configs.disableTypeChecked },
);
