/**
 * Planning the replay of coding-agent sessions (src/core/replay/plan.ts) and comparing edits
 * (compare.ts compareEdit), without an engine: the mode and shell state per format, edits as plan
 * steps with what the recording says about them, Codex's per-call workdir and its apply_patch
 * written as a shell command (the real call of the census), the session's cwd (host path, Windows
 * path), the workspace copy option, and the verdict of an edit in each recorded / replayed case.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { makeStep, unknownOutcome, type Action, type FormatId, type Observation, type Rollout, type Step } from '../../../src/core/model';
import { compareEdit, compareStep } from '../../../src/core/replay/compare';
import type { EditOutcome } from '../../../src/core/replay/edits';
import { buildPlan, modeFor, shellStateFor } from '../../../src/core/replay/plan';
import { censusFile } from '../samples';

const act = (a: Partial<Action>): Action => ({ kind: 'shell', command: null, tool: null, callId: null, ...a });
const out = (output: string, o: Partial<Observation> = {}): Observation => ({ callId: null, output, exitCode: null, truncated: false, ...o }) as Observation;

function session(format: FormatId, steps: Step[], workdir: string | null = '/home/me/proj'): Rollout {
  return {
    id: 's1', format, schemaVersion: null, source: { path: '/tmp/session.jsonl', range: null, line: null },
    task: { id: null, instruction: null }, agent: { name: null, version: null, model: null },
    environment: { image: null, workdir }, outcome: unknownOutcome(), groupId: null, steps, metadata: {},
  };
}

describe('replay plan of coding-agent sessions', () => {
  it('modes and shell state per format: Codex and Gemini one command at a time; Claude Code keeps the cwd only', () => {
    const r = (f: FormatId) => session(f, []);
    assert.deepEqual((['codex-cli', 'gemini-cli', 'claude-code', 'copilot-cli', 'cline'] as const).map((f) => [modeFor(r(f)), shellStateFor(r(f))]), [
      ['exec', 'cwd+env'], ['exec', 'cwd+env'], ['shell', 'cwd'], ['shell', 'cwd+env'], ['shell', 'cwd+env'],
    ]);
  });

  it('Claude Code: commands and edits in order, edits labelled, with what the recording says; a note that the files are not there', () => {
    const r = session('claude-code', [
      makeStep(0, 'user', { message: 'fix it' }),
      makeStep(1, 'agent', {
        actions: [act({ kind: 'shell', command: 'ls', tool: 'Bash', callId: 'a' }), act({ kind: 'file_edit', tool: 'Edit', callId: 'b', path: '/home/me/proj/x.py', edit: { op: 'replace', path: '/home/me/proj/x.py', edits: [{ oldText: 'a', newText: 'b', replaceAll: false }] } })],
        observations: [out('x.py', { callId: 'a', exitCode: 0 }), out('<tool_use_error>String to replace not found in file.</tool_use_error>', { callId: 'b', isError: true })],
      }),
      makeStep(2, 'agent', { actions: [act({ kind: 'file_edit', tool: 'NotebookEdit', callId: 'c', edit: { op: 'other', path: '/home/me/proj/n.ipynb', reason: 'NotebookEdit cells are not re-applied' } })] }),
      makeStep(3, 'agent', { actions: [act({ kind: 'file_edit', tool: 'Write', callId: 'd', path: '/home/me/proj/y.py' })] }),
    ]);
    const plan = buildPlan(r, { image: 'img' });
    assert.equal(plan.mode, 'shell');
    assert.equal(plan.shellState, 'cwd');
    assert.equal(plan.workdir, '/home/me/proj');
    assert.deepEqual(plan.steps.map((s) => [s.stepIndex, s.kind, s.input, s.replayable, s.recorded.editOutcome ?? null]), [
      [1, 'command', 'ls', true, null],
      [1, 'edit', '✎ edit /home/me/proj/x.py (replace)', true, 'failed'],
      [2, 'edit', '✎ edit /home/me/proj/n.ipynb (other)', false, 'unknown'],
      [3, 'edit', 'Write', false, null],
    ]);
    assert.equal(plan.steps[2].reason, 'NotebookEdit cells are not re-applied');
    assert.equal(plan.steps[3].reason, 'editor tool Write: the record does not hold the change precisely enough to re-apply it');
    assert.match(plan.notes![0], /^the session ran in \/home\/me\/proj on the user's machine: the container has none of its files/);
  });

  it('Codex CLI: an apply_patch written as a shell call (the real call of the census) is an edit; a call\'s workdir is the step\'s', () => {
    const rows = fs.readFileSync(censusFile('codex-cli/vibecodingtracker_codex.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const call = rows.find((x) => x.payload?.type === 'function_call' && x.payload.arguments.includes('applypatch')).payload;
    const args = JSON.parse(call.arguments);
    const cwd = rows.find((x) => x.type === 'session_meta').payload.cwd;
    const r = session('codex-cli', [
      makeStep(0, 'agent', { actions: [act({ command: args.command.join(' '), tool: 'shell', arguments: args, callId: call.call_id })], observations: [out('Success. Updated the following files:\nM go.mod\n', { callId: call.call_id, exitCode: 0 })] }),
      makeStep(1, 'agent', { actions: [act({ command: 'pytest -q', tool: 'shell', arguments: { command: ['bash', '-lc', 'pytest -q'], workdir: 'tests' }, callId: 'w' })] }),
      makeStep(2, 'agent', { actions: [act({ command: "cd sub && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: n.txt\n+n\n*** End Patch\nEOF", tool: 'exec_command', arguments: { cmd: "cd sub && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: n.txt\n+n\n*** End Patch\nEOF" }, callId: 'p' })] }),
    ], cwd);
    const plan = buildPlan(r, { image: 'img' });
    assert.equal(plan.mode, 'exec');
    assert.equal(plan.workdir, '/proj/ds906659/gai/claude-code');
    assert.deepEqual(plan.steps.map((s) => [s.kind, s.input, s.workdir ?? null, s.recorded.editOutcome ?? null]), [
      ['edit', '✎ edit go.mod (apply_patch)', null, 'applied'],
      ['command', 'pytest -q', '/proj/ds906659/gai/claude-code/tests', null],
      ['edit', '✎ edit n.txt (apply_patch)', '/proj/ds906659/gai/claude-code/sub', 'unknown'],
    ]);
    assert.ok(plan.steps[0].edit?.op === 'patch' && plan.steps[0].edit.patch.startsWith('*** Begin Patch\n*** Update File: go.mod'));
    // The same call in another format is a plain command.
    assert.equal(buildPlan({ ...r, format: 'atif' }, { image: 'img' }).steps[0].kind, 'command');
  });

  it('a Windows cwd is not used (noted); an explicit workdir wins; the workspace copy is planned', () => {
    const steps = [makeStep(0, 'agent', { actions: [act({ command: 'dir' })] })];
    const win = buildPlan(session('claude-code', steps, 'C:\\Users\\me\\proj'), { image: 'img' });
    assert.equal(win.workdir, null);
    assert.match(win.notes![0], /C:\\Users\\me\\proj is not an absolute Linux path/);
    assert.equal(buildPlan(session('claude-code', steps), { image: 'img', workdir: '/app' }).workdir, '/app');
    const copy = buildPlan(session('claude-code', steps, '/home/me/proj/pkg'), { image: 'img', copyWorkspace: '/home/me/proj' });
    assert.deepEqual(copy.workspace, { hostDir: '/home/me/proj' });
    assert.deepEqual(copy.notes, []);
    assert.match(buildPlan(session('claude-code', steps, '/srv/x'), { image: 'img', copyWorkspace: '/home/me/proj' }).notes![0], /is not the session's cwd \/srv\/x nor above it/);
  });

  it('a Claude Code run_in_background command is planned as a background start with its log', () => {
    const r = session('claude-code', [makeStep(0, 'agent', { actions: [act({ command: 'npm run dev', tool: 'Bash', arguments: { command: 'npm run dev', run_in_background: true } })], observations: [out('Command running in background with ID: bash_1')] })]);
    const [s] = buildPlan(r, { image: 'img' }).steps;
    assert.equal(s.input, '{ npm run dev\n} > /tmp/.ti-replay/background-0-0.log 2>&1 &');
    assert.equal(s.background, '/tmp/.ti-replay/background-0-0.log');
    // The same arguments in another format are an ordinary command.
    assert.equal(buildPlan({ ...r, format: 'copilot-cli' }, { image: 'img' }).steps[0].input, 'npm run dev');
  });

  it('a session with nothing but edits can be replayed', () => {
    const r = session('claude-code', [makeStep(0, 'agent', { actions: [act({ kind: 'file_edit', tool: 'Write', edit: { op: 'write', path: '/w/a', content: 'a' } })] })]);
    assert.equal(buildPlan(r, { image: 'img' }).steps[0].replayable, true);
  });
});

describe('comparing a re-applied edit with the recording', () => {
  const plan = (editOutcome: 'applied' | 'failed' | 'rejected' | 'unknown') =>
    buildPlan(
      session('claude-code', [
        makeStep(0, 'agent', {
          actions: [act({ kind: 'file_edit', tool: 'Edit', callId: 'e', edit: { op: 'replace', path: '/w/x.py', edits: [{ oldText: 'a', newText: 'b', replaceAll: false }] } })],
          observations: editOutcome === 'unknown' ? [] : [out(editOutcome === 'applied' ? 'The file /w/x.py has been updated successfully.' : editOutcome === 'rejected' ? "The user doesn't want to proceed with this tool use." : 'String to replace not found in file.', { callId: 'e', isError: editOutcome !== 'applied' })],
        }),
      ]),
      { image: 'img' },
    );
  const applied: EditOutcome = { applied: true, summary: 'replaced 1 occurrence in /w/x.py', reason: null, changes: [{ path: '/w/x.py', before: 'a', after: 'b' }] };
  const notFound: EditOutcome = { applied: false, summary: 'old text not found in /w/x.py', reason: 'old text not found in /w/x.py', changes: [] };
  const verdict = async (rec: 'applied' | 'failed' | 'rejected' | 'unknown', o: EditOutcome) => {
    const c = await compareEdit(plan(rec), 0, o, { written: o.applied && rec !== 'failed' && rec !== 'rejected' });
    return [c.status, c.diffKind, c.summary, c.edit?.written];
  };

  it('same when both applied; differs with the reason when the recorded edit no longer applies', async () => {
    assert.deepEqual(await verdict('applied', applied), ['same', null, 'replaced 1 occurrence in /w/x.py', true]);
    assert.deepEqual(await verdict('unknown', applied), ['same', null, 'replaced 1 occurrence in /w/x.py', true]);
    assert.deepEqual(await verdict('applied', notFound), ['differs', 'edit', 'old text not found in /w/x.py', false]);
  });

  it('an edit the recording says failed: same when it fails again, differs (not written) when it applies now; a declined one is no divergence', async () => {
    assert.deepEqual(await verdict('failed', notFound), ['same', null, 'fails as recorded: old text not found in /w/x.py', false]);
    assert.deepEqual(await verdict('failed', applied), ['differs', 'edit', 'the recording says this edit failed; it applies now (not written): replaced 1 occurrence in /w/x.py', false]);
    assert.deepEqual(await verdict('rejected', applied), ['same', null, 'not applied: declined or interrupted in the recording (it would apply now: replaced 1 occurrence in /w/x.py)', false]);
  });

  it('the recorded text is kept for Show diff; the replayed side is the outcome', async () => {
    const c = await compareEdit(plan('applied'), 0, notFound);
    assert.equal(c.recorded.text, 'The file /w/x.py has been updated successfully.');
    assert.equal(c.replayed!.text, 'does not apply: old text not found in /w/x.py');
  });

  it('reasons a user can act on: a call whose arguments are not an object says so; a recording cut before its last result says so', async () => {
    const r = session('openhands' as FormatId, [
      makeStep(0, 'agent', { actions: [act({ kind: 'shell', command: 'ls', tool: 'bash', callId: 'a' })], observations: [out('x', { callId: 'a', exitCode: 0 })] }),
      makeStep(1, 'agent', { actions: [act({ kind: 'tool', tool: 'bash', callId: 'b', arguments: 'ls -la' }), act({ kind: 'tool', tool: 'bash', callId: 'c', arguments: ['ls'] })] }),
      makeStep(2, 'agent', { actions: [act({ kind: 'shell', command: 'make test', tool: 'bash', callId: 'd' })] }),
    ], '/app');
    const plan = buildPlan(r, { image: 'img' });
    assert.deepEqual(plan.steps.map((s) => [s.stepIndex, s.replayable, s.reason]), [
      [0, true, null],
      [1, false, 'arguments are not an object (a string): the call cannot be re-run'],
      [1, false, 'arguments are not an object (an array): the call cannot be re-run'],
      [2, true, null],
    ]);
    assert.equal(plan.steps[3].recorded.missing, true);
    assert.equal(plan.steps[0].recorded.missing, undefined);
    assert.ok(plan.notes!.includes('the recording ends without the result of its last call (step 3): it is replayed, its output has nothing to be compared with'), plan.notes!.join('\n'));
    const c = await compareStep(plan, 3, { output: 'ok', exitCode: 0, cwd: null, timedOut: false, capped: false, error: null });
    assert.equal(c.summary, 'output differs (line 1): the recording holds no result for this call (it ends before it)');
  });
});
