/**
 * The .vsix holds what the extension needs at run time and nothing else (.vscodeignore is an
 * allow-list): dist/ bundles without source maps, media/, package.json, README and LICENSE.
 * Reads the packaged file list with `vsce ls` (what `vsce package` puts in) and checks that every
 * file `package.json` and the webview HTML point at is there.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './harness';

const ALLOWED = [/^dist\/[^/]+\.(js|css)$/, /^dist\/scorers\/[^/]+\.js$/, /^media\/.+/, /^package\.json$/, /^README\.md$/, /^docs\/images\/[^/]+\.png$/, /^LICENSE$/];

describe('e2e: .vsix contents', function () {
  this.timeout(60_000);

  it('packages only dist/*.js, media/, package.json, README and LICENSE, and every file the manifest needs', () => {
    const vsce = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    const files = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: REPO_ROOT, encoding: 'utf8' })
      .split('\n').map((l) => l.trim()).filter(Boolean);
    const unexpected = files.filter((f) => !ALLOWED.some((re) => re.test(f)));
    assert.deepEqual(unexpected, [], `files that should not be in the .vsix (fix .vscodeignore): ${unexpected.join(', ')}`);

    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const needed = new Set<string>(['package.json', 'LICENSE', 'dist/webview.js', 'dist/scorers/builtin.js', 'dist/loadWorker.js']);
    const rel = (p: string) => path.posix.normalize(p.replace(/^\.\//, ''));
    needed.add(rel(pkg.main));
    for (const views of Object.values<any[]>(pkg.contributes?.views ?? {})) {
      for (const v of views) if (typeof v.icon === 'string' && !v.icon.startsWith('$(')) needed.add(rel(v.icon));
    }
    if (typeof pkg.icon === 'string') needed.add(rel(pkg.icon));
    // Images the README shows by relative path (packaged with --no-rewrite-relative-links).
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    for (const m of readme.matchAll(/!\[[^\]]*\]\((?!https?:)([^)\s]+)\)/g)) needed.add(rel(m[1]));
    const missing = [...needed].filter((f) => !files.includes(f));
    assert.deepEqual(missing, [], `files the extension needs but the .vsix lacks: ${missing.join(', ')} (packaged: ${files.join(', ')})`);
  });
});
