/**
 * Replay of coding-agent sessions against a real Docker engine: synthetic Claude Code and Codex
 * CLI sessions (built with makeStep, the shapes the loaders produce) whose commands and file edits
 * replay in order in the offline test image — a Write, an Edit, an apply_patch (as an edit and as
 * Codex's shell heredoc), a unified diff, edits that no longer apply (each with its reason), an
 * edit the recording says failed, a read-only folder, Claude Code's cwd-only shell, Codex's
 * per-call workdir, the session's host cwd created in the container, the bounded workspace copy
 * (a copy: the host folder is never touched), and Step back over an edit.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { makeStep, unknownOutcome, type Action, type FileEdit, type FormatId, type Observation, type Rollout, type Step } from '../../../src/core/model';
import { buildPlan } from '../../../src/core/replay/plan';
import { ReplaySession } from '../../../src/core/replay/session';
import { cleanupDocker, replayRollout, setupDocker, sh, TEST_IMAGE, testLimits, testSession } from './helpers';
import { loadFile } from '../../../src/core/load';
import { censusFile } from '../../unit/samples';

const P = '/home/me/proj';

function session(format: FormatId, steps: Step[], workdir: string | null = P): Rollout {
  return {
    id: `${format}-synthetic`, format, schemaVersion: null, source: { path: `/tmp/${format}.jsonl`, range: null, line: null },
    task: { id: null, instruction: null }, agent: { name: format, version: null, model: null },
    environment: { image: null, workdir }, outcome: unknownOutcome(), groupId: null, steps, metadata: {},
  };
}

let n = 0;
/** An agent step with one action and its observation. */
function call(a: Partial<Action>, output: string, o: Partial<Observation> = {}): Step {
  const id = `call-${++n}`;
  return makeStep(n, 'agent', {
    actions: [{ kind: 'shell', command: null, tool: null, callId: id, ...a }],
    observations: [{ callId: id, output, exitCode: null, truncated: false, ...o } as Observation],
  });
}
const bash = (command: string, output: string, exitCode: number | null = 0) => call({ kind: 'shell', tool: 'Bash', command }, output, { exitCode });
const edit = (e: FileEdit, output: string, o: Partial<Observation> = {}) => call({ kind: 'file_edit', tool: 'Edit', path: e.path, edit: e }, output, o);

describe('replay of coding-agent sessions (real Docker engine)', function () {
  this.timeout(180_000);
  let docker: Docker;
  const open: ReplaySession[] = [];

  before(async function () {
    docker = await setupDocker(this);
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.dispose();
  });
  after(async () => {
    await cleanupDocker();
  });

  it('a Claude Code session: commands from the (created) session cwd, Write / Edit / apply_patch / unified diff applied in order, later commands see them', async () => {
    n = 0;
    const r = session('claude-code', [
      makeStep(0, 'user', { message: 'bump the return value' }),
      bash(`pwd && mkdir -p src && printf 'def f():\\n    return 1\\n' > src/app.py && echo made`, `${P}\nmade`),
      edit({ op: 'write', path: `${P}/src/util.py`, content: 'X = 1\n' }, `File created successfully at: ${P}/src/util.py`),
      edit({ op: 'replace', path: `${P}/src/app.py`, edits: [{ oldText: 'return 1', newText: 'return 2', replaceAll: false }] }, `The file ${P}/src/app.py has been updated successfully.`),
      bash('cat src/app.py', 'def f():\n    return 2'),
      edit({ op: 'patch', path: 'src/app.py', dialect: 'codex', patch: '*** Begin Patch\n*** Update File: src/app.py\n@@ def f():\n-    return 2\n+    return 3\n*** Add File: src/new.txt\n+fresh\n*** Delete File: src/util.py\n*** End Patch' }, 'Success. Updated the following files:\nA src/new.txt\nM src/app.py\nD src/util.py'),
      bash('ls src && cat src/app.py', 'app.py\nnew.txt\ndef f():\n    return 3'),
      edit({ op: 'patch', path: 'src/new.txt', dialect: 'unified', patch: '--- a/src/new.txt\n+++ b/src/new.txt\n@@ -1 +1 @@\n-fresh\n+fresher\n' }, 'patched'),
      bash('cat src/new.txt', 'fresher'),
    ]);
    const { rows, plan, session: s } = await replayRollout(docker, r, { keep: true });
    open.push(s);
    assert.equal(plan.mode, 'shell');
    assert.equal(plan.shellState, 'cwd');
    assert.deepEqual(rows, [
      [2, 'command', 'same', 'same'],
      [3, 'edit', 'same', `created ${P}/src/util.py (1 line)`],
      [4, 'edit', 'same', `replaced 1 occurrence in ${P}/src/app.py`],
      [5, 'command', 'same', 'same'],
      [6, 'edit', 'same', `patched M ${P}/src/app.py, A ${P}/src/new.txt, D ${P}/src/util.py`],
      [7, 'command', 'same', 'same'],
      [8, 'edit', 'same', `patched M ${P}/src/new.txt`],
      [9, 'command', 'same', 'same'],
    ]);
    assert.equal(await sh(docker, s.containerId!, `cat ${P}/src/app.py; ls ${P}/src`), 'def f():\n    return 3\napp.py\nnew.txt\n');
    const applied = s.results[4]!.edit!;
    assert.deepEqual(applied.changes.map((c) => [c.path, c.before, c.after]).slice(0, 1), [[`${P}/src/app.py`, 'def f():\n    return 2\n', 'def f():\n    return 3\n']]);
  });

  it('edits that no longer apply diverge with their reason; one recorded as failed fails the same; nothing is written for them', async () => {
    n = 0;
    const r = session('claude-code', [
      bash(`printf 'a = 1\\na = 1\\n' > x.py && mkdir -p pkg`, ''),
      edit({ op: 'replace', path: `${P}/x.py`, edits: [{ oldText: 'zzz', newText: 'y', replaceAll: false }] }, '<tool_use_error>String to replace not found in file.</tool_use_error>', { isError: true }),
      edit({ op: 'replace', path: `${P}/x.py`, edits: [{ oldText: 'a = 1', newText: 'a = 2', replaceAll: false }] }, 'The file has been updated successfully.'),
      edit({ op: 'replace', path: `${P}/missing.py`, edits: [{ oldText: 'a', newText: 'b', replaceAll: false }] }, 'The file has been updated successfully.'),
      edit({ op: 'patch', path: 'x.py', dialect: 'codex', patch: '*** Begin Patch\n*** Update File: x.py\n@@\n-a = 1\n+a = 3\n@@\n-nothing like this\n+b\n*** End Patch' }, 'Success. Updated the following files:\nM x.py'),
      edit({ op: 'write', path: '/ro/note.txt', content: 'no\n' }, 'File created successfully at: /ro/note.txt'),
      edit({ op: 'write', path: `${P}/pkg`, content: 'no\n' }, 'File created successfully'),
      edit({ op: 'other', path: `${P}/n.ipynb`, reason: 'NotebookEdit: cell edits are not re-applied' }, 'Updated cell'),
      bash('cat x.py', 'a = 1\na = 1'),
    ]);
    const { rows, firstDivergence, session: s } = await replayRollout(docker, r, { keep: true });
    open.push(s);
    assert.deepEqual(rows, [
      [2, 'command', 'same', 'same'],
      [3, 'edit', 'same', `fails as recorded: old text not found in ${P}/x.py`],
      [4, 'edit', 'differs', `old text found 2 times in ${P}/x.py (it must be unique unless replace-all)`],
      [5, 'edit', 'differs', `file does not exist: ${P}/missing.py`],
      [6, 'edit', 'differs', `patch hunk 2 does not match ${P}/x.py: expected lines not found after line 1: "nothing like this"`],
      [7, 'edit', 'differs', 'cannot write /ro/note.txt: Permission denied'],
      [8, 'edit', 'differs', `${P}/pkg is a directory`],
      [9, 'edit', 'not-replayable', 'NotebookEdit: cell edits are not re-applied'],
      [10, 'command', 'same', 'same'],
    ]);
    assert.equal(firstDivergence, 2);
    assert.equal(s.results[8]!.stateMayDiffer, true);
    assert.equal(await sh(docker, s.containerId!, `cat ${P}/x.py; ls /ro`), 'a = 1\na = 1\n');
  });

  it("Claude Code's shell keeps the working directory between commands, not the exports; a run_in_background command is started and left running", async () => {
    n = 0;
    const r = session('claude-code', [
      bash('mkdir -p sub && cd sub && export X=1 && echo "in $PWD"', `in ${P}/sub`),
      bash('pwd; echo "${X:-unset}"', `${P}/sub\nunset`),
      bash('cd /tmp; exit 3', '', 3),
      bash('pwd', '/tmp'),
      // run_in_background: started and left running (the step timeout is 5 s here), its output to a log.
      call({ kind: 'shell', tool: 'Bash', command: 'sleep 30; echo late', arguments: { command: 'sleep 30; echo late', run_in_background: true } }, 'Command running in background with ID: bash_1'),
      bash('echo next', 'next'),
    ]);
    const { rows, session: s } = await replayRollout(docker, r, { limits: { stepTimeoutSec: 5 }, keep: true });
    open.push(s);
    assert.deepEqual(rows.map((x) => x[2]), ['same', 'same', 'same', 'same', 'same', 'same']);
    assert.match(rows[4][3], /^started in the background, as recorded \(output in \/tmp\/\.ti-replay\/background-\d+-0\.log, not compared\)$/);
    assert.match(await sh(docker, s.containerId!, 'ps -o args'), /sleep 30/);
  });

  it("a Codex CLI session: each command on its own, in the call's workdir; apply_patch written as a shell heredoc is applied as an edit", async () => {
    n = 0;
    const heredoc = "applypatch << 'PATCH'\n*** Begin Patch\n*** Update File: go.mod\n@@\n-module claude-code-helper\n-\n-go 1.24.0\n+module claude-code-helper\n+\n+go 1.24\n*** End Patch\nPATCH";
    const codex = (script: string, output: string, exitCode: number | null, workdir?: string) =>
      call({ kind: 'shell', tool: 'shell', command: script, arguments: { command: ['bash', '-lc', script], ...(workdir ? { workdir } : {}) } }, output, { exitCode });
    const r = session('codex-cli', [
      codex("mkdir -p sub && printf 'module claude-code-helper\\n\\ngo 1.24.0\\n' > go.mod && export A=1", '', 0),
      codex(heredoc, 'Success. Updated the following files:\nM go.mod\n', 0),
      codex('cat ../go.mod | tail -n 1; echo "${A:-unset}"', 'go 1.24\nunset', 0, 'sub'),
      codex('pwd', `${P}/not-there`, 0, 'not-there'),
    ]);
    const { rows, results, plan } = await replayRollout(docker, r);
    assert.equal(plan.mode, 'exec');
    assert.deepEqual(rows, [
      [2, 'command', 'same', 'same'],
      [3, 'edit', 'same', `patched M ${P}/go.mod`],
      [4, 'command', 'same', 'same'],
      [5, 'command', 'differs', 'exit code 0 → 1'],
    ]);
    assert.match(results[3].replayed!.text, /cd: .*not-there: No such file or directory/);
  });

  it('the workspace copy: the session sees the project files at the same path; edits change the copy, never the host folder', async () => {
    n = 0;
    const host = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-replay-ws-'));
    try {
      fs.mkdirSync(path.join(host, 'src'));
      fs.writeFileSync(path.join(host, 'src', 'app.py'), 'VALUE = 1\n');
      fs.mkdirSync(path.join(host, 'node_modules', 'big'), { recursive: true });
      fs.writeFileSync(path.join(host, 'node_modules', 'big', 'x.js'), 'x');
      const r = session('claude-code', [
        bash('cat src/app.py && ls -A', 'VALUE = 1\nsrc'),
        edit({ op: 'replace', path: `${host}/src/app.py`, edits: [{ oldText: 'VALUE = 1', newText: 'VALUE = 2', replaceAll: false }] }, 'The file has been updated successfully.'),
        bash('cat src/app.py', 'VALUE = 2'),
      ], host);
      const plan = buildPlan(r, { image: TEST_IMAGE, copyWorkspace: host });
      assert.deepEqual(plan.workspace, { hostDir: host });
      const events: string[] = [];
      const s = new ReplaySession(plan, docker, { limits: testLimits(), snapshots: true, session: testSession(), onEvent: (e) => e.type === 'workspace' && events.push(`${e.files} ${e.dest} ${e.skippedDirs.join(',')}`) });
      open.push(s);
      await s.start();
      assert.deepEqual(events, [`1 ${host} node_modules`]);
      const results = await s.runTo();
      assert.deepEqual(results.map((c) => c.status), ['same', 'same', 'same']);
      assert.equal(fs.readFileSync(path.join(host, 'src', 'app.py'), 'utf8'), 'VALUE = 1\n');
      assert.deepEqual((await docker.getContainer(s.containerId!).inspect()).Mounts, []);
      // Step back over the command and the edit: the copy is as it was before the edit.
      await s.rewindTo(1);
      assert.equal(await sh(docker, s.containerId!, `cat ${host}/src/app.py`), 'VALUE = 1\n');
      // Restart: the copy is there again (from the snapshot that holds it).
      await s.restart();
      assert.equal(await sh(docker, s.containerId!, `cat ${host}/src/app.py; ls ${host}`), 'VALUE = 1\nsrc\n');
    } finally {
      fs.rmSync(host, { recursive: true, force: true });
    }
  });
});

describe('replay of real coding-agent sessions (census files, through their loaders)', function () {
  this.timeout(300_000);
  let docker: Docker;
  before(async function () {
    docker = await setupDocker(this);
  });
  after(async () => {
    await cleanupDocker();
  });

  it('a real Claude Code session: Writes create their files, Edits of files the image lacks diverge with the reason, the declined Edit is not applied', async () => {
    const r = (await loadFile(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'))).rollouts[0];
    const out = await replayRollout(docker, r);
    const cwd = r.environment.workdir!;
    assert.equal(cwd, '/home/wei/repo/claude-code');
    assert.ok(out.plan.notes?.some((n) => n.includes(cwd)), 'the plan says the container has none of the session cwd files');
    const edits = out.rows.filter((row) => row[1] === 'edit');
    // The recording's Write calls, in order: each creates its file in the session cwd.
    const writes = r.steps.flatMap((s) => s.actions.filter((a) => a.edit?.op === 'write').map((a) => a.edit!.path));
    assert.ok(writes.length >= 3);
    const created = edits.filter((e) => /^created /.test(e[3]));
    assert.deepEqual(created.map((e) => e[3].replace(/^created (.*) \(\d+ lines\)$/, '$1')), writes.map((p) => path.resolve(cwd, p ?? '')));
    assert.ok(created.every((e) => e[2] === 'same'));
    // go.mod is not in the image: the applied Edit diverges saying so; the one the user declined is only checked.
    assert.ok(edits.some((e) => e[2] === 'differs' && e[3] === `file does not exist: ${cwd}/go.mod`));
    assert.ok(edits.some((e) => e[2] === 'same' && /^not applied: declined/.test(e[3])));
    // Read / TodoWrite / MCP tools are not shell commands: not replayable, never run.
    assert.ok(out.rows.some((row) => row[2] === 'not-replayable' && /tool TodoWrite is not a shell command/.test(row[3])));
  });

  it('a real Codex CLI session: its apply_patch edits need the files the image lacks; the empty patch fails as recorded', async () => {
    const r = (await loadFile(censusFile('codex-cli/vibecodingtracker_codex.jsonl'))).rollouts[0];
    const out = await replayRollout(docker, r);
    const cwd = r.environment.workdir!;
    const edits = out.rows.filter((row) => row[1] === 'edit');
    assert.deepEqual(
      edits.filter((e) => e[2] === 'differs').map((e) => e[3]),
      ['go.mod', 'README.zh-TW.md', 'README.zh-CN.md', '.python-version'].map((f) => `Update File: file does not exist: ${cwd}/${f}`),
    );
    assert.ok(edits.some((e) => e[2] === 'same' && /fails as recorded: the patch changes nothing/.test(e[3])));
    // Its shell commands ran (in the session cwd): the recorded `ls -la` of the user's checkout differs here.
    assert.ok(out.rows.filter((row) => row[1] === 'command' && row[2] === 'differs').length >= 5);
  });
});
