/**
 * Replay image precedence (issue 21 item 1): the user's explicit trajectoryInspector.replay.image
 * wins over the image a real SWE-agent rollout names ("tiny"), and the reason says so; the engine's
 * images become pick items for "Use Another Image…".
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadFile } from '../../../src/core/load';
import { engineImageItems, replayImage } from '../../../src/host/replay/image';
import { sample } from '../samples';

describe('replay image choice (editor)', () => {
  const file = sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj');
  const load = async () => (await loadFile(file)).rollouts[0];

  it('the image setting beats the image the rollout names, and says why', async () => {
    const r = await load();
    assert.ok(r.environment.image, 'the sample names an image');
    const c = replayImage(r, { setting: 'python:3.12-slim' });
    assert.equal(c?.image, 'python:3.12-slim');
    assert.equal(c?.source, 'setting');
    assert.match(c!.why, /trajectoryInspector\.replay\.image/);
    assert.ok(c!.why.includes(`the rollout names ${r.environment.image}`), c!.why);
  });

  it('order: per-file choice, folder mapping, setting, the rollout', async () => {
    const r = await load();
    const dir = path.dirname(file);
    assert.equal(replayImage(r, { chosen: 'a:1', imageByFolder: { [dir]: 'b:1' }, setting: 'c:1' })?.source, 'option');
    assert.equal(replayImage(r, { imageByFolder: { [dir]: 'b:1' }, setting: 'c:1' })?.image, 'b:1');
    assert.equal(replayImage(r, { imageByFolder: { '/elsewhere': 'b:1' }, setting: 'c:1' })?.image, 'c:1');
    const own = replayImage(r, { setting: '' });
    assert.equal(own?.image, r.environment.image);
    assert.equal(own?.source, 'rollout');
    assert.equal(replayImage({ ...r, environment: { ...r.environment, image: null } }, {}), null);
  });

  it("lists the engine's tagged images newest first, without <none> and snapshot images", () => {
    const items = engineImageItems([
      { RepoTags: ['old:1'], Size: 5e6, Created: 1 },
      { RepoTags: ['<none>:<none>'], Created: 9 },
      { RepoTags: ['new:2', 'new:latest'], Size: 12e6, Created: 5 },
      { RepoTags: ['snap:1'], Created: 7, Labels: { 'trajectory-inspector.replay': '1' } },
    ]);
    assert.deepEqual(items.map((i) => i.label), ['new:2', 'new:latest', 'old:1']);
    assert.equal(items[0].description, '12 MB');
  });
});
