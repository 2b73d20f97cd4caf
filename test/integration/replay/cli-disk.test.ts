/**
 * As a user would, through the CLI (dist/cli.js) against a real Docker engine: a step that writes
 * 8 GB is stopped before it fills the disk — here with `--disk 256` to keep it quick — and reported
 * "wrote more than 256 MiB" (not a timeout), and the CLI leaves the disk's free space as it found
 * it (its container is removed). The rollout is the mini-swe-agent sample with its command
 * replaced. Needs `npm run build`.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, sample, tmpFile } from '../../unit/samples';
import { cleanupDocker, setupDocker, TEST_IMAGE } from './helpers';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';

function freeBytes(dir: string): number {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
}

describe('CLI replay: an 8 GB write is stopped (dist/cli.js, real Docker engine)', function () {
  this.timeout(180_000);
  before(async function () {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    await setupDocker(this);
  });
  after(async () => {
    await cleanupDocker();
  });

  it('--disk 256: "wrote more than 256 MiB", exit 2, not a timeout, the disk keeps its space', async () => {
    const text = fs.readFileSync(sample(MINI), 'utf8');
    assert.ok(text.includes('cat hello.txt'));
    const file = tmpFile('big-write.traj.json', text.split('cat hello.txt').join('dd if=/dev/zero of=/tmp/big bs=1M count=8192; echo wrote'));
    const root = (spawnSync('docker', ['info', '--format', '{{.DockerRootDir}}'], { encoding: 'utf8' }).stdout || '/var/lib/docker').trim();
    const before = freeBytes(root);
    const r = spawnSync(process.execPath, [CLI, 'replay', file, '--image', TEST_IMAGE, '--disk', '256', '--step-timeout', '120', '--json'], { encoding: 'utf8', timeout: 170_000 });
    assert.equal(r.status, 2, r.stderr);
    const doc = JSON.parse(r.stdout);
    const big = doc.steps.find((s: { step: number }) => s.step === 4);
    assert.equal(big.status, 'differs');
    assert.match(big.summary, /wrote more than 256 MiB into the container's filesystem/);
    assert.equal(big.diffKind, 'error');
    // The container and what it wrote are gone (free space on the engine's data root; other writers may move it a little).
    assert.ok(before - freeBytes(root) < 2 * 2 ** 30, `free space fell by ${((before - freeBytes(root)) / 2 ** 30).toFixed(1)} GiB`);
  });
});
