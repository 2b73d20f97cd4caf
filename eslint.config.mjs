// ESLint: the layers of the house and no import cycles (docs/architecture.md). Style is left to
// the TypeScript compiler's own checks; these rules guard the structure:
//   - src/core imports neither `vscode` nor src/shared, src/host, src/extension.ts, src/cli;
//   - src/shared (read by the webview) imports neither `vscode` nor src/host;
//   - the webview imports no src/core (types reach it through src/shared) and no `vscode`/host code;
//   - no module is part of an import cycle (type-only imports included: a type cycle is a cycle of
//     the design even when the bundler drops it);
//   - a file of src/core/formats declares at most one loader (`const x: FormatLoader = …`).
// `npm run lint` runs it; `npm test` runs lint first. test/unit/core/lint.test.ts proves the rules fire.
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/**
 * `local/one-loader-per-file`: a second top-level `FormatLoader`-typed constant in one file is an
 * error (each rollout format's loader lives in its own file, named after the format).
 */
const oneLoaderPerFile = {
  meta: { type: 'problem', schema: [], messages: { second: 'one loader per file: {{name}} is the second FormatLoader here (the first is {{first}}); move it to a file of its own' } },
  create(context) {
    let first = null;
    return {
      'Program > VariableDeclaration > VariableDeclarator, Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator'(node) {
        const t = node.id.typeAnnotation?.typeAnnotation;
        if (!t || t.type !== 'TSTypeReference' || t.typeName.type !== 'Identifier' || t.typeName.name !== 'FormatLoader') return;
        if (first === null) first = node.id.name;
        else context.report({ node: node.id, messageId: 'second', data: { name: node.id.name, first } });
      },
    };
  },
};

const vscodeBanned = { name: 'vscode', message: 'only src/host and src/extension.ts may import vscode' };

export default [
  { ignores: ['dist/**', 'node_modules/**', '.test-artifacts/**', 'bench/out/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    files: ['src/**/*.ts', 'webview/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json', '.node'] })],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './src/core', from: ['./src/shared', './src/host', './src/cli', './src/extension.ts', './webview'], message: 'src/core is the pure layer: it imports neither src/shared, src/host, src/cli nor the webview' },
            { target: './src/shared', from: ['./src/host', './src/cli', './src/extension.ts', './webview'], message: 'src/shared is read by the webview: it imports no host, CLI or webview code' },
            { target: './webview', from: ['./src/core', './src/host', './src/cli', './src/extension.ts'], message: 'the webview imports no src/core or host code: types reach it through src/shared' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/core/formats/**/*.ts'],
    plugins: { local: { rules: { 'one-loader-per-file': oneLoaderPerFile } } },
    rules: { 'local/one-loader-per-file': 'error' },
  },
  {
    files: ['src/core/**/*.ts', 'src/shared/**/*.ts', 'webview/**/*.ts', 'src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [vscodeBanned] }] },
  },
];
