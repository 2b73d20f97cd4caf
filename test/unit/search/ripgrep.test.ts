import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findRipgrep, ripgrepCandidates, ripgrepOnPath } from '../../../src/host/search/ripgrep';
import { tmpDir } from '../samples';

describe('search: where ripgrep is', () => {
  it('finds VS Code\'s own rg under the app root (node_modules, then node_modules.asar.unpacked)', () => {
    const root = tmpDir();
    const bin = path.join(root, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.copyFileSync('/usr/bin/rg', path.join(bin, 'rg'));
    fs.chmodSync(path.join(bin, 'rg'), 0o755);
    assert.equal(findRipgrep(root), path.join(bin, 'rg'));
    assert.deepEqual(ripgrepCandidates('/app', 'linux').slice(0, 1), ['/app/node_modules/@vscode/ripgrep/bin/rg']);
    assert.ok(ripgrepCandidates('C:\\app', 'win32')[0].endsWith('rg.exe'));
  });

  it('falls back to rg on PATH; null when there is none', () => {
    assert.equal(ripgrepOnPath({ PATH: '/nonexistent:/usr/bin' }, 'linux'), '/usr/bin/rg');
    assert.equal(ripgrepOnPath({ PATH: tmpDir() }, 'linux'), null);
    // A non-executable file named rg is not taken.
    const d = tmpDir();
    fs.writeFileSync(path.join(d, 'rg'), 'not a program');
    fs.chmodSync(path.join(d, 'rg'), 0o644);
    assert.equal(ripgrepOnPath({ PATH: d }, 'linux'), null);
  });
});
