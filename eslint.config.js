// ESLint flat config: typescript-eslint's recommended rules over src, test and bench (CONTRIBUTING.md).
// Formatting is Prettier's job (.prettierrc.json), so no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'tmp/', 'src/ui/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { console: 'readonly', process: 'readonly' },
    },
    rules: {
      // `_`-prefixed names are deliberately unused (callback signatures, destructuring to drop a field).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Tests assert on terminal colour codes, which are control characters by definition.
    files: ['test/**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
);
