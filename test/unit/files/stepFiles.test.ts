/**
 * Steps ↔ files (src/core/files): which files each step of real sessions read or changed
 * (Claude Code, Codex CLI, SWE-agent, OpenHands samples of ../shared), the shell commands read as
 * file access, path mapping, and the file's text before/after each change with the step that last
 * changed each line, reconstructed from the file as it is now.
 */
import * as assert from 'node:assert/strict';
import { fileVersions, lineSteps, changeDiffTexts, type FileChangeAt } from '../../../src/core/files/fileHistory';
import { absolutePath, mapPath, shellFileTouches, stepFileTouches, touchesOf, type StepFileTouch } from '../../../src/core/files/stepFiles';
import { loadFile } from '../../../src/core/load';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { updatedContent } from '../../../src/core/replay/applyPatch';
import { censusFile, sample } from '../samples';

const brief = (t: StepFileTouch) => `${t.stepIndex} ${t.kind} ${t.path} ${t.change?.op ?? '-'} ${t.outcome}`;
const changesOf = (ts: StepFileTouch[]): FileChangeAt[] => ts.filter((t) => t.kind === 'edit' && t.change && t.outcome !== 'failed' && t.outcome !== 'rejected').map((t) => ({ stepIndex: t.stepIndex, change: t.change! }));

describe('stepFileTouches over real sessions', () => {
  it('Claude Code (census vibecodingtracker): Read, Edit (a rejected one kept as rejected), Write, and `rm` through Bash', async () => {
    const { rollouts } = await loadFile(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'), nodeFiles);
    const t = stepFileTouches(rollouts[0]);
    const root = '/home/wei/repo/claude-code';
    assert.deepEqual(t.slice(0, 5).map(brief), [
      `3 read ${root}/go.mod - unknown`,
      `3 read ${root}/.python-version - unknown`,
      `5 edit ${root}/go.mod replace rejected`,
      `8 edit ${root}/go.mod replace applied`,
      `10 edit ${root}/.python-version replace applied`,
    ]);
    assert.ok(t.some((x) => brief(x) === `19 edit ${root}/TODO.md delete applied`));
    assert.equal(t.filter((x) => x.change?.op === 'write').length, 3);
  });

  it('Codex CLI (census vibecodingtracker): `sed -n`/`cat` reads and applypatch shell calls as update hunks, per file', async () => {
    const { rollouts } = await loadFile(censusFile('codex-cli/vibecodingtracker_codex.jsonl'), nodeFiles);
    const t = stepFileTouches(rollouts[0]);
    const root = '/proj/ds906659/gai/claude-code';
    assert.deepEqual(touchesOf(t, `${root}/README.zh-TW.md`).map(brief), [`10 read ${root}/README.zh-TW.md - unknown`, `12 edit ${root}/README.zh-TW.md codex-update applied`]);
    assert.deepEqual(touchesOf(t, `${root}/go.mod`).map(brief), [`4 read ${root}/go.mod - unknown`, `9 edit ${root}/go.mod codex-update applied`]);
  });

  it('SWE-agent `open` is a read and edit {search, replace} a replacement; an OpenHands `printf … > hello.txt` is a change in the workdir', async () => {
    const swe = (await loadFile(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'), nodeFiles)).rollouts[0];
    const [open, edit] = stepFileTouches(swe);
    assert.equal(brief(open), '3 read /SWE-agent__test-repo/tests/missing_colon.py - unknown'); // SWE-agent's `open`
    assert.equal(brief(edit), '4 edit /SWE-agent__test-repo/tests/missing_colon.py replace applied');
    assert.ok(edit.change?.op === 'replace' && edit.change.edits[0].oldText.startsWith('def division(a: float, b: float) -> float'));
    const oh = (await loadFile(sample('openhands/harbor-rfc_openhands_trajectory.json'), nodeFiles)).rollouts[0];
    assert.deepEqual(stepFileTouches(oh).map(brief), ['3 edit /app/hello.txt opaque applied']);
  });
});

describe('shellFileTouches', () => {
  const of = (c: string) => shellFileTouches(c).map((t) => `${t.kind} ${t.path} ${t.change?.op ?? '-'}`);
  it('reads and writes that are plain; nothing from what it cannot read', () => {
    assert.deepEqual(of('cat a.py 2>&1 | head -n 5'), ['read a.py -']);
    assert.deepEqual(of("sed -n '1,20p' src/x.ts && sed -i 's/a/b/' y.txt z.txt"), ['read src/x.ts -', 'edit y.txt opaque', 'edit z.txt opaque']);
    assert.deepEqual(of('echo hi > out.txt; echo more >> out.txt 2> err.log'), ['edit out.txt opaque', 'edit out.txt opaque']);
    assert.deepEqual(of('python run.py > /dev/null'), ['edit /dev/null opaque']); // placed (and dropped) by absolutePath
    assert.equal(absolutePath('/dev/null', '/w'), null);
    assert.deepEqual(of('cat $F > "$OUT"'), []);
    assert.deepEqual(of('rm -f a b && touch c'), ['edit a delete', 'edit b delete', 'edit c opaque']);
  });
  it("`cat > f <<'EOF'` is a write of the heredoc's text; an unquoted heredoc with $ is not", () => {
    const [w] = shellFileTouches("cat > app.py <<'EOF'\nprint('$HOME')\nEOF\npython app.py");
    assert.deepEqual({ path: w.path, change: w.change }, { path: 'app.py', change: { op: 'write', content: "print('$HOME')\n", created: false } });
    assert.equal(shellFileTouches('cat <<EOF > b.txt\n$HOME\nEOF')[0].change?.op, 'opaque');
  });
});

describe('mapPath / absolutePath', () => {
  it('the longest mapping at a folder boundary wins; others pass through', () => {
    const maps = [
      { from: '/testbed', to: '/home/me/proj' },
      { from: '/testbed/vendor', to: '/home/me/vendor' },
    ];
    assert.equal(mapPath('/testbed/src/a.py', maps), '/home/me/proj/src/a.py');
    assert.equal(mapPath('/testbed/vendor/x', maps), '/home/me/vendor/x');
    assert.equal(mapPath('/testbed', maps), '/home/me/proj');
    assert.equal(mapPath('/testbed2/a', maps), '/testbed2/a');
    assert.equal(absolutePath('src/../b.ts', '/w'), '/w/b.ts');
    assert.equal(absolutePath('b.ts', null), null);
    assert.equal(absolutePath('C:\\x\\y', '/w'), null);
  });
});

describe('fileVersions / lineSteps', () => {
  it('undoes replacements backwards from the file now and marks the lines each step changed last', () => {
    const changes: FileChangeAt[] = [
      { stepIndex: 2, change: { op: 'replace', edits: [{ oldText: 'b = 1', newText: 'b = 2', replaceAll: false }] } },
      { stepIndex: 5, change: { op: 'replace', edits: [{ oldText: 'd = 1\n', newText: 'd = 3\ne = 4\n', replaceAll: false }] } },
    ];
    const now = 'a = 0\nb = 2\nc = 0\nd = 3\ne = 4\nuser = 9\n';
    const v = fileVersions(changes, now);
    assert.equal(v[0].before, 'a = 0\nb = 1\nc = 0\nd = 1\nuser = 9\n');
    assert.equal(v[0].after, v[1].before);
    assert.deepEqual(lineSteps(changes, v, now), [
      { stepIndex: 2, start: 1, end: 1, approximate: false },
      { stepIndex: 5, start: 3, end: 4, approximate: false },
    ]);
  });

  it('a write starts a known history; a later edit whose new text is gone leaves it unknown before', () => {
    const changes: FileChangeAt[] = [
      { stepIndex: 1, change: { op: 'write', content: 'x\ny\n', created: false } },
      { stepIndex: 3, change: { op: 'replace', edits: [{ oldText: 'y', newText: 'z', replaceAll: false }] } },
    ];
    // The user edited the file since: z is gone, so undoing from now fails; the forward pass fills in.
    const v = fileVersions(changes, 'x\nw\n');
    assert.deepEqual(v, [
      { stepIndex: 1, before: undefined, after: 'x\ny\n' },
      { stepIndex: 3, before: 'x\ny\n', after: 'x\nw\n' },
    ]);
    assert.deepEqual(changeDiffTexts(changes[0].change, v[0]), { before: '', after: 'x\ny\n', whole: false });
    // Step 1's write: both lines; step 3's (unknown how it reached "w"): w by the diff from x\ny.
    assert.deepEqual(lineSteps(changes, v, 'x\nw\n').map((r) => [r.stepIndex, r.start, r.end]), [
      [1, 0, 0],
      [3, 1, 1],
    ]);
  });

  it('a change with an unknown history is placed by its new text (approximate)', () => {
    const changes: FileChangeAt[] = [
      { stepIndex: 0, change: { op: 'opaque', reason: 'sed -i' } },
      { stepIndex: 4, change: { op: 'replace', edits: [{ oldText: 'q', newText: 'return 42\n', replaceAll: false }] } },
    ];
    const now = 'def f():\n    return 42\n';
    const v = fileVersions(changes, 'def f():\n    return 42\n');
    assert.equal(v[1].before, 'def f():\n    q');
    assert.deepEqual(lineSteps(changes, v, now), [{ stepIndex: 4, start: 1, end: 1, approximate: false }]);
    const unknown = fileVersions([changes[0]], now);
    assert.equal(changeDiffTexts(changes[0].change, unknown[0]), null);
  });

  it('Codex (census): the README patch undone from the file it made gives back the text the session printed', async () => {
    const { rollouts } = await loadFile(censusFile('codex-cli/vibecodingtracker_codex.jsonl'), nodeFiles);
    const r = rollouts[0];
    const file = '/proj/ds906659/gai/claude-code/README.zh-TW.md';
    const ts = touchesOf(stepFileTouches(r), file);
    const read = ts.find((t) => t.kind === 'read')!;
    const printed = r.steps[read.stepIndex].observations[0].output;
    const [edit] = changesOf(ts);
    assert.ok(edit.change.op === 'codex-update');
    const now = updatedContent(printed, file, edit.change.chunks);
    const [v] = fileVersions([edit], now);
    assert.equal(v.before!.replace(/\n$/, ''), printed.replace(/\n$/, ''));
    const runs = lineSteps([edit], [v], now);
    assert.ok(runs.length > 0 && runs.every((x) => x.stepIndex === 12 && !x.approximate));
    const nowLines = now.split('\n');
    const added = new Set(edit.change.chunks.flatMap((c) => c.newLines));
    const removed = new Set(edit.change.chunks.flatMap((c) => c.oldLines));
    // Every marked line is one the patch wrote that was not in its old lines, and the line 167 the session grepped later is marked.
    for (const x of runs) for (let l = x.start; l <= x.end; l++) assert.ok(added.has(nowLines[l]) && !removed.has(nowLines[l]), `line ${l + 1}: ${nowLines[l]}`);
    assert.ok(runs.some((x) => x.start <= 166 && 166 <= x.end));
  });

  it('Claude Code (census): the go.mod edits replay backwards from the final text; the rejected one is left out', async () => {
    const { rollouts } = await loadFile(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'), nodeFiles);
    const ts = touchesOf(stepFileTouches(rollouts[0]), '/home/wei/repo/claude-code/go.mod');
    const changes = changesOf(ts);
    assert.deepEqual(changes.map((c) => c.stepIndex), [8]);
    const now = 'module claude-code-helper\n\ngo 1.23\n\nrequire x v1\n';
    const [v] = fileVersions(changes, now);
    assert.equal(v.before, 'module claude-code-helper\n\ngo 1.23.0\n\ntoolchain go1.24.3\n\nrequire x v1\n');
    assert.deepEqual(lineSteps(changes, [v], now), [{ stepIndex: 8, start: 2, end: 2, approximate: false }]);
  });
});
