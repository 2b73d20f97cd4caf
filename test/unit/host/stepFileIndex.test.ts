/**
 * Steps ↔ workspace files, host side without vscode (src/host/stepFileIndex.ts): the path map of
 * `trajectoryInspector.files.pathMap` with `${workspaceFolder}`, which recorded paths count as
 * workspace files, and the per-rollout history the gutter and the diff use, over the SWE-agent
 * sample mapped into a temp workspace and the census Claude Code session as if its cwd were here.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadFile } from '../../../src/core/load';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { fileHistories, inWorkspace, pathMappings, rolloutLabel, StepFileIndex, stepFileChips } from '../../../src/host/stepFileIndex';
import { isHostMessage } from '../../../src/shared/protocol';
import { censusFile, sample, tmpDir } from '../samples';

describe('host/stepFileIndex', () => {
  it('pathMappings: ${workspaceFolder} and ${workspaceFolder:name}; relative values and unknown names', () => {
    const folders = [
      { name: 'app', path: '/w/app' },
      { name: 'lib', path: '/w/lib' },
    ];
    assert.deepEqual(pathMappings({ '/testbed': '${workspaceFolder}', '/lib/': '${workspaceFolder:lib}/src', '/x': 'sub', '/y': '${workspaceFolder:nope}', 'rel': '/a' }, folders), [
      { from: '/testbed', to: '/w/app' },
      { from: '/lib/', to: '/w/lib/src' },
      { from: '/x', to: '/w/app/sub' },
    ]);
    assert.ok(inWorkspace('/w/app/a.py', folders));
    assert.ok(!inWorkspace('/w/application/a.py', folders));
    assert.equal(rolloutLabel('/r/output.jsonl', 2, 5), 'output.jsonl · rollout 3');
  });

  it('a SWE-agent rollout mapped into the workspace: its edit of tests/missing_colon.py, lines placed against the file now', async () => {
    const ws = tmpDir();
    const { rollouts } = await loadFile(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'), nodeFiles);
    const folders = [{ name: 'repo', path: ws }];
    const unmapped = new StepFileIndex([], folders);
    unmapped.set('/r.traj', rollouts);
    assert.deepEqual(unmapped.touchesOf(path.join(ws, 'tests/missing_colon.py')), []);
    const index = new StepFileIndex(pathMappings({ '/SWE-agent__test-repo': '${workspaceFolder}' }, folders), folders);
    index.set('/r.traj', rollouts);
    const local = path.join(ws, 'tests/missing_colon.py');
    const touches = index.touchesOf(local);
    assert.deepEqual(
      touches.map((t) => [t.stepIndex, t.kind, t.path, t.localPath]),
      [
        [3, 'read', '/SWE-agent__test-repo/tests/missing_colon.py', local],
        [4, 'edit', '/SWE-agent__test-repo/tests/missing_colon.py', local],
      ],
    );
    const change = touches[1].change;
    assert.ok(change?.op === 'replace');
    const { oldText, newText } = change.edits[0];
    // The file now: the agent's new text in place of the old one, with a line before it.
    const now = `#!/usr/bin/env python3\n\n${newText}\n    return a / b\n`;
    const [h] = fileHistories(touches, now);
    assert.equal(h.versions[0].before, `#!/usr/bin/env python3\n\n${oldText}\n    return a / b\n`);
    const newLines = newText.split('\n').length;
    assert.deepEqual(
      h.lines.map((l) => [l.stepIndex, l.start]),
      [[4, 2]],
    );
    assert.ok(h.lines[0].end - h.lines[0].start + 1 <= newLines);
    // The same step's touches, for the timeline.
    assert.deepEqual(index.touchesOfStep('/r.traj', 0, 4).map((t) => t.localPath), [local]);
    // Mapping removed: re-indexed, nothing is in the workspace any more.
    index.reindex([], folders);
    assert.deepEqual(index.touchesOf(local), []);
    assert.ok(index.has('/r.traj'));
  });

  it('a Claude Code session whose cwd is the workspace folder needs no mapping; a rejected edit makes no history', async () => {
    const { rollouts } = await loadFile(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'), nodeFiles);
    const root = '/home/wei/repo/claude-code';
    const index = new StepFileIndex([], [{ name: 'claude-code', path: root }]);
    index.set('/s.jsonl', rollouts);
    const goMod = index.touchesOf(`${root}/go.mod`);
    assert.deepEqual(goMod.map((t) => `${t.stepIndex} ${t.kind} ${t.outcome}`), ['3 read unknown', '5 edit rejected', '8 edit applied']);
    const [h] = fileHistories(goMod, 'module claude-code-helper\n\ngo 1.23\n');
    assert.deepEqual(h.changes.map((c) => c.stepIndex), [8]);
    assert.deepEqual(h.lines.map((l) => [l.stepIndex, l.start, l.end]), [[8, 2, 2]]);
    assert.deepEqual(fileHistories(goMod.filter((t) => t.stepIndex !== 8), 'x\n'), []);
  });

  it('stepFileChips: workspace files by their relative path, others as recorded; a rejected edit is marked', async () => {
    const { rollouts } = await loadFile(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'), nodeFiles);
    const root = '/home/wei/repo/claude-code';
    const m = stepFileChips(rollouts[0], [{ from: `${root}/sub`, to: '/elsewhere' }], [{ name: 'cc', path: root }]);
    assert.ok(isHostMessage(m));
    assert.equal(m.rolloutId, rollouts[0].id);
    const at = (i: number) => m.steps.find((s) => s.index === i)?.files;
    assert.deepEqual(at(3), [
      { label: 'go.mod', recorded: `${root}/go.mod`, kind: 'read', local: true, failed: false },
      { label: '.python-version', recorded: `${root}/.python-version`, kind: 'read', local: true, failed: false },
    ]);
    assert.deepEqual(at(5), [{ label: 'go.mod', recorded: `${root}/go.mod`, kind: 'edit', local: true, failed: true }]);
    assert.equal(at(0), undefined, 'steps touching no file are left out');
    // Two folders: the folder's name leads; a file outside both keeps the recorded path.
    const two = stepFileChips(rollouts[0], [], [{ name: 'other', path: '/x' }, { name: 'cc', path: root }]);
    assert.equal(two.steps.find((s) => s.index === 3)!.files[0].label, 'cc/go.mod');
    const none = stepFileChips(rollouts[0], [], [{ name: 'x', path: '/x' }]);
    assert.deepEqual(none.steps.find((s) => s.index === 3)!.files[0], { label: `${root}/go.mod`, recorded: `${root}/go.mod`, kind: 'read', local: false, failed: false });
    assert.ok(!isHostMessage({ ...m, steps: [{ index: 3, files: [{ label: 'a', kind: 'write' }] }] }));
  });
});
