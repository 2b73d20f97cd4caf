import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { ScoreCache } from '../../../src/core/scoring/cache';
import { contentHash, toScoreRollout } from '../../../src/core/scoring/input';
import { checkRolloutScores, InitializeResult, ScoreParams, ScoreResult } from '../../../src/core/scoring/protocol';
import { loadFile } from '../../../src/core/load';
import { isHostMessage } from '../../../src/shared/protocol';
import type { ScoresMessage } from '../../../src/shared/scoresProtocol';
import {
  DEFAULT_SCORER_AUTO,
  DEFAULT_SCORER_COMMAND,
  DEFAULT_SCORER_IDLE_MINUTES,
  DEFAULT_SCORER_INLINE,
  DEFAULT_SCORER_REQUEST_TIMEOUT_S,
  DEFAULT_SCORER_START_TIMEOUT_S,
} from '../../../src/shared/settings';
import { sample, tmpDir } from '../samples';

const ATIF = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';

describe('scorer protocol schemas, input conversion, cache', () => {
  it('converts a real rollout to protocol shape that the score params schema accepts, with mapped action kinds', async () => {
    const f = await loadFile(sample(ATIF));
    const r = toScoreRollout(f.rollouts[0]);
    assert.ok(ScoreParams.safeParse({ rollouts: [r] }).success);
    assert.equal(r.steps.length, f.rollouts[0].steps.length);
    const kinds = new Set(r.steps.flatMap((s) => s.actions.map((a) => a.kind)));
    assert.ok(kinds.has('keys'), 'ATIF keystrokes map to "keys"');
    assert.ok(!kinds.has('keystrokes' as never));
    // Same content under another id hashes the same; one changed output does not.
    assert.equal(contentHash(r), contentHash({ ...r, id: 'other' }));
    const changed = structuredClone(r);
    const withObs = changed.steps.find((s) => s.observations.length)!;
    withObs.observations[0].output = (withObs.observations[0].output ?? '') + 'x';
    assert.notEqual(contentHash(r), contentHash(changed));
  });

  it('rejects malformed initialize and score results, and scores that do not match the request', () => {
    const good = { protocolVersion: 1, scorer: { name: 'x', version: '1' }, model: null, device: 'cpu', scoreRange: [0, 1], maxBatchRollouts: 1, maxBatchSteps: 1, capabilities: { progress: false, cancel: false, explanations: false, labels: false } };
    assert.ok(InitializeResult.safeParse(good).success);
    assert.ok(!InitializeResult.safeParse({ ...good, scoreRange: [1, 0] }).success);
    assert.ok(!InitializeResult.safeParse({ ...good, protocolVersion: 2 }).success);
    assert.ok(!InitializeResult.safeParse({ ...good, maxBatchSteps: 0 }).success);
    assert.ok(!ScoreResult.safeParse({ rollouts: [{ id: 'a', steps: [{ index: 0, value: 'high' }] }] }).success);
    assert.ok(!ScoreResult.safeParse({ rollouts: [{ id: 'a', steps: [{ index: 0, value: Infinity }] }] }).success);
    const input = [{ id: 'a', task: { id: null, instruction: null }, steps: [0, 1].map((index) => ({ index, role: 'agent' as const, message: null, reasoning: null, actions: [], observations: [], durationMs: null })) }];
    assert.deepEqual(checkRolloutScores(input, [{ id: 'a', steps: [{ index: 0, value: 0.1 }, { index: 1, value: null }] }], [0, 1]), []);
    assert.match(checkRolloutScores(input, [{ id: 'a', steps: [{ index: 0, value: 0.1 }, { index: 1, value: 2 }] }], [0, 1])[0], /value 2 is outside/);
    assert.match(checkRolloutScores(input, [{ id: 'a', steps: [{ index: 0, value: 0.1 }, { index: 0, value: 0.2 }] }], [0, 1]).join(), /answered twice/);
    assert.match(checkRolloutScores(input, [{ id: 'b', steps: [] }], [0, 1]).join(), /"b" was not asked for.*1 rollout\(s\) not answered/);
  });

  it('cache: a corrupt or foreign file is a miss; another scorer version is a miss', async () => {
    const dir = tmpDir('ti-cache-');
    const c = new ScoreCache(dir);
    const id = { name: 's', version: '1', model: null, scoreRange: [0, 1] as [number, number] };
    await c.put(id, 'h1', [{ index: 0, value: 0.5, label: null, explanation: null }]);
    assert.deepEqual(await new ScoreCache(dir).get(id, 'h1'), [{ index: 0, value: 0.5, label: null, explanation: null }]);
    assert.equal(await new ScoreCache(dir).get({ ...id, version: '2' }, 'h1'), null);
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.json'));
    assert.equal(files.length, 1);
    fs.writeFileSync(`${dir}/${files[0]}`, '{"v":1,"key":');
    assert.equal(await new ScoreCache(dir).get(id, 'h1'), null);
  });

  it('guards the scores message and keeps setting defaults equal to package.json', () => {
    const m: ScoresMessage = { type: 'scores', rolloutIndex: 0, rolloutId: 'r', state: 'done', scorer: { name: 'builtin', version: '1', model: null }, range: [0, 1], steps: [{ index: 2, value: 0.2, label: 'bad', explanation: 'exit code 1' }], cached: false, error: null };
    assert.ok(isHostMessage(m));
    assert.ok(!isHostMessage({ ...m, steps: [{ index: 2, value: Number.NaN, label: null, explanation: null }] }));
    assert.ok(!isHostMessage({ ...m, range: [1, 0] }));
    assert.ok(!isHostMessage({ ...m, state: 'great' }));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../../package.json');
    const props = Object.assign({}, ...pkg.contributes.configuration.map((c: { properties: object }) => c.properties));
    assert.deepEqual(props['trajectoryInspector.scorer.command'].default, DEFAULT_SCORER_COMMAND);
    assert.equal(props['trajectoryInspector.scorer.autoScore'].default, DEFAULT_SCORER_AUTO);
    assert.equal(props['trajectoryInspector.scorer.inline'].default, DEFAULT_SCORER_INLINE);
    assert.equal(props['trajectoryInspector.scorer.requestTimeoutSeconds'].default, DEFAULT_SCORER_REQUEST_TIMEOUT_S);
    assert.equal(props['trajectoryInspector.scorer.startTimeoutSeconds'].default, DEFAULT_SCORER_START_TIMEOUT_S);
    assert.equal(props['trajectoryInspector.scorer.idleShutdownMinutes'].default, DEFAULT_SCORER_IDLE_MINUTES);
    assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('trajectoryInspector.scorer.command'));
    const ids = pkg.contributes.commands.map((c: { command: string }) => c.command);
    for (const id of ['scoreRollout', 'scoreFolder', 'selectScorer', 'restartScorer', 'cancelScoring', 'clearScoreCache']) assert.ok(ids.includes(`trajectoryInspector.${id}`), id);
  });
});
