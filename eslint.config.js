import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Imports point inward (STYLE.md): one restriction per folder. */
const forbid = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

const OUTSIDE_CORE = {
  group: [
    '**/warehouses/**',
    '**/store/**',
    '**/jobs/**',
    '**/services/**',
    '**/http/**',
    '**/cli/**',
    '**/config*',
  ],
  message: 'core is pure: it imports nothing outside core.',
};
const SQL_LIBRARY = {
  group: ['@polyglot-sql/*'],
  message: 'only src/core/sql/parse.ts and print.ts import the SQL library.',
};
const CORE_IO = {
  group: ['fastify', 'pg', 'mysql2', '@duckdb/*', '@electric-sql/*', 'node:fs', 'node:net', 'node:http'],
  message: 'core does no I/O.',
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.sqlgate/**',
      'test-results/**',
      'bin/**',
      'scratch/**',
      'eslint.config.js',
      'wasm/verify/index.ts', // AssemblyScript: its own types (i32, load<T>), compiled by asc
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'No default exports.' },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      ...forbid([OUTSIDE_CORE, SQL_LIBRARY, CORE_IO]),
      'no-restricted-globals': ['error', { name: 'process', message: 'core reads no environment.' }],
    },
  },
  {
    // The SQL layer's two files are the only importers of the SQL library.
    files: ['src/core/sql/parse.ts', 'src/core/sql/print.ts', 'src/core/sql/polyglot.ts'],
    rules: forbid([OUTSIDE_CORE, CORE_IO]),
  },
  {
    files: ['src/services/**/*.ts', 'src/warehouses/**/*.ts', 'src/store/**/*.ts', 'src/jobs/**/*.ts'],
    rules: forbid([
      {
        group: ['fastify', '@fastify/*', '**/http/**', '**/cli/**'],
        message: 'only http and cli know the edge.',
      },
    ]),
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'config.ts is the only reader of process.env.' },
      ],
    },
  },
);
