/**
 * The replay CLI (dist/cli.js) under faults, against a real Docker engine (issue 14): Ctrl-C is
 * "interrupted at step N" (text and --json, exit 130), never a divergence; kill -9 of the CLI
 * mid-step leaves no running container 15 s later (the container ends itself when its owner's
 * connection closes), also when it dies while the container is starting. Needs `npm run build`.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { REPO_ROOT, sample, tmpFile } from '../../unit/samples';
import { LABEL_OWNER } from '../../../src/core/replay/docker';
import { cleanupDocker, setupDocker, TEST_IMAGE } from './helpers';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';

/** The mini-swe-agent sample with its step #4 command made to sleep (generated from the sample). */
function sleepy(): string {
  return tmpFile('sleepy.traj.json', fs.readFileSync(sample(MINI), 'utf8').split('cat hello.txt').join('sleep 600'));
}

function start(args: string[]): { p: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const p = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.stdout!.on('data', (b) => (out += b));
  p.stderr!.on('data', () => undefined);
  const exited = new Promise<number | null>((resolve) => p.on('exit', (code, sig) => resolve(code ?? (sig ? -1 : null))));
  return { p, out: () => out, exited };
}

async function until(f: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await f()) return true;
  return f();
}

describe('CLI replay under faults (dist/cli.js, real Docker engine)', function () {
  this.timeout(120_000);
  let docker: Docker;
  before(async function () {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    docker = await setupDocker(this);
  });
  after(async () => {
    await cleanupDocker();
  });
  const owned = async (pid: number, running = false) =>
    (await docker.listContainers({ all: !running })).filter((c) => c.Labels?.[LABEL_OWNER]?.endsWith(`:${pid}`));

  it('Ctrl-C (SIGINT) during a step: "interrupted at step 4", exit 130, no divergence, no container', async () => {
    const r = start(['replay', sleepy(), '--image', TEST_IMAGE]);
    assert.ok(await until(() => /#3 same/.test(r.out()), 60_000), r.out());
    r.p.kill('SIGINT');
    assert.equal(await r.exited, 130);
    assert.match(r.out(), /^interrupted at step 4 \(SIGINT\); 1 step\(s\) replayed before it$/m);
    assert.doesNotMatch(r.out(), /DIFFERS|divergence/);
    assert.equal((await owned(r.p.pid!)).length, 0);
  });

  it('Ctrl-C with --json: one document with the steps before and interrupted {step, signal}', async () => {
    const r = start(['replay', sleepy(), '--image', TEST_IMAGE, '--json']);
    assert.ok(await until(async () => (await owned(r.p.pid!, true)).length > 0 && (await new Promise((x) => setTimeout(x, 1500)), true), 60_000));
    r.p.kill('SIGINT');
    assert.equal(await r.exited, 130);
    const doc = JSON.parse(r.out());
    assert.deepEqual(doc.interrupted, { step: 4, signal: 'SIGINT' });
    assert.equal(doc.firstDivergence, null);
    assert.deepEqual(doc.steps.map((s: { step: number }) => s.step), [3]);
    assert.equal((await owned(r.p.pid!)).length, 0);
  });

  it('kill -9 of the CLI mid-step: no running container of it 15 s later (the container ends itself)', async () => {
    const r = start(['replay', sleepy(), '--image', TEST_IMAGE]);
    assert.ok(await until(() => /#3 same/.test(r.out()), 60_000), r.out());
    assert.equal((await owned(r.p.pid!, true)).length, 1);
    r.p.kill('SIGKILL');
    await r.exited;
    assert.ok(await until(async () => (await owned(r.p.pid!, true)).length === 0, 15_000), 'a container still runs 15 s after its owner died');
    for (const c of await owned(r.p.pid!)) await docker.getContainer(c.Id).remove({ force: true });
  });

  it('kill -9 or Ctrl-C while the container starts: nothing keeps running', async () => {
    const pids: number[] = [];
    for (const [i, sig] of (['SIGKILL', 'SIGINT', 'SIGKILL', 'SIGINT'] as const).entries()) {
      const r = start(['replay', sleepy(), '--image', TEST_IMAGE]);
      pids.push(r.p.pid!);
      // Right after the header (the engine is reached, the container is being made), later each try.
      assert.ok(await until(() => /\[exec mode\]/.test(r.out()), 60_000), r.out());
      await new Promise((x) => setTimeout(x, 40 * i));
      r.p.kill(sig);
      await r.exited;
    }
    for (const pid of pids) assert.ok(await until(async () => (await owned(pid, true)).length === 0, 15_000), `a container of ${pid} still runs`);
    for (const pid of pids) for (const c of await owned(pid)) await docker.getContainer(c.Id).remove({ force: true });
  });
});
