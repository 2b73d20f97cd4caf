// The lint rules that guard the layers, one loader per formats file, and forbid import cycles (eslint.config.mjs) fire: each case
// lints a small probe tree in a temporary folder shaped like the repository (src/core, src/shared,
// src/host, webview) with the repository's own config.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const REPO = path.resolve(__dirname, '..', '..', '..');

describe('lint: layers and cycles (eslint.config.mjs)', function () {
  this.timeout(120_000);
  let dir: string;
  let eslint: ESLint;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-lint-'));
    const files: Record<string, string> = {
      'src/core/model.ts': 'export interface Step { index: number }\n',
      'src/core/usesVscode.ts': "import * as vscode from 'vscode';\nexport const w = vscode.window;\n",
      'src/core/usesShared.ts': "import { X } from '../shared/protocol';\nexport const y = X;\n",
      'src/core/usesHost.ts': "import { H } from '../host/panel';\nexport const h = H;\n",
      'src/core/cycleA.ts': "import { b } from './cycleB';\nexport const a = () => b;\n",
      'src/core/cycleB.ts': "import { a } from './cycleA';\nexport const b = () => a;\n",
      'src/core/clean.ts': "import type { Step } from './model';\nexport const n = (s: Step) => s.index;\n",
      'src/shared/protocol.ts': "import type { Step } from '../core/model';\nexport const X = 1;\nexport type S = Step;\n",
      'src/shared/usesHost.ts': "import { H } from '../host/panel';\nexport const z = H;\n",
      'src/host/panel.ts': "import * as vscode from 'vscode';\nimport type { Step } from '../core/model';\nexport const H = vscode.window;\nexport type T = Step;\n",
      'src/core/formats/types.ts': 'export interface FormatLoader { id: string }\n',
      'src/core/formats/twoLoaders.ts': "import type { FormatLoader } from './types';\nexport const aLoader: FormatLoader = { id: 'a' };\nexport const bLoader: FormatLoader = { id: 'b' };\n",
      'src/core/formats/oneLoader.ts': "import type { FormatLoader } from './types';\nconst helper = { id: 'x' };\nexport const aLoader: FormatLoader = { id: helper.id };\n",
      'webview/usesCore.ts': "import type { Step } from '../src/core/model';\nexport type T = Step;\n",
      'webview/usesShared.ts': "import { X } from '../src/shared/protocol';\nexport const v = X;\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    eslint = new ESLint({ cwd: dir, overrideConfigFile: path.join(REPO, 'eslint.config.mjs') });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function rulesOf(rel: string): Promise<string[]> {
    // import-x/no-restricted-paths resolves its zones against the process's working directory.
    const cwd = process.cwd();
    process.chdir(dir);
    let r: ESLint.LintResult;
    try {
      [r] = await eslint.lintFiles([path.join(dir, rel)]);
    } finally {
      process.chdir(cwd);
    }
    assert.deepEqual(r.messages.filter((m) => m.fatal), [], `${rel} did not parse`);
    return r.messages.map((m) => m.ruleId ?? '');
  }

  it('a core file that imports vscode fails', async () => {
    assert.ok((await rulesOf('src/core/usesVscode.ts')).includes('no-restricted-imports'));
  });
  it('a core file that imports src/shared or src/host fails', async () => {
    assert.ok((await rulesOf('src/core/usesShared.ts')).includes('import-x/no-restricted-paths'));
    assert.ok((await rulesOf('src/core/usesHost.ts')).includes('import-x/no-restricted-paths'));
  });
  it('a webview file that imports src/core fails; through src/shared it passes', async () => {
    assert.ok((await rulesOf('webview/usesCore.ts')).includes('import-x/no-restricted-paths'));
    assert.deepEqual(await rulesOf('webview/usesShared.ts'), []);
  });
  it('src/shared may not import host code', async () => {
    assert.ok((await rulesOf('src/shared/usesHost.ts')).includes('import-x/no-restricted-paths'));
  });
  it('an import cycle fails', async () => {
    assert.ok((await rulesOf('src/core/cycleA.ts')).includes('import-x/no-cycle'));
  });
  it('a formats file with two loaders fails; one loader passes', async () => {
    assert.deepEqual(await rulesOf('src/core/formats/twoLoaders.ts'), ['local/one-loader-per-file']);
    assert.deepEqual(await rulesOf('src/core/formats/oneLoader.ts'), []);
  });
  it('host code may import vscode and core; clean core passes', async () => {
    assert.deepEqual(await rulesOf('src/host/panel.ts'), []);
    assert.deepEqual(await rulesOf('src/core/clean.ts'), []);
  });
});
