/**
 * Replay against a real Docker engine (dockerode): real samples re-run in an image built offline
 * (helpers.ts / image.sh), asserting statuses, exit codes, cwd and the divergence point; the
 * hardening (inspected on the live container), a flood, a sleep past the timeout, a fork bomb, a
 * network attempt, snapshots / step back, and a SIGKILLed owner whose leftovers the sweep removes.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { connect, DockerUnavailableError, ensureImage, ImageMissingError, LABEL_MANAGED, LABEL_OWNER, sweepOrphans } from '../../../src/core/replay/docker';
import { buildPlan, type ReplayPlan } from '../../../src/core/replay/plan';
import { ReplaySession } from '../../../src/core/replay/session';
import { REPO_ROOT, sample } from '../../unit/samples';
import { cleanupDocker, leftovers, setupDocker, sh, TEST_IMAGE, testLimits, testSession } from './helpers';

const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';
const OPENHANDS = 'openhands/harbor-rfc_openhands_trajectory.json';
const SWE = 'swe-agent/6e44b9__sweagenttestrepo-1c2844.traj';
const ATIF = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';

async function rollout(rel: string): Promise<Rollout> {
  return (await loadFile(sample(rel))).rollouts[0];
}

/** A plan of a real sample whose replayable steps' commands are replaced (recorded results kept). */
function adapted(plan: ReplayPlan, commands: string[]): ReplayPlan {
  const steps = plan.steps.filter((s) => s.replayable).slice(0, 1);
  const template = steps[0];
  return { ...plan, steps: commands.map((input) => ({ ...template, input, recorded: { ...template.recorded } })) };
}

describe('replay in a real Docker engine (dockerode)', function () {
  this.timeout(120_000);
  let docker: Docker;
  const sessions: ReplaySession[] = [];

  before(async function () {
    docker = await setupDocker(this);
  });
  afterEach(async () => {
    for (const s of sessions.splice(0)) await s.dispose();
  });
  after(async () => {
    await cleanupDocker();
  });

  function session(plan: ReplayPlan, limits = testLimits(), snapshots = false): ReplaySession {
    const s = new ReplaySession(plan, docker, { limits, snapshots, session: testSession() });
    sessions.push(s);
    return s;
  }

  it('mini-swe-agent sample (exec mode): every step the same, exit codes 0, in a hardened container', async () => {
    const r = await rollout(MINI);
    const plan = buildPlan(r, { image: TEST_IMAGE });
    assert.equal(plan.mode, 'exec');
    const s = session(plan);
    await s.start();
    const info = await docker.getContainer(s.containerId!).inspect();
    const hc = info.HostConfig as any;
    assert.equal(hc.NetworkMode, 'none');
    assert.deepEqual(hc.CapDrop, ['ALL']);
    assert.deepEqual(hc.SecurityOpt, ['no-new-privileges:true']);
    assert.equal(hc.Init, true);
    assert.equal(hc.Privileged, false);
    assert.equal(hc.PidsLimit, 128);
    assert.equal(hc.Memory, 256 * 1024 * 1024);
    assert.equal(hc.NanoCpus, 1e9);
    assert.deepEqual(info.Mounts, []);
    assert.equal(info.Config.Hostname, 'replay');
    assert.equal(info.Config.Labels[LABEL_MANAGED], '1');
    assert.equal(info.Config.Labels[LABEL_OWNER].endsWith(`:${process.pid}`), true);
    const results = await s.runTo();
    const recordedExit = r.steps.flatMap((st) => st.observations.map((o) => o.exitCode)).filter((c) => c !== null);
    assert.deepEqual(results.map((c) => c.status), ['same', 'same']);
    assert.deepEqual(results.map((c) => c.replayed!.exitCode), recordedExit);
    assert.deepEqual(results.map((c) => c.stepIndex), [2, 3]);
    assert.equal(results[1].replayed!.text, 'Hello, world!');
    assert.equal(s.firstDivergence, -1);
  });

  it('mini-swe-agent sample where the workdir is not writable: diverges at step #3 on the exit code; #4 state may differ', async () => {
    const plan = buildPlan(await rollout(MINI), { image: TEST_IMAGE, workdir: '/ro' });
    const s = session(plan);
    await s.start();
    const results = await s.runTo();
    assert.deepEqual(results.map((c) => [c.stepIndex, c.status, c.diffKind, c.replayed!.exitCode, c.stateMayDiffer]), [
      [2, 'differs', 'exit-code', 1, false],
      [3, 'differs', 'exit-code', 1, true],
    ]);
    assert.match(results[0].replayed!.text, /Permission denied/); // root without CAP_DAC_OVERRIDE
    assert.equal(s.firstDivergence, 0);
  });

  it('OpenHands sample (persistent shell): the same output, exit code 0 and cwd /app', async () => {
    const plan = buildPlan(await rollout(OPENHANDS), { image: TEST_IMAGE });
    assert.equal(plan.mode, 'shell');
    const s = session(plan);
    await s.start();
    const [c] = await s.runTo();
    assert.equal(c.status, 'same', c.summary);
    assert.equal(c.replayed!.exitCode, 0);
    assert.equal(c.replayed!.cwd, '/app');
    assert.equal(c.replayed!.text, 'Created /app/hello.txt\nSize: 14 bytes\nContent: Hello, world!');
  });

  it('SWE-agent sample: the tools are not in the image, first divergence at step #3, later steps state may differ', async () => {
    const plan = buildPlan(await rollout(SWE), { image: TEST_IMAGE });
    const s = session(plan);
    await s.start();
    const results = await s.runTo();
    assert.deepEqual(results.map((c) => [c.stepIndex, c.status]), [
      [2, 'differs'],
      [3, 'differs'],
      [4, 'not-replayable'],
      [5, 'differs'],
    ]);
    assert.equal(results[0].replayed!.exitCode, 127);
    assert.equal(results[0].replayed!.text, 'bash: find_file: command not found');
    assert.deepEqual(results.map((c) => c.stateMayDiffer), [false, true, true, true]);
    assert.equal(s.firstDivergence, 0);
  });

  it('Harbor Terminus ATIF sample (tmux keystrokes): the screen matches after normalisation', async () => {
    const plan = buildPlan(await rollout(ATIF), { image: TEST_IMAGE, workdir: '/app' });
    assert.equal(plan.mode, 'tmux');
    const s = session(plan);
    await s.start();
    const [c] = await s.runTo();
    assert.equal(c.status, 'same', `${c.summary}\n${c.recorded.text}\n---\n${c.replayed?.text}`);
    assert.match(c.replayed!.raw, /^root@replay:\/app# printf 'Hello, world!\\n' > hello\.txt$/m);
    assert.equal(await sh(docker, s.containerId!, 'cat /app/hello.txt'), 'Hello, world!\n');
  });

  it('Terminal-Bench 1 trial (tmux keystrokes from commands.txt, recording from the cast): same; the file it wrote is in the container', async () => {
    const r = (await loadFile(sample('tb1/lcbpro-1983a_with-agent-logs/results.json'))).rollouts[0];
    const plan = buildPlan(r, { image: TEST_IMAGE, workdir: '/app' });
    assert.equal(plan.mode, 'tmux');
    const s = session(plan);
    await s.start();
    const [c] = await s.runTo();
    assert.equal(c.status, 'same', `${c.summary}\n${c.recorded.text}\n---\n${c.replayed?.text}`);
    assert.ok(c.rulesFired.includes('tb-blocking-wait'));
    const b64 = /echo '([A-Za-z0-9+/=]+)' \| base64 -d > \/app\/main\.cpp/.exec(plan.steps[0].input)![1];
    assert.equal(await sh(docker, s.containerId!, 'cat /app/main.cpp'), Buffer.from(b64, 'base64').toString('utf8'));
  });

  it('a command that floods output is stopped at the output cap; the next step runs', async () => {
    const plan = adapted(buildPlan(await rollout(MINI), { image: TEST_IMAGE }), ['yes flood-line', 'echo after']);
    const s = session(plan, testLimits({ outputCapBytes: 64 * 1024 }));
    await s.start();
    const [flood, after] = await s.runTo();
    assert.equal(flood.diffKind, 'output-cap');
    assert.ok(flood.replayed!.raw.length <= 64 * 1024 && flood.replayed!.raw.length > 60 * 1024, `kept ${flood.replayed!.raw.length}`);
    assert.equal(after.replayed!.text, 'after');
    assert.equal(after.replayed!.exitCode, 0);
    assert.doesNotMatch(await sh(docker, s.containerId!, 'ps -o comm'), /\byes\b/);
  });

  it('a command that sleeps past the timeout is killed inside the container; the shell keeps cwd and exports', async () => {
    const plan = adapted(buildPlan(await rollout(OPENHANDS), { image: TEST_IMAGE }), ['cd /tmp && export KEPT=yes', 'sleep 600', 'echo "$KEPT $(pwd)"']);
    const s = session(plan, testLimits({ stepTimeoutSec: 2 }));
    await s.start();
    const [, slept, after] = await s.runTo();
    assert.equal(slept.diffKind, 'timeout');
    assert.equal(slept.replayed!.exitCode, null);
    assert.doesNotMatch(await sh(docker, s.containerId!, 'ps -o args'), /sleep 600/);
    assert.equal(after.replayed!.text, 'yes /tmp');
    assert.equal(after.replayed!.cwd, '/tmp');
  });

  it('tmux mode: keystrokes that sleep past the timeout are stopped; a fresh session starts in the saved cwd', async () => {
    const plan = adapted(buildPlan(await rollout(ATIF), { image: TEST_IMAGE, workdir: '/app' }), ['cd /tmp\n', 'sleep 600\n', 'pwd\n']);
    const s = session(plan, testLimits({ stepTimeoutSec: 2 }));
    await s.start();
    const [, slept, after] = await s.runTo();
    assert.equal(slept.diffKind, 'timeout');
    assert.doesNotMatch(await sh(docker, s.containerId!, 'ps -o args'), /sleep 600/);
    assert.match(after.replayed!.raw, /^root@replay:\/tmp# pwd\n\/tmp$/m);
  });

  it('a fork bomb stops at the pids limit and the timeout; the container recovers', async () => {
    const plan = adapted(buildPlan(await rollout(MINI), { image: TEST_IMAGE }), [':(){ :|:& };:; sleep 30', 'echo alive']);
    const s = session(plan, testLimits({ pids: 64, stepTimeoutSec: 4 }));
    await s.start();
    const [bomb, after] = await s.runTo();
    assert.equal(bomb.diffKind, 'timeout');
    assert.equal(((await docker.getContainer(s.containerId!).inspect()).HostConfig as any).PidsLimit, 64);
    assert.equal(after.replayed!.text, 'alive');
    const procs = (await sh(docker, s.containerId!, 'ps -o pid | wc -l')).trim();
    assert.ok(Number(procs) < 10, `processes left: ${procs}`);
  });

  it('an attempt to reach the network fails: no interface but loopback', async () => {
    const plan = adapted(buildPlan(await rollout(MINI), { image: TEST_IMAGE }), [
      'exec 3<>/dev/tcp/1.1.1.1/80; echo "tcp exit $?"; ping -c1 -W1 8.8.8.8 >/dev/null 2>&1; echo "ping exit $?"',
      "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '",
    ]);
    const s = session(plan);
    await s.start();
    const [net, ifaces] = await s.runTo();
    // stdout and stderr are separate pipes: bash's two error lines may arrive on either side of
    // "tcp exit 1", so the lines are checked apart from their order across the two streams.
    const lines = net.replayed!.text.split('\n');
    assert.ok(lines.some((l) => /Network is unreachable/.test(l)), net.replayed!.text);
    assert.deepEqual(lines.filter((l) => /exit \d+$/.test(l)), ['tcp exit 1', 'ping exit 1']);
    assert.equal(ifaces.replayed!.text, 'lo');
  });

  it('snapshots: Step back restores the filesystem before the step; dispose removes container and snapshots', async () => {
    const plan = buildPlan(await rollout(MINI), { image: TEST_IMAGE });
    const s = session(plan, testLimits(), true);
    await s.start();
    const sid = s.sessionId!;
    await s.step(); // echo > hello.txt
    await s.step(); // cat hello.txt
    assert.equal((await leftovers(docker, sid)).images, 1, 'one snapshot (before step #4; the image serves before #3)');
    await s.stepBack();
    assert.equal(s.next, 1);
    assert.equal(s.results[1], undefined);
    assert.equal(await sh(docker, s.containerId!, 'cat hello.txt'), 'Hello, world!\n');
    await s.stepBack();
    assert.equal(s.next, 0);
    assert.match(await sh(docker, s.containerId!, 'cat hello.txt 2>&1'), /No such file/);
    const again = await s.step();
    assert.equal(again!.status, 'same');
    await s.step();
    // Back to the state right after #3 (Run to here on a step already past).
    await s.rewindTo(1);
    assert.equal(s.next, 1);
    assert.equal(await sh(docker, s.containerId!, 'cat hello.txt'), 'Hello, world!\n');
    await assert.rejects(s.rewindTo(2), /only 1 ran/);
    await s.dispose();
    assert.deepEqual(await leftovers(docker, sid), { containers: 0, images: 0 });
  });

  it('a SIGKILLed owner (extension host) leaves a container and a snapshot; the next sweep removes both', async () => {
    const sid = testSession();
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(__dirname, 'owner-child.ts'), TEST_IMAGE, sample(MINI), sid], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const ready = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (b) => {
        out += b;
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`child exited ${code} before it was ready: ${out}`)));
    });
    assert.match(ready, /^ready /);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.deepEqual(await leftovers(docker, sid), { containers: 1, images: 1 });
    const swept = await sweepOrphans(docker);
    assert.ok(swept.containers >= 1 && swept.images >= 1, JSON.stringify(swept));
    assert.deepEqual(await leftovers(docker, sid), { containers: 0, images: 0 });
  });

  it('a live owner\'s containers survive the sweep (another window)', async () => {
    const s = session(buildPlan(await rollout(MINI), { image: TEST_IMAGE }));
    await s.start();
    await sweepOrphans(docker);
    assert.equal((await leftovers(docker, s.sessionId!)).containers, 1);
  });

  it('no engine: a clear message that says how to point at one; a missing image: a clear message', async () => {
    await assert.rejects(connect({ socketPath: '/nonexistent/docker.sock' }), (e: Error) => e instanceof DockerUnavailableError && /DOCKER_HOST/.test(e.message) && /dockerSocket/.test(e.message));
    await assert.rejects(ensureImage(docker, 'ti-replay-absent.invalid/none:0'), (e: Error) => e instanceof ImageMissingError && /ti-replay-absent/.test(e.message));
  });
});
