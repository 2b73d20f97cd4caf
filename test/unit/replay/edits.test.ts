/**
 * Re-applying recorded file edits (src/core/replay/edits.ts): write / replace / unified diff /
 * other semantics, every failure reason, what a recording says about an edit, and the real Claude
 * Code edits of the census: each Edit / Write re-applied to the `originalFile` Claude Code
 * recorded gives the file its `structuredPatch` and its `cat -n` snippet show.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { applyPatch } from 'diff';
import type { FileEdit, Observation } from '../../../src/core/model';
import { applyFileEdit, editLabel, editNotReplayable, recordedEditOutcome } from '../../../src/core/replay/edits';
import { censusFile } from '../samples';
import { MemoryFs } from './memoryFs';

const replace = (path: string, ...edits: Array<[string, string, boolean?]>): FileEdit => ({ op: 'replace', path, edits: edits.map(([oldText, newText, replaceAll]) => ({ oldText, newText, replaceAll: !!replaceAll })) });
const obs = (output: string, o: Partial<Observation> = {}): Observation => ({ callId: null, output, exitCode: null, truncated: false, ...o }) as Observation;

describe('re-applying file edits', () => {
  it('write: creates a file with its folders, overwrites one, refuses a folder or a read-only place', async () => {
    const fs = new MemoryFs({ '/app/old.py': 'old\n' });
    assert.deepEqual(await applyFileEdit(fs, { op: 'write', path: 'pkg/new.py', content: 'a\nb\n' }, { cwd: '/app' }), {
      applied: true, summary: 'created /app/pkg/new.py (2 lines)', reason: null, changes: [{ path: '/app/pkg/new.py', before: null, after: 'a\nb\n' }],
    });
    assert.equal((await applyFileEdit(fs, { op: 'write', path: '/app/old.py', content: 'new' }, { cwd: '/' })).summary, 'overwrote /app/old.py (1 line)');
    assert.equal(fs.files.get('/app/old.py'), 'new');
    assert.equal((await applyFileEdit(fs, { op: 'write', path: '/app/pkg', content: 'x' }, { cwd: '/' })).reason, '/app/pkg is a directory');
    fs.readOnly.add('/ro');
    assert.equal((await applyFileEdit(fs, { op: 'write', path: '/ro/x', content: 'x' }, { cwd: '/' })).reason, "cannot write /ro/x: can't create /ro/x: Permission denied");
  });

  it('replace: exactly once unless replace-all, each failure with its reason', async () => {
    const fs = new MemoryFs({ '/app/x.py': 'a = 1\nb = 1\nc = 1\n' });
    const r = await applyFileEdit(fs, replace('/app/x.py', ['a = 1', 'a = 2']), { cwd: '/' });
    assert.equal(r.summary, 'replaced 1 occurrence in /app/x.py');
    assert.equal(fs.files.get('/app/x.py'), 'a = 2\nb = 1\nc = 1\n');
    assert.equal((await applyFileEdit(fs, replace('/app/x.py', ['zzz', 'y']), { cwd: '/' })).reason, 'old text not found in /app/x.py');
    assert.equal((await applyFileEdit(fs, replace('/app/x.py', [' = 1', ' = 0']), { cwd: '/' })).reason, 'old text found 2 times in /app/x.py (it must be unique unless replace-all)');
    assert.equal((await applyFileEdit(fs, replace('/app/x.py', [' = 1', ' = 0', true]), { cwd: '/' })).summary, 'replaced 2 occurrences in /app/x.py');
    assert.equal(fs.files.get('/app/x.py'), 'a = 2\nb = 0\nc = 0\n');
    assert.equal((await applyFileEdit(fs, replace('/app/none.py', ['a', 'b']), { cwd: '/' })).reason, 'file does not exist: /app/none.py');
    assert.equal((await applyFileEdit(fs, replace('/app', ['a', 'b']), { cwd: '/' })).reason, '/app is a directory');
    assert.equal((await applyFileEdit(fs, replace('/app/x.py', ['', 'b']), { cwd: '/' })).reason, 'the old text is empty but /app/x.py exists');
    // `$&` in the new text is literal text, not a regex replacement pattern.
    await applyFileEdit(fs, replace('/app/x.py', ['a = 2', 'a = "$&"']), { cwd: '/' });
    assert.equal(fs.files.get('/app/x.py')!.split('\n')[0], 'a = "$&"');
  });

  it('several replacements (MultiEdit) run in order on the text the previous left, all or nothing', async () => {
    const fs = new MemoryFs({ '/p/m.ts': 'let x = 1;\n' });
    const ok = await applyFileEdit(fs, replace('/p/m.ts', ['let x = 1;', 'let y = 1;'], ['let y', 'const y']), { cwd: '/' });
    assert.equal(ok.summary, 'replaced 2 occurrences (2 edits) in /p/m.ts');
    assert.equal(fs.files.get('/p/m.ts'), 'const y = 1;\n');
    const before = fs.log.length;
    const bad = await applyFileEdit(fs, replace('/p/m.ts', ['const y', 'let z'], ['nope', 'x']), { cwd: '/' });
    assert.equal(bad.reason, 'replacement 2 of 2: old text not found in /p/m.ts');
    assert.equal(fs.log.length, before);
    assert.equal(fs.files.get('/p/m.ts'), 'const y = 1;\n');
  });

  it('an empty old text creates a missing file; a CRLF file is matched as LF and stays CRLF', async () => {
    const fs = new MemoryFs({ '/w/crlf.txt': 'one\r\ntwo\r\n' });
    assert.equal((await applyFileEdit(fs, replace('new.txt', ['', 'hello\n']), { cwd: '/w' })).summary, 'created /w/new.txt (1 line)');
    assert.equal(fs.files.get('/w/new.txt'), 'hello\n');
    await applyFileEdit(fs, replace('/w/crlf.txt', ['one\ntwo', 'one\nTWO']), { cwd: '/' });
    assert.equal(fs.files.get('/w/crlf.txt'), 'one\r\nTWO\r\n');
  });

  it('a dry run reports the outcome and writes nothing', async () => {
    const fs = new MemoryFs({ '/a': 'x' });
    const r = await applyFileEdit(fs, replace('/a', ['x', 'y']), { cwd: '/', dryRun: true });
    assert.equal(r.applied, true);
    assert.deepEqual(r.changes, [{ path: '/a', before: 'x', after: 'y' }]);
    assert.deepEqual(fs.log, []);
  });

  it('unified diffs: several files, a new file, a deleted file; a hunk that does not match is named', async () => {
    const fs = new MemoryFs({ '/r/src/a.txt': 'one\ntwo\nthree\n', '/r/gone.txt': 'bye\n' });
    const diff = [
      '--- a/src/a.txt', '+++ b/src/a.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+TWO', ' three',
      '--- /dev/null', '+++ b/src/new.txt', '@@ -0,0 +1,1 @@', '+fresh',
      '--- a/gone.txt', '+++ /dev/null', '@@ -1,1 +0,0 @@', '-bye', '',
    ].join('\n');
    const r = await applyFileEdit(fs, { op: 'patch', path: 'src/a.txt', patch: diff, dialect: 'unified' }, { cwd: '/r' });
    assert.equal(r.summary, 'patched M /r/src/a.txt, A /r/src/new.txt, D /r/gone.txt');
    assert.deepEqual(Object.fromEntries(fs.files), { '/r/src/a.txt': 'one\nTWO\nthree\n', '/r/src/new.txt': 'fresh\n' });
    const two = ['--- a/src/a.txt', '+++ b/src/a.txt', '@@ -1,2 +1,2 @@', ' one', '-TWO', '+2', '@@ -3,1 +3,1 @@', '-nothing here', '+x', ''].join('\n');
    const bad = await applyFileEdit(fs, { op: 'patch', path: null, patch: two, dialect: 'unified' }, { cwd: '/r' });
    assert.equal(bad.reason, 'patch hunk 2 (@@ -3,1 +3,1 @@) does not match /r/src/a.txt');
    assert.equal(fs.files.get('/r/src/a.txt'), 'one\nTWO\nthree\n');
    assert.equal((await applyFileEdit(fs, { op: 'patch', path: null, patch: 'hello', dialect: 'unified' }, { cwd: '/r' })).reason, 'the unified diff has no hunks');
  });

  it("a diff without file headers (Codex's patch_apply_end changes) patches the edit's file, or creates it", async () => {
    // The shapes of codex-cli's `changes.<path>.unified_diff`, real census values.
    const rows = fs.readFileSync(censusFile('codex-cli/vibecodingtracker_codex.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const changes = rows.find((r) => r.payload?.type === 'patch_apply_end' && r.payload.success).payload.changes as Record<string, { type: string; unified_diff: string }>;
    const [notes, version] = Object.keys(changes);
    const mem = new MemoryFs({ [version]: 'package core\n\nconst Version = "1.24.0"\n' });
    const add = await applyFileEdit(mem, { op: 'patch', path: notes, patch: changes[notes].unified_diff, dialect: 'unified' }, { cwd: '/' });
    assert.equal(add.summary, `patched A ${notes}`);
    assert.equal(mem.files.get(notes), '# Release Notes\n\nApplied via exec apply_patch cell.\n');
    // The update's hunk header counts 4 old lines but shows 3: the diff is malformed, and says so.
    const upd = await applyFileEdit(mem, { op: 'patch', path: version, patch: changes[version].unified_diff, dialect: 'unified' }, { cwd: '/' });
    assert.match(upd.reason!, /^invalid unified diff: /);
    const ok = await applyFileEdit(mem, { op: 'patch', path: version, patch: '@@ -1,3 +1,3 @@\n package core\n \n-const Version = "1.24.0"\n+const Version = "1.24"\n', dialect: 'unified' }, { cwd: '/' });
    assert.equal(ok.summary, `patched M ${version}`);
    assert.equal(mem.files.get(version), 'package core\n\nconst Version = "1.24"\n');
  });

  it('other edits and Windows paths are not replayable, with the reason', async () => {
    const other: FileEdit = { op: 'other', path: '/n.ipynb', reason: 'NotebookEdit: the notebook is not in the record' };
    assert.equal(editNotReplayable(other), 'NotebookEdit: the notebook is not in the record');
    assert.equal(editNotReplayable({ op: 'write', path: 'C:\\Users\\me\\x.py', content: '' }), 'C:\\Users\\me\\x.py is a Windows path (replay runs in a Linux container)');
    assert.equal(editNotReplayable({ op: 'write', path: '/x.py', content: '' }), null);
    assert.equal((await applyFileEdit(new MemoryFs(), other, { cwd: '/' })).applied, false);
    assert.equal(editLabel(replace('/app/x.py', ['a', 'b'])), '✎ edit /app/x.py (replace)');
    assert.equal(editLabel({ op: 'patch', path: 'a.txt', patch: '', dialect: 'codex' }), '✎ edit a.txt (apply_patch)');
  });
});

describe('what a recording says about an edit', () => {
  it('reads success and failure from flags, exit codes and editor texts, not the text itself', () => {
    assert.equal(recordedEditOutcome(undefined), 'unknown');
    assert.equal(recordedEditOutcome(obs('The file /a has been updated successfully.')), 'applied');
    assert.equal(recordedEditOutcome(obs('Success. Updated the following files:\nM go.mod\n', { exitCode: 0 })), 'applied');
    assert.equal(recordedEditOutcome(obs('<tool_use_error>String to replace not found in file.</tool_use_error>', { isError: true })), 'failed');
    assert.equal(recordedEditOutcome(obs('String to replace not found in file.\nString: foo')), 'failed');
    assert.equal(recordedEditOutcome(obs('patch rejected: empty patch')), 'failed');
    assert.equal(recordedEditOutcome(obs('apply_patch verification failed: Failed to find expected lines in /x')), 'failed');
    assert.equal(recordedEditOutcome(obs('whatever', { exitCode: 1 })), 'failed');
    // Codex's output header left in the text by a loader: its exit code counts.
    assert.equal(recordedEditOutcome(obs('Exit code: 1\nWall time: 0 seconds\nOutput:\nFailed to find expected lines in /w/a.py')), 'failed');
    assert.equal(recordedEditOutcome(obs('Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM a.py')), 'applied');
    assert.equal(recordedEditOutcome(obs('', { interrupted: true })), 'rejected');
  });

  it('the real Claude Code results of the census: a declined Edit is rejected, the next one applied', () => {
    const rows = fs.readFileSync(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const results = rows.flatMap((r) => (Array.isArray(r.message?.content) ? r.message.content : [])).filter((b: any) => b.type === 'tool_result');
    const uses = new Map(rows.flatMap((r) => (Array.isArray(r.message?.content) ? r.message.content : [])).filter((b: any) => b.type === 'tool_use').map((b: any) => [b.id, b]));
    const edits = results.filter((b: any) => uses.get(b.tool_use_id)?.name === 'Edit');
    const text = (b: any) => (typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text ?? '').join('\n'));
    assert.deepEqual(edits.map((b: any) => recordedEditOutcome(obs(text(b), { isError: b.is_error === true }))), ['rejected', 'applied', 'applied']);
    assert.deepEqual(edits.map((b: any) => uses.get(b.tool_use_id).input.file_path), ['/home/wei/repo/claude-code/go.mod', '/home/wei/repo/claude-code/go.mod', '/home/wei/repo/claude-code/.python-version']);
  });
});

describe('real Claude Code edits (census): re-applied to the recorded originalFile', () => {
  /** Every Edit / Write with its tool result and toolUseResult, in file order. */
  function claudeEdits(rel: string) {
    const uses = new Map<string, any>();
    const out: Array<{ name: string; input: any; result: any; tur: any }> = [];
    for (const line of fs.readFileSync(censusFile(rel), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      for (const b of Array.isArray(r.message?.content) ? r.message.content : []) {
        if (b.type === 'tool_use') uses.set(b.id, b);
        const u = b.type === 'tool_result' ? uses.get(b.tool_use_id) : undefined;
        if (u && (u.name === 'Edit' || u.name === 'Write') && r.toolUseResult && typeof r.toolUseResult === 'object') out.push({ name: u.name, input: u.input, result: b, tur: r.toolUseResult });
      }
    }
    return out;
  }
  const toEdit = (e: { name: string; input: any }): FileEdit =>
    e.name === 'Write' ? { op: 'write', path: e.input.file_path, content: e.input.content } : replace(e.input.file_path, [e.input.old_string, e.input.new_string, e.input.replace_all]);
  /** The `cat -n` snippet of an Edit's result text: line number → text. */
  const snippet = (b: any) => {
    const text = typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text ?? '').join('\n');
    return [...text.matchAll(/^\s*(\d+)→(.*)$/gm)].map((m) => [Number(m[1]), m[2]] as const);
  };

  for (const rel of ['claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl', 'claude-code/vibecodingtracker_claude_code.jsonl']) {
    it(`${rel}: every applied Edit and Write gives the file Claude Code's structuredPatch and result snippet show`, async () => {
      const edits = claudeEdits(rel).filter((e) => e.tur.originalFile !== undefined || e.name === 'Write');
      assert.ok(edits.length >= 5, `${edits.length} edits`);
      let viaPatch = 0;
      let viaSnippet = 0;
      for (const e of edits) {
        const path = e.input.file_path as string;
        const mem = new MemoryFs(typeof e.tur.originalFile === 'string' ? { [path]: e.tur.originalFile } : {});
        const r = await applyFileEdit(mem, toEdit(e), { cwd: '/' });
        assert.equal(r.applied, true, `${path}: ${r.reason}`);
        const after = mem.files.get(path)!;
        const expected = typeof e.tur.originalFile === 'string' && Array.isArray(e.tur.structuredPatch) ? applyPatch(e.tur.originalFile, { hunks: e.tur.structuredPatch } as never) : false;
        if (expected !== false) {
          assert.equal(after, expected, path);
          viaPatch++;
        }
        const lines = after.split('\n');
        for (const [n, text] of snippet(e.result)) assert.equal(lines[n - 1], text, `${path}:${n}`);
        if (snippet(e.result).length) viaSnippet++;
        if (e.name === 'Write') assert.equal(after, e.input.content);
      }
      assert.ok(viaPatch + viaSnippet > 0);
    });
  }

  it('the go.mod Edit of vibecodingtracker_claude_code.jsonl: "go 1.23.0 … toolchain" becomes "go 1.23", lines 1-7 as Claude Code printed them', async () => {
    const e = claudeEdits('claude-code/vibecodingtracker_claude_code.jsonl').find((x) => x.tur.originalFile && x.input.file_path.endsWith('go.mod'))!;
    const mem = new MemoryFs({ [e.input.file_path]: e.tur.originalFile });
    assert.equal((await applyFileEdit(mem, toEdit(e), { cwd: '/' })).summary, 'replaced 1 occurrence in /home/wei/repo/claude-code/go.mod');
    assert.deepEqual(mem.files.get(e.input.file_path)!.split('\n').slice(0, 5), ['module claude-code-helper', '', 'go 1.23', '', 'require (']);
    assert.deepEqual(snippet(e.result).map(([n]) => n), [1, 2, 3, 4, 5, 6, 7]);
  });
});
