import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openLabelStore } from '../../../src/core/labels/journal';
import { loadFile } from '../../../src/core/load';
import type { Score } from '../../../src/core/model';
import { MAX_TEXT, compareHtml, compareMessage, groupMessage } from '../../../src/host/compare/compareView';
import { isCompareHostMessage, isCompareWebviewMessage } from '../../../src/shared/compareProtocol';
import { sample, tmpDir } from '../samples';

const SWE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';

describe('compare: the webview messages', () => {
  it('carries both sides\' labels (annotators and reference) and scores when given, and cuts long texts', async () => {
    const f = await loadFile(sample(SWE));
    const r = f.rollouts[0];
    const store = await openLabelStore(path.join(tmpDir(), 'j.labels.jsonl'), { annotator: 'ann', rollouts: f.rollouts });
    await store.apply([{ rolloutId: r.id, stepIndex: 4, value: -1 }]);
    const score: Score = { rolloutId: r.id, stepIndex: 4, value: 0.12, range: [0, 1], label: 'bad', explanation: null, scorer: { name: 'builtin', version: '1', model: null } };
    const msg = compareMessage({ file: f.path, rolloutIndex: 0, rollout: r, labels: store.current(), scores: [score] }, { file: f.path, rolloutIndex: 0, rollout: r });
    assert.ok(isCompareHostMessage(msg));
    const row = msg.rows[4];
    assert.deepEqual(row.left?.labels, [{ source: 'ann', value: -1, firstError: false }]);
    assert.deepEqual(row.right?.labels, []);
    assert.deepEqual(row.left?.score, { value: 0.12, range: [0, 1], label: 'bad', scorer: 'builtin' });
    assert.equal(row.right?.score, null);
    // `pip install` prints a long output: cut for display.
    const long = msg.rows.find((x) => x.left && r.steps[x.left.index].observations.some((o) => o.output.length > MAX_TEXT));
    assert.ok(long?.left?.cut);
    assert.ok(long!.left!.output.length <= MAX_TEXT + 1);
    assert.equal(msg.firstDivergence, null);
  });

  it('shows reference labels that came with the data, and counts bad steps in the group view', async () => {
    const f = await loadFile(sample(APB));
    const msg = compareMessage({ file: f.path, rolloutIndex: 0, rollout: f.rollouts[0] }, { file: f.path, rolloutIndex: 1, rollout: f.rollouts[1] });
    const refs = msg.rows.flatMap((r) => [...(r.left?.labels ?? []), ...(r.right?.labels ?? [])]).filter((l) => l.source === 'reference');
    const want = [0, 1].flatMap((i) => f.rollouts[i].steps.filter((s) => s.referenceLabel)).length;
    assert.equal(refs.length, want);
    const g = groupMessage('all', f.path, null, f.rollouts.map((rollout, index) => ({ file: f.path, rollout, index })));
    // Named by place in the group (issue 21 item 3): distinct even where task ids repeat.
    assert.deepEqual(
      [...g.members].sort((a, b) => a.member - b.member).map((m) => m.label),
      f.rollouts.map((r, k) => `#${k + 1} of ${f.rollouts.length} · line ${r.source.line}`),
    );
    for (const m of g.members.filter((x) => x.divergesAt !== null)) {
      assert.ok(m.firstAction, `member ${m.member} diverges at step ${m.divergesAt! + 1} and names its action`);
      assert.ok(m.firstAction!.length <= 80);
    }
    for (const m of g.members) assert.equal(m.badSteps, f.rollouts[m.rolloutIndex].steps.filter((s) => s.referenceLabel?.value === -1).length);
  });

  it('a group of trials from several files (a task of a job folder) names members by trial and finds the retry', async () => {
    const a = await loadFile(sample(SWE));
    const j = JSON.parse(fs.readFileSync(sample(SWE), 'utf8'));
    j.trajectory.splice(6, 0, structuredClone(j.trajectory[5]));
    const dir = path.join(tmpDir(), 'job', 'marshmallow__B2', 'agent');
    fs.mkdirSync(dir, { recursive: true });
    const bFile = path.join(dir, 'trajectory.json');
    fs.writeFileSync(bFile, JSON.stringify(j));
    const b = await loadFile(bFile);
    const g = groupMessage('marshmallow', '2 trials', null, [
      { file: bFile, index: 0, rollout: b.rollouts[0] },
      { file: a.path, index: 0, rollout: a.rollouts[0] },
    ]);
    // Same (unknown) reward: the shorter rollout is the best; the other's retry is where it parts.
    assert.deepEqual(g.members.map((m) => [m.member, m.best, m.label]), [
      [1, true, 'v0.7_default__marshmallow-code__marshmallow-1867'],
      [0, false, 'marshmallow__B2'],
    ]);
    assert.equal(g.members[1].divergesAt, 8);
    assert.equal(g.members[1].onlyHere, 1);
  });

  it('the page shell has the strict CSP and no data', () => {
    const h = compareHtml({ cspSource: 'vscode-webview://x', nonce: 'N0nce', scriptUri: 'vscode-webview://x/dist/compare.js', styleUri: 'vscode-webview://x/media/timeline.css' });
    assert.match(h, /default-src 'none'; script-src 'nonce-N0nce'; style-src vscode-webview:\/\/x 'nonce-N0nce'/);
    assert.match(h, /<ti-compare><\/ti-compare>/);
  });

  it('the guards accept what the webview may post and nothing else', () => {
    assert.ok(isCompareWebviewMessage({ type: 'openStep', side: 'left', stepIndex: 3 }));
    assert.ok(!isCompareWebviewMessage({ type: 'openStep', side: 'middle', stepIndex: 3 }));
    assert.ok(!isCompareWebviewMessage({ type: 'openStep', side: 'left', stepIndex: -1 }));
    assert.ok(isCompareWebviewMessage({ type: 'openMember', member: 0, stepIndex: null }));
    assert.ok(isCompareWebviewMessage({ type: 'compareMember', member: 2 }));
    assert.ok(!isCompareWebviewMessage({ type: 'openMember', rolloutIndex: 0, stepIndex: null }));
    assert.ok(!isCompareWebviewMessage({ type: 'run', command: 'rm -rf /' }));
  });
});
