import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/generated/**', '**/dist/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    // Rules that need the types: a promise nobody awaits or handles (an
    // unhandled rejection ends a service), a promise where a callback's return
    // is ignored, a switch that forgets a member of its union.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { project: ['./tsconfig.check.json', './apps/dashboard/tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // The dashboard: React's rules of hooks (with the React Compiler's checks)
    // and accessibility (labels, roles, keyboard use) on every component.
    files: ['apps/dashboard/**/*.tsx'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  { files: ['apps/dashboard/**/*.tsx'], ...jsxA11y.flatConfigs.recommended },
  {
    files: ['apps/dashboard/**/*.tsx'],
    rules: {
      // Focus moves into each dialog's first field and the sign-in form's, as
      // the WAI-ARIA dialog pattern asks; the rule forbids autoFocus outright.
      'jsx-a11y/no-autofocus': 'off',
      // A checkbox's label text sits three elements deep (the event's name and summary).
      'jsx-a11y/label-has-associated-control': ['error', { depth: 3 }],
    },
  },
  {
    // A plain-pg statement is written with defineStatement (@cowrie/db
    // statement.ts): named inputs, typed rows, and a registry the schema test
    // prepares every statement from. A raw `.query(…)` would escape all three.
    files: ['packages/*/src/**/*.ts', 'services/*/src/**/*.ts'],
    ignores: ['packages/db/src/**', 'packages/testing/src/**', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='query']",
          message: 'Define the statement with defineStatement (@cowrie/db) and call its run(); see CONTRIBUTING.md, Hot SQL.',
        },
      ],
    },
  },
  {
    // Every test environment audits the ledger it leaves behind: tests take
    // createTestEnv from @cowrie/ledger/testing, which adds the ledger's audit to
    // the cleanup. Only the packages the ledger's own tests depend on (through
    // @cowrie/testing) cannot, and use @cowrie/testing's alone.
    files: ['**/*.ts'],
    ignores: ['packages/accounts/**', 'packages/db/**', 'packages/testing/**', 'packages/ledger/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@cowrie/testing',
              importNames: ['createTestEnv'],
              message: "Take createTestEnv from '@cowrie/ledger/testing': its cleanup audits the ledger (CONTRIBUTING.md, Tests).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', '**/testing/**/*.ts', 'tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
