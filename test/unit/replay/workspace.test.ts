/**
 * The workspace copy (src/core/replay/workspace.ts) without an engine: what a scan sends (links
 * not followed, dependency folders and special files left out), the bounds, and the tar stream
 * itself, extracted by the host's GNU tar (long and non-ASCII names, modes, symlinks kept as links).
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scanWorkspace, tarStream, WorkspaceTooLargeError } from '../../../src/core/replay/workspace';

async function streamToBuffer(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('workspace copy (scan and tar)', () => {
  let root: string;
  let secret: string;
  const longName = `${'d'.repeat(60)}/${'n'.repeat(70)}.txt`;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-ws-'));
    secret = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-secret-'));
    fs.writeFileSync(path.join(secret, 'id_rsa'), 'PRIVATE');
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'app.py'), 'print("hi")\n');
    fs.writeFileSync(path.join(root, 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o4755 });
    fs.mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', 'dep', 'index.js'), 'x');
    fs.mkdirSync(path.join(root, path.dirname(longName)));
    fs.writeFileSync(path.join(root, longName), 'long');
    fs.writeFileSync(path.join(root, '版本說明.md'), '# 版本\n');
    fs.symlinkSync(secret, path.join(root, 'keys'));
    spawnSync('mkfifo', [path.join(root, 'pipe')]);
  });
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(secret, { recursive: true, force: true });
  });

  it('scans files, folders and links without following links; node_modules and FIFOs are left out', async () => {
    const s = await scanWorkspace(root);
    assert.deepEqual(s.entries.map((e) => `${e.type} ${e.rel}`), [
      `dir ${path.dirname(longName)}`,
      `file ${longName}`,
      'symlink keys',
      'file run.sh',
      'dir src',
      'file src/app.py',
      'file 版本說明.md',
    ]);
    assert.deepEqual(s.skippedDirs, ['node_modules']);
    assert.equal(s.skippedSpecial, fs.existsSync(path.join(root, 'pipe')) ? 1 : 0);
    assert.equal(s.bytes, 4 + 19 + 12 + Buffer.byteLength('# 版本\n'));
  });

  it('refuses a folder over the bounds before sending anything', async () => {
    await assert.rejects(scanWorkspace(root, { maxBytes: 10, maxEntries: 100 }), (e: Error) => e instanceof WorkspaceTooLargeError && /too large to copy/.test(e.message));
    await assert.rejects(scanWorkspace(root, { maxBytes: 1e9, maxEntries: 3 }), WorkspaceTooLargeError);
  });

  it('the tar stream extracts with GNU tar: contents, long and non-ASCII names, the link as a link, set-uid dropped', async () => {
    const tar = await streamToBuffer(tarStream(await scanWorkspace(root)));
    assert.equal(tar.length % 512, 0);
    const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-ws-x-'));
    try {
      execFileSync('tar', ['-x', '-C', dest, '--no-same-owner'], { input: tar });
      assert.equal(fs.readFileSync(path.join(dest, 'src', 'app.py'), 'utf8'), 'print("hi")\n');
      assert.equal(fs.readFileSync(path.join(dest, longName), 'utf8'), 'long');
      assert.equal(fs.readFileSync(path.join(dest, '版本說明.md'), 'utf8'), '# 版本\n');
      assert.equal(fs.readlinkSync(path.join(dest, 'keys')), secret);
      assert.equal(fs.statSync(path.join(dest, 'run.sh')).mode & 0o7777, 0o755);
      assert.equal(fs.existsSync(path.join(dest, 'node_modules')), false);
      const listing = execFileSync('tar', ['-tv'], { input: tar, encoding: 'utf8' });
      assert.match(listing, /root\/root/);
      assert.doesNotMatch(listing, /PRIVATE|id_rsa/);
    } finally {
      fs.rmSync(dest, { recursive: true, force: true });
    }
  });
});
