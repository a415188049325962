import tseslint from 'typescript-eslint';

// Import directions (docs/architecture.md, "Storage": import directions): rooms import toward core/,
// and a sibling room only through its public surface, never its internals. Specifiers are
// relative, so a pattern names a room as a path segment after any number of `../`.
const up = String.raw`^(\.\./)+`;
const room = (name, surface = '') => ({
  regex: name === 'main' ? `${up}main\\.js$` : surface ? `${up}${name}/(?!(${surface})$)` : `${up}${name}/`,
  message: surface
    ? `Only ${name}/'s public surface (${surface.replaceAll('\\', '')}) may be imported from another room.`
    : `This room does not import ${name === 'main' ? 'main.ts' : `${name}/`}.`,
});
const COLLECTOR = room('collector', String.raw`index\.js|sinks\.js`);
const API = room('api', String.raw`app\.js|ui\.js|health-routes\.js`);
// The engine's provisioning (engine/) is public: runtime starts it, `agent-eval doctor` inspects it.
const WORKFLOWS = room('workflows', String.raw`client\.js|contract\.js|worker\.js|activities\.js|engine/[a-z-]+\.js`);
const SDK = room('sdk', String.raw`[a-z-]+\.js`);
const no = (...names) => names.map((name) => room(name));
// The analytical store's internals: outside core/store/, only its contracts (core/store/*.ts) are named.
const CLICKHOUSE = {
  regex: String.raw`(^|/)store/clickhouse/`,
  message: 'Name the store contract in core/store/ (analytics.ts, alert-metrics.ts, ...), not its ClickHouse implementation.',
};
// The metadata store's internals likewise: its contracts are core/store/*.ts (runs.ts, feedback.ts, metadata.ts, ...).
const POSTGRES = {
  regex: String.raw`(^|/)store/postgres/`,
  message: 'Name the store contract in core/store/ (runs.ts, queues.ts, metadata.ts, ...), not its PostgreSQL implementation; only runtime/ opens it.',
};
// A contract (core/store/*.ts) names no implementation: the implementations import it, not the other way.
const IMPLEMENTATIONS = {
  regex: String.raw`^\./(postgres|clickhouse)/`,
  message: 'A store contract names no implementation (core/store/postgres/, core/store/clickhouse/ implement it).',
};
const CLICKHOUSE_BUT_CODEC = {
  regex: String.raw`(^|/)store/clickhouse/(?!row-codec\.js$)`,
  message: 'The collector encodes rows through the named codec (core/store/clickhouse/row-codec.ts) only.',
};
const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

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
  { files: ['core/**/*.ts'], rules: restrict(...no('api', 'collector', 'workflows', 'runtime', 'cli', 'sdk', 'ui', 'main'), CLICKHOUSE, POSTGRES) },
  // Inside the store, and the backup of both stores as they are on disk: the implementations themselves.
  { files: ['core/store/**/*.ts', 'core/backup/**/*.ts'], rules: restrict(...no('api', 'collector', 'workflows', 'runtime', 'cli', 'sdk', 'ui', 'main')) },
  { files: ['core/store/*.ts'], rules: restrict(...no('api', 'collector', 'workflows', 'runtime', 'cli', 'sdk', 'ui', 'main'), IMPLEMENTATIONS) },
  { files: ['collector/**/*.ts'], rules: restrict(...no('api', 'workflows', 'runtime', 'cli', 'sdk', 'ui', 'main'), CLICKHOUSE_BUT_CODEC, POSTGRES) },
  { files: ['api/**/*.ts'], rules: restrict(...no('runtime', 'cli', 'sdk', 'ui', 'main'), COLLECTOR, WORKFLOWS, CLICKHOUSE, POSTGRES) },
  // The MCP server calls the API's own routes through the SDK's typed client (docs/mcp.md).
  { files: ['api/mcp/*.ts'], rules: restrict(...no('runtime', 'cli', 'ui', 'main'), COLLECTOR, WORKFLOWS, CLICKHOUSE, POSTGRES) },
  { files: ['workflows/**/*.ts'], rules: restrict(...no('api', 'runtime', 'cli', 'sdk', 'ui', 'main'), COLLECTOR, CLICKHOUSE, POSTGRES) },
  // The wiring: it opens the stores (their implementations) and starts every room through its surface.
  { files: ['runtime/**/*.ts'], rules: restrict(...no('cli', 'sdk', 'ui', 'main'), COLLECTOR, API, WORKFLOWS) },
  { files: ['cli/**/*.ts'], rules: restrict(...no('api', 'collector', 'runtime', 'ui', 'main'), WORKFLOWS, SDK, CLICKHOUSE, POSTGRES) },
  { files: ['sdk/**/*.ts'], rules: restrict(...no('api', 'collector', 'workflows', 'runtime', 'cli', 'ui', 'main'), CLICKHOUSE, POSTGRES) },
  {
    files: ['ui/src/**/*.ts'],
    rules: restrict(...no('api', 'collector', 'runtime', 'cli', 'main'), room('workflows', String.raw`contract\.js`), CLICKHOUSE, POSTGRES),
  },
  // Workflow code is deterministic and sandboxed (STYLE 1): only @temporalio/workflow and types of our own.
  {
    files: ['workflows/workflows.ts', 'workflows/case-trial.ts', 'workflows/case-trial-v1.ts', 'workflows/activity-options.ts', 'workflows/contract.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^node:|^(fs|path|os|crypto|http|https|net|child_process|worker_threads)$',
              message: 'Workflow code must not use Node built-ins; do I/O in activities.',
            },
            { regex: '^@temporalio/(?!workflow$)', message: 'Workflow code imports only @temporalio/workflow.' },
            { regex: '^(?!@temporalio/workflow$|\\.)', message: 'Workflow code imports only @temporalio/workflow and local types.' },
            ...no('api', 'runtime', 'cli', 'sdk', 'ui', 'main'),
            COLLECTOR,
            CLICKHOUSE,
            POSTGRES,
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports' }],
    },
  },
  // Plain JS files are in no tsconfig, so they get no type information: lint them without the type-checked rules.
  { files: ['**/*.{js,mjs,cjs}'], ...tseslint.configs.disableTypeChecked },
);
