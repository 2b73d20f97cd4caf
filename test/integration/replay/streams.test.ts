/**
 * stdout and stderr kept apart in the exec and shell modes, against a real Docker engine: a 4-byte
 * UTF-8 character whose bytes are split by a write to the other stream decodes whole (each stream
 * has its own decoder); the comparison interleaves the two streams as the recording shows them, so
 * a command that alternates stdout and stderr lines replays `same` every time although the engine
 * delivers the two in a varying order; a flood in shell mode stops at the output cap. Plans are
 * real samples' plans with their commands and recordings replaced.
 */
import * as assert from 'node:assert/strict';
import type Docker from 'dockerode';
import { loadFile } from '../../../src/core/load';
import { buildPlan, type ReplayPlan } from '../../../src/core/replay/plan';
import { ReplaySession } from '../../../src/core/replay/session';
import { sample } from '../../unit/samples';
import { cleanupDocker, setupDocker, TEST_IMAGE, testLimits, testSession } from './helpers';

const SAMPLES = { exec: 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json', shell: 'openhands/harbor-rfc_openhands_trajectory.json' } as const;

/** The sample's plan with its steps replaced by `steps` ([command, recorded output]), exit code 0 recorded. */
async function planOf(mode: keyof typeof SAMPLES, steps: Array<[string, string]>): Promise<ReplayPlan> {
  const plan = buildPlan((await loadFile(sample(SAMPLES[mode]))).rollouts[0], { image: TEST_IMAGE });
  assert.equal(plan.mode, mode);
  const t = plan.steps.find((s) => s.replayable)!;
  return { ...plan, steps: steps.map(([input, output]) => ({ ...t, input, recorded: { ...t.recorded, output, exitCode: 0, cwd: null } })) };
}

describe('replay: stdout and stderr apart (real Docker engine)', function () {
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

  async function run(plan: ReplayPlan, limits = testLimits()) {
    const s = new ReplaySession(plan, docker, { limits, session: testSession() });
    sessions.push(s);
    await s.start();
    return s.runTo();
  }

  for (const mode of ['exec', 'shell'] as const) {
    it(`${mode} mode: a 4-byte character split by a write to stderr decodes whole; each stream apart`, async () => {
      // 😀 is F0 9F 98 80: two bytes, a stderr line, the other two.
      const [c] = await run(await planOf(mode, [[`printf '\\360\\237'; printf 'warn\\n' >&2; printf '\\230\\200 done\\n'`, 'warn\n😀 done\n']]));
      assert.equal(c.status, 'same', `${c.summary}\n${JSON.stringify(c.replayed?.raw)}`);
      assert.doesNotMatch(c.replayed!.raw, /\uFFFD/);
      assert.match(c.replayed!.raw, /😀 done/);
    });

    it(`${mode} mode: alternating stdout / stderr lines compare the same in every run (the engine's order varies)`, async () => {
      const cmd = 'for i in 1 2 3 4 5; do echo "out $i"; echo "err $i" >&2; done';
      const recorded = [1, 2, 3, 4, 5].map((i) => `out ${i}\nerr ${i}\n`).join('');
      const results = await run(await planOf(mode, Array.from({ length: 8 }, () => [cmd, recorded] as [string, string])));
      assert.deepEqual(results.map((c) => c.status), new Array(8).fill('same'), results.map((c) => `${c.summary}: ${JSON.stringify(c.replayed?.raw)}`).join('\n'));
      // A real difference in one stream still shows.
      const [d] = await run(await planOf(mode, [[cmd, recorded.replace('err 3', 'err 33')]]));
      assert.equal(d.status, 'differs');
    });
  }

  it('shell mode: a flood stops at the output cap, every kept byte arrives, and the shell goes on', async () => {
    const cap = 10 * 1024 * 1024;
    const results = await run(await planOf('shell', [['yes', 'y\n'], ['echo after', 'after\n']]), testLimits({ outputCapBytes: cap, stepTimeoutSec: 60 }));
    assert.equal(results[0].diffKind, 'output-cap');
    assert.equal(Buffer.byteLength(results[0].replayed!.raw), cap);
    assert.equal(results[1].status, 'same', results[1].summary);
  });
});
