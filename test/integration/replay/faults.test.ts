/**
 * Replay on the habits real terminal agents have and on faults (issue 14), against a real Docker
 * engine: multi-line keystrokes in tmux mode (heredoc, `for` loop, a 20 KB heredoc) complete as
 * soon as the shell is idle again; keys arrive literally (`find … -exec rm {} \;`); a flood in tmux
 * mode stops at the output cap; an unclosed quote is reported as waiting for more input.
 * The plans are real samples' plans whose commands are replaced (hostile inputs generated here).
 */
import * as assert from 'node:assert/strict';
import type Docker from 'dockerode';
import { loadFile } from '../../../src/core/load';
import { buildPlan, type ReplayPlan } from '../../../src/core/replay/plan';
import { ReplaySession } from '../../../src/core/replay/session';
import { sample } from '../../unit/samples';
import { cleanupDocker, setupDocker, sh, TEST_IMAGE, testLimits, testSession } from './helpers';

const ATIF = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';

/** A plan of a real sample whose replayable steps' commands are replaced; recorded output `recorded[i]` when given. */
function adapted(plan: ReplayPlan, commands: string[], recorded: Array<string | undefined> = []): ReplayPlan {
  const template = plan.steps.filter((s) => s.replayable)[0];
  return { ...plan, steps: commands.map((input, i) => ({ ...template, input, waitSec: null, recorded: { ...template.recorded, output: recorded[i] ?? template.recorded.output } })) };
}

describe('replay of real terminal habits and faults (issue 14, real Docker engine)', function () {
  this.timeout(180_000);
  let docker: Docker;
  const sessions: ReplaySession[] = [];
  let tmuxPlan: ReplayPlan;

  before(async function () {
    docker = await setupDocker(this);
    tmuxPlan = buildPlan((await loadFile(sample(ATIF))).rollouts[0], { image: TEST_IMAGE, workdir: '/app' });
    assert.equal(tmuxPlan.mode, 'tmux');
  });
  afterEach(async () => {
    for (const s of sessions.splice(0)) await s.dispose();
  });
  after(async () => {
    await cleanupDocker();
  });

  function session(plan: ReplayPlan, limits = testLimits()): ReplaySession {
    const s = new ReplaySession(plan, docker, { limits, session: testSession() });
    sessions.push(s);
    return s;
  }

  it('tmux mode: a heredoc, a multi-line for loop and a 20 KB heredoc complete when the shell is idle again (not at the timeout); every byte arrives', async () => {
    const big = Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
    const plan = adapted(tmuxPlan, [
      "cat > /tmp/f.txt <<'EOF'\nalpha $HOME\nbeta;\nEOF\n",
      'for i in 1 2 3; do\n  echo "n=$i"\ndone\n',
      `cat > /tmp/big.txt <<'EOF'\n${big}\nEOF\n`,
      'sleep 1; echo typed-ahead\necho second-line\n',
    ]);
    // A step timeout far above what the steps need: a step that waited for it would be reported as a timeout.
    const s = session(plan, testLimits({ stepTimeoutSec: 90 }));
    await s.start();
    const t0 = Date.now();
    const [heredoc, loop, bigDoc, ahead] = await s.runTo();
    assert.ok(Date.now() - t0 < 60_000, `took ${Date.now() - t0} ms`);
    for (const c of [heredoc, loop, bigDoc, ahead]) assert.notEqual(c.diffKind, 'timeout', c.summary);
    for (const c of [heredoc, loop, bigDoc, ahead]) assert.equal(c.replayed!.exitCode, null);
    assert.equal(await sh(docker, s.containerId!, 'cat /tmp/f.txt'), 'alpha $HOME\nbeta;\n');
    assert.match(loop.replayed!.raw, /^n=1\nn=2\nn=3\nroot@replay:\/app# $/m);
    assert.equal(await sh(docker, s.containerId!, 'cat /tmp/big.txt'), big + '\n');
    // Typed-ahead lines: the step ends after the last one ran, not at the first prompt.
    assert.match(ahead.replayed!.raw, /typed-ahead[\s\S]*\nsecond-line\nroot@replay:\/app# $/);
  });

  it('tmux mode: keys arrive literally — a trailing ; and \\; (find … -exec rm {} \\;) and tmux-like words', async () => {
    const plan = adapted(tmuxPlan, [
      'mkdir -p /tmp/d && touch /tmp/d/a.log /tmp/d/b.log /tmp/d/keep.txt\n',
      "find /tmp/d -name '*.log' -exec rm {} \\;\n",
      'echo done;\n',
      'echo Enter C-c ";" \'#{pane_id}\'\n',
    ]);
    const s = session(plan);
    await s.start();
    const [, find, semi, words] = await s.runTo();
    assert.equal(find.summary.includes('timeout'), false, find.summary);
    assert.equal((await sh(docker, s.containerId!, 'ls /tmp/d')).trim(), 'keep.txt');
    assert.match(find.replayed!.raw, /-exec rm \{\} \\;$/m);
    assert.match(semi.replayed!.raw, /^root@replay:\/app# echo done;\ndone$/m);
    assert.match(words.replayed!.raw, /^Enter C-c ; #\{pane_id\}$/m);
  });

  it('tmux mode: a flood stops at the output cap (not the timeout); the next step runs in a fresh shell', async () => {
    const plan = adapted(tmuxPlan, ['yes flood-line\n', 'echo after\n']);
    const s = session(plan, testLimits({ outputCapBytes: 64 * 1024, stepTimeoutSec: 90 }));
    await s.start();
    const t0 = Date.now();
    const [flood, after] = await s.runTo();
    assert.equal(flood.diffKind, 'output-cap', flood.summary);
    assert.ok(Date.now() - t0 < 60_000, `took ${Date.now() - t0} ms`);
    assert.ok(Buffer.byteLength(flood.replayed!.raw) <= 64 * 1024);
    assert.match(after.replayed!.raw, /^after$/m);
    assert.doesNotMatch(await sh(docker, s.containerId!, 'ps -o args'), /yes flood-line/);
  });

  it('tmux mode: an unclosed quote is "waiting for more input" and the next step starts in a fresh shell; a heredoc the recording also left open is not', async () => {
    const plan = adapted(
      tmuxPlan,
      ['echo "unclosed\n', 'echo fresh\n', "cat > /tmp/h.txt <<'EOF'\n", 'body\n', 'EOF\n'],
      [undefined, undefined, "root@replay:/app# cat > /tmp/h.txt <<'EOF'\n> ", undefined, undefined],
    );
    const s = session(plan, testLimits({ stepTimeoutSec: 60 }));
    await s.start();
    const [open, fresh, start] = await s.runTo(2);
    assert.equal(open.diffKind, 'error');
    assert.match(open.summary, /did not complete: the shell is waiting for more input/);
    assert.match(fresh.replayed!.raw, /^fresh$/m);
    assert.equal(start.diffKind === 'error', false, start.summary);
    await s.runTo();
    assert.equal(await sh(docker, s.containerId!, 'cat /tmp/h.txt'), 'body\n');
  });
});

describe('replay under process exhaustion (issue 14, real Docker engine, shell mode)', function () {
  this.timeout(180_000);
  let docker: Docker;
  const sessions: ReplaySession[] = [];
  let shellPlan: ReplayPlan;
  before(async function () {
    docker = await setupDocker(this);
    shellPlan = buildPlan((await loadFile(sample('openhands/harbor-rfc_openhands_trajectory.json'))).rollouts[0], { image: TEST_IMAGE });
    assert.equal(shellPlan.mode, 'shell');
  });
  afterEach(async () => {
    for (const s of sessions.splice(0)) await s.dispose();
  });
  after(async () => {
    await cleanupDocker();
  });

  for (const [name, cmd] of [
    ['a fork bomb', ':(){ :|:& };:; sleep 3'],
    ['a loop of background sleeps', 'for i in $(seq 200); do sleep 1000 & done; echo started'],
  ] as const) {
    it(`${name} is reported as exhausting the pids limit; the shell is restarted and the next steps run clean`, async () => {
      const plan = adapted(shellPlan, ['cd /tmp && export KEPT=yes', cmd, 'echo "next $KEPT $(pwd)"', 'echo again']);
      const s = new ReplaySession(plan, docker, { limits: testLimits({ pids: 48, stepTimeoutSec: 60 }), session: testSession() });
      sessions.push(s);
      await s.start();
      const [, bomb, next, again] = await s.runTo();
      assert.equal(bomb.diffKind, 'error', bomb.summary);
      assert.match(bomb.summary, /exhausted the process limit \(48 processes/);
      assert.equal(next.replayed!.text, 'next yes /tmp');
      assert.equal(next.replayed!.exitCode, 0);
      assert.equal(again.replayed!.text, 'again');
      const procs = (await sh(docker, s.containerId!, 'ps -o pid | wc -l')).trim();
      assert.ok(Number(procs) < 10, `processes left: ${procs}`);
    });
  }
});

describe('replay disk bound (issue 14, real Docker engine)', function () {
  this.timeout(180_000);
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

  it('a step that writes past the disk limit (64 MiB here) is stopped and reported "wrote more than 64 MiB"; the next step runs', async () => {
    const plan = adapted(buildPlan((await loadFile(sample('openhands/harbor-rfc_openhands_trajectory.json'))).rollouts[0], { image: TEST_IMAGE }), [
      'dd if=/dev/zero of=/tmp/fill bs=1M count=100000 2>/dev/null; sleep 60',
      'sleep 2.5; echo after',
    ]);
    const s = new ReplaySession(plan, docker, { limits: testLimits({ diskMiB: 64, stepTimeoutSec: 120 }), session: testSession() });
    sessions.push(s);
    await s.start();
    const t0 = Date.now();
    const [fill, after] = await s.runTo();
    assert.equal(fill.diffKind, 'error', fill.summary);
    assert.match(fill.summary, /^wrote more than 64 MiB into the container's filesystem/);
    assert.ok(Date.now() - t0 < 100_000, `took ${Date.now() - t0} ms`);
    // The next step (longer than a watch period) is not stopped for what the earlier one wrote.
    assert.equal(after.replayed!.text, 'after', after.summary);
    assert.doesNotMatch(await sh(docker, s.containerId!, 'ps -o args'), /\bdd\b/);
  });
});
