import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.agent-eval/**', 'dist/**', 'bin/**', 'scratch/**', 'eslint.config.js'] },
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
  // Plain JS files are in no tsconfig, so they get no type information: lint them without the type-checked rules.
  { files: ['**/*.{js,mjs,cjs}'], ...tseslint.configs.disableTypeChecked },
);
