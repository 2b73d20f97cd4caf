/**
 * Replay glue that needs no engine: the protocol guards of the replay messages, and the replay
 * settings' defaults and scopes in package.json (limits must be machine-scoped: a workspace's
 * .vscode/settings.json cannot loosen them).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_LIMITS, hardenedCreateOptions } from '../../../src/core/replay/docker';
import { isHostMessage, isWebviewMessage } from '../../../src/shared/protocol';
import { DEFAULT_REPLAY_IMAGE, DEFAULT_REPLAY_LIMITS, DEFAULT_REPLAY_SNAPSHOTS } from '../../../src/shared/settings';
import { REPO_ROOT } from '../samples';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const props: Record<string, any> = Object.assign({}, ...pkg.contributes.configuration.map((c: any) => c.properties));

describe('replay settings and messages', () => {
  it('settings defaults equal package.json; container limits and the engine address are machine-scoped', () => {
    const p = (k: string) => props[`trajectoryInspector.replay.${k}`];
    for (const [k, v] of Object.entries(DEFAULT_REPLAY_LIMITS)) {
      assert.equal(p(k).default, v, k);
      assert.equal(p(k).scope, 'machine', k);
    }
    assert.deepEqual(DEFAULT_LIMITS, DEFAULT_REPLAY_LIMITS);
    assert.equal(p('image').default, DEFAULT_REPLAY_IMAGE);
    assert.equal(p('snapshots').default, DEFAULT_REPLAY_SNAPSHOTS);
    for (const k of ['dockerSocket', 'dockerHost', 'snapshots']) assert.equal(p(k).scope, 'machine', k);
    // Replay's own entries (the scorer adds its command and options to the same list).
    assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.filter((k: string) => k.startsWith('trajectoryInspector.replay.')), [
      'trajectoryInspector.replay.image',
      'trajectoryInspector.replay.imageByFolder',
      'trajectoryInspector.replay.normalizationRules',
    ]);
  });

  it('hardened create options: no network, caps dropped, no mounts, limits from ReplayLimits only', () => {
    const o = hardenedCreateOptions({ image: 'img', workdir: '/app', session: 's', limits: DEFAULT_LIMITS });
    const hc = o.HostConfig as any;
    assert.equal(hc.NetworkMode, 'none');
    assert.equal(o.NetworkDisabled, true);
    assert.deepEqual(hc.CapDrop, ['ALL']);
    assert.deepEqual(hc.Binds, []);
    assert.equal(hc.Privileged, false);
    assert.equal(hc.PidsLimit, DEFAULT_LIMITS.pids);
    assert.equal(hc.Memory, hc.MemorySwap);
    assert.deepEqual(hc.PortBindings, {});
  });

  it('guards accept well-formed replay messages and reject others', () => {
    assert.ok(isWebviewMessage({ type: 'replay', action: 'step', rolloutIndex: 0 }));
    assert.ok(isWebviewMessage({ type: 'replay', action: 'runTo', rolloutIndex: 0, stepIndex: 3 }));
    assert.ok(!isWebviewMessage({ type: 'replay', action: 'runTo', rolloutIndex: 0 }));
    assert.ok(!isWebviewMessage({ type: 'replay', action: 'rm -rf', rolloutIndex: 0 }));
    assert.ok(!isWebviewMessage({ type: 'replay', action: 'showDiff', rolloutIndex: -1, stepIndex: 1 }));
    const state = {
      type: 'replayState', rolloutIndex: 0, rolloutId: 'r', available: true, reason: null, phase: 'ready', image: 'img', mode: 'exec', next: 2,
      replayable: [2, 3], steps: [{ stepIndex: 2, status: 'differs', summary: 'exit code 0 → 1', stateMayDiffer: false, hasDiff: true }],
      firstDivergence: 2, message: null, canStepBack: true,
    };
    assert.ok(isHostMessage(state));
    assert.ok(!isHostMessage({ ...state, phase: 'exploded' }));
    assert.ok(!isHostMessage({ ...state, steps: [{ stepIndex: 2, status: 'maybe' }] }));
  });
});
