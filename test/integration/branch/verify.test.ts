/**
 * Verifying a branch (core/branch/verify.ts) against a real Docker engine (the replay tests'
 * offline image): the real mini-swe-agent sample branched at step 2 by a scripted fake model that
 * writes a file, then verifiers run in the branch's own container — one that checks the file (exit
 * 0: reward 1), one that fails (reward 0), Harbor's reward file (its number wins over the exit
 * code), a reward file that is not a number, a verifier past the step timeout (no reward, why) —
 * and the verified branch's ATIF loading back with the reward as its outcome.
 */
import * as assert from 'node:assert/strict';
import type Docker from 'dockerode';
import { runBranch } from '../../../src/core/branch/loop';
import { branchTrajectory } from '../../../src/core/branch/trajectory';
import { runVerifier } from '../../../src/core/branch/verify';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { buildPlan } from '../../../src/core/replay/plan';
import { ReplaySession } from '../../../src/core/replay/session';
import { bashReply, startFakeModel, type FakeModel } from '../../unit/branch/fakeModel';
import { sample, tmpFile } from '../../unit/samples';
import { cleanupDocker, setupDocker, TEST_IMAGE, testLimits, testSession } from '../replay/helpers';

const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';

describe('branch verify: a verifier in the branch\'s container gives its reward (real Docker engine)', function () {
  this.timeout(180_000);
  let docker: Docker;
  let parent: Rollout;
  let session: ReplaySession | null = null;
  let fake: FakeModel | null = null;

  before(async function () {
    docker = await setupDocker(this);
    parent = (await loadFile(sample(MINI))).rollouts[0];
  });
  after(async () => {
    await session?.dispose();
    await fake?.close();
    await cleanupDocker();
  });

  it('runs verifiers where the branch left the container; the reward file wins over the exit code; a timeout gives none', async () => {
    fake = await startFakeModel([{ text: bashReply('printf "Bonjour\\n" > /tmp/hello.txt') }, { text: bashReply('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT') }]);
    session = new ReplaySession(buildPlan(parent, { image: TEST_IMAGE }), docker, { limits: testLimits({ stepTimeoutSec: 5 }), session: testSession() });
    const r = await runBranch({ rollout: parent, from: 2, session, endpoint: { url: fake.url, model: 'fake-model', timeoutMs: 30_000 }, limits: { maxSteps: 5 } });
    assert.equal(r.stop.reason, 'submitted');

    const ok = await runVerifier(session, 'grep -q Bonjour /tmp/hello.txt && echo PASSED');
    assert.deepEqual([ok.reward, ok.rewardFrom, ok.exitCode, ok.output, ok.error], [1, 'exit-code', 0, 'PASSED\n', null]);
    const bad = await runVerifier(session, 'grep -q Hello /tmp/hello.txt');
    assert.deepEqual([bad.reward, bad.rewardFrom, bad.exitCode], [0, 'exit-code', 1]);
    const harbor = await runVerifier(session, 'echo 0.25 > /logs/verifier/reward.txt; exit 1');
    assert.deepEqual([harbor.reward, harbor.rewardFrom, harbor.exitCode], [0.25, 'reward-file', 1]);
    // The reward file of the run before does not count for the next one.
    const after = await runVerifier(session, 'true');
    assert.deepEqual([after.reward, after.rewardFrom], [1, 'exit-code']);
    const garbage = await runVerifier(session, 'echo passed > /logs/verifier/reward.txt');
    assert.equal(garbage.reward, null);
    assert.match(garbage.error!, /reward\.txt holds "passed", not a number/);
    const slow = await runVerifier(session, 'sleep 30');
    assert.deepEqual([slow.reward, slow.timedOut], [null, true]);
    assert.match(slow.error!, /timed out/);

    // Written on the branch, read back as its outcome.
    const doc = branchTrajectory(parent, { ...r, verify: harbor }, { parentFile: parent.source.path, from: 2, model: 'fake-model', endpoint: fake.url, image: TEST_IMAGE, startedAt: '2026-01-01T00:00:00.000Z', limits: { maxSteps: 5 }, sessionId: 'verify-test' }) as any;
    assert.equal(doc.extra.branch.verify.reward, 0.25);
    const b = (await loadFile(tmpFile('verified.trajectory.json', JSON.stringify(doc)))).rollouts[0];
    assert.equal(b.outcome.reward, 0.25);
    assert.match(b.outcome.source!, /extra\.branch\.verify \(echo 0\.25/);
    const unverified = (await loadFile(tmpFile('unverified.trajectory.json', JSON.stringify(branchTrajectory(parent, r, { parentFile: parent.source.path, from: 2, model: 'm', endpoint: 'e', image: 'i', startedAt: 'x', limits: { maxSteps: 5 }, sessionId: 'u' }))))).rollouts[0];
    assert.equal(unverified.outcome.reward, null);
  });
});
