/**
 * Replay against a remote Docker engine: a second dockerd (secondEngine.ts) on 127.0.0.1 with TLS
 * and client certificates, reached the way a team reaches a bigger box — dockerode through
 * `dockerHost` / DOCKER_HOST with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, and the CLI with
 * `--docker-host` or DOCKER_HOST. Exec, persistent-shell (a hijacked exec over TLS) and tmux
 * samples replay the same there; the containers live on that engine only; a client without a
 * certificate is refused; a CLI killed with -9 leaves no running container on it (the lifeline is
 * a TLS connection too). Needs `npm run build`, root and dockerd (skipped with a line otherwise,
 * failed in CI).
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { loadFile } from '../../../src/core/load';
import { connect, DockerUnavailableError, LABEL_OWNER, LABEL_SESSION } from '../../../src/core/replay/docker';
import { REPO_ROOT, sample, tmpFile } from '../../unit/samples';
import { cleanupDocker, replayRollout, setupDocker, TEST_IMAGE } from './helpers';
import { secondEngineMissing, startSecondEngine, type SecondEngine } from './secondEngine';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';
const OPENHANDS = 'openhands/harbor-rfc_openhands_trajectory.json';
const TB1 = 'tb1/lcbpro-1983a_with-agent-logs/results.json';

/** Runs `f` with TLS variables set in this process (as a user's shell would), restored after. */
async function withEnv<T>(vars: Record<string, string>, f: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await f();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

async function until(f: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await f()) return true;
  return f();
}

describe('replay on a remote engine (second dockerd, tcp + TLS)', function () {
  this.timeout(180_000);
  let main: Docker;
  let engine: SecondEngine | null = null;
  let remote: Docker;
  const tls = () => ({ DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: engine!.certDir });

  before(async function () {
    const missing = secondEngineMissing();
    if (missing) {
      if (process.env.CI === 'true') throw new Error(`remote-engine replay tests need a second dockerd: ${missing}`);
      console.warn(`remote-engine replay tests skipped: ${missing}`);
      this.skip();
    }
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    main = await setupDocker(this);
    engine = await startSecondEngine();
    // The offline test image, copied from the machine's engine.
    const saved = spawnSync('docker', ['save', TEST_IMAGE], { maxBuffer: 1 << 30, env: { ...process.env, DOCKER_HOST: '', DOCKER_TLS_VERIFY: '', DOCKER_CERT_PATH: '' } });
    if (saved.status !== 0) throw new Error(`docker save failed: ${saved.stderr}`);
    engine.docker(['load'], saved.stdout);
    remote = await withEnv(tls(), () => connect({ dockerHost: engine!.host }));
  });
  after(async () => {
    await engine?.stop();
    await cleanupDocker();
  });

  it('dockerHost tcp:// + DOCKER_TLS_VERIFY / DOCKER_CERT_PATH: the mini-swe-agent sample (exec mode) is the same; its container is on that engine only, NetworkMode none', async () => {
    const r = (await loadFile(sample(MINI))).rollouts[0];
    const out = await replayRollout(remote, r, { keep: true });
    try {
      assert.deepEqual(out.rows, [[3, 'command', 'same', 'same'], [4, 'command', 'same', 'same']]);
      const id = out.session.containerId!;
      const info = await remote.getContainer(id).inspect();
      assert.equal(info.HostConfig.NetworkMode, 'none');
      assert.equal(info.State.Running, true);
      await assert.rejects(main.getContainer(id).inspect(), /no such container/i);
    } finally {
      await out.session.dispose();
    }
    assert.equal((await remote.listContainers({ all: true, filters: { label: [`${LABEL_SESSION}=${out.session.sessionId}`] } })).length, 0);
  });

  it('persistent shell (a hijacked exec over TLS) and tmux keystrokes replay the same on it (OpenHands, Terminal-Bench 1)', async () => {
    const oh = await replayRollout(remote, (await loadFile(sample(OPENHANDS))).rollouts[0]);
    assert.equal(oh.plan.mode, 'shell');
    assert.deepEqual(oh.rows.map((x) => x[2]), ['same']);
    assert.equal(oh.results[0].replayed!.cwd, '/app');
    const tb = await replayRollout(remote, (await loadFile(sample(TB1))).rollouts[0], { workdir: '/app' });
    assert.equal(tb.plan.mode, 'tmux');
    assert.deepEqual(tb.rows.map((x) => x[2]), ['same'], tb.results[0].summary);
  });

  it('a client without a certificate is refused: DockerUnavailableError naming the address', async () => {
    await withEnv({ DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: engine!.caOnlyDir }, () =>
      assert.rejects(connect({ dockerHost: engine!.host }), (e: Error) => e instanceof DockerUnavailableError && e.message.includes(engine!.host)),
    );
    // Plain http to a TLS port is refused too (not a hang).
    await assert.rejects(connect({ dockerHost: engine!.host }), DockerUnavailableError);
  });

  it('CLI: --docker-host with the TLS variables, and DOCKER_HOST alone, replay on it (exit 0)', async () => {
    const run = (args: string[], env: Record<string, string>) => spawnSync(process.execPath, [CLI, 'replay', ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
    const a = run([sample(MINI), '--image', TEST_IMAGE, '--docker-host', engine!.host], tls());
    assert.equal(a.status, 0, a.stderr + a.stdout);
    assert.match(a.stdout, /all 2 replayed step\(s\) match/);
    const b = run([sample(OPENHANDS), '--image', TEST_IMAGE], engine!.env);
    assert.equal(b.status, 0, b.stderr + b.stdout);
    assert.match(b.stdout, /\[shell mode\]/);
    // Without the certificates the CLI says which engine it could not reach (exit 1).
    const c = run([sample(MINI), '--image', TEST_IMAGE, '--docker-host', engine!.host], { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: engine!.caOnlyDir });
    assert.equal(c.status, 1, c.stdout);
    assert.match(c.stderr, new RegExp(`No Docker engine is reachable at ${engine!.host.replace(/[.]/g, '\\.')}`));
  });

  it('kill -9 of the CLI mid-step: no running container of it on the remote engine 15 s later', async () => {
    const file = tmpFile('sleepy-remote.traj.json', fs.readFileSync(sample(MINI), 'utf8').split('cat hello.txt').join('sleep 600'));
    const p = spawn(process.execPath, [CLI, 'replay', file, '--image', TEST_IMAGE, '--docker-host', engine!.host], { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...tls() } });
    let out = '';
    p.stdout!.on('data', (b) => (out += b));
    const exited = new Promise((r) => p.once('exit', r));
    const owned = async (running: boolean) => (await remote.listContainers({ all: !running })).filter((c) => c.Labels?.[LABEL_OWNER]?.endsWith(`:${p.pid}`));
    assert.ok(await until(() => /#3 same/.test(out), 60_000), out);
    assert.equal((await owned(true)).length, 1);
    p.kill('SIGKILL');
    await exited;
    assert.ok(await until(async () => (await owned(true)).length === 0, 15_000), 'a container still runs on the remote engine 15 s after its owner died');
    for (const c of await owned(false)) await remote.getContainer(c.Id).remove({ force: true });
  });
});
