/**
 * Codex apply_patch (src/core/replay/applyPatch.ts): the grammar and Codex's lenient parsing, the
 * matching passes of seek_sequence, how an Update File is computed, verification before writing,
 * how a shell command is recognised as an apply_patch call, and the real patches of a Codex CLI
 * session in the census (vibecodingtracker_codex.jsonl: `applypatch << 'PATCH'` shell calls),
 * re-applied to the files the same session printed, checked against what a later command in that
 * session saw.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  applyCodexPatch,
  findPatchInvocation,
  heredocInvocation,
  parsePatch,
  PatchApplyError,
  PatchParseError,
  seekSequence,
  updatedContent,
} from '../../../src/core/replay/applyPatch';
import { censusFile } from '../samples';
import { MemoryFs } from './memoryFs';

const wrap = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

async function rejects(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: Error) => {
    assert.match(e.message, re);
    return true;
  });
}

describe('apply_patch parser (codex-rs/apply-patch/src/parser.rs)', () => {
  it('reads add, delete and update-with-move hunks, their paths and lines', () => {
    const hunks = parsePatch(wrap('*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123'));
    assert.deepEqual(hunks, [
      { type: 'add', path: 'path/add.py', contents: 'abc\ndef\n', line: 2 },
      { type: 'delete', path: 'path/delete.py', line: 5 },
      { type: 'update', path: 'path/update.py', movePath: 'path/update2.py', line: 6, chunks: [{ context: 'def f():', oldLines: ['    pass'], newLines: ['    return 123'], endOfFile: false, line: 8 }] },
    ]);
  });

  it('is lenient like Codex: padded markers, a heredoc wrapper, a first chunk without @@, blank lines as empty context', () => {
    assert.deepEqual(parsePatch('*** Begin Patch \n  *** Update File: foo.txt\n@@\n-old\n+new\n *** End Patch\n').map((h) => h.path), ['foo.txt']);
    const heredoc = parsePatch("<<'EOF'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nEOF\n");
    assert.deepEqual(heredoc, [{ type: 'add', path: 'foo', contents: 'hi\n', line: 3 }]);
    const [u] = parsePatch(wrap('*** Update File: file2.py\n import foo\n+bar'));
    assert.deepEqual(u.type === 'update' && u.chunks[0], { context: null, oldLines: ['import foo'], newLines: ['import foo', 'bar'], endOfFile: false, line: 3 });
    const [v] = parsePatch(wrap('*** Update File: a.txt\n@@\n one\n\n-two\n+2\n*** End of File'));
    assert.deepEqual(v.type === 'update' && v.chunks[0], { context: null, oldLines: ['one', '', 'two'], newLines: ['one', '', '2'], endOfFile: true, line: 3 });
    // Windows line ends in the patch text are dropped as Rust's lines() does.
    assert.deepEqual(parsePatch('*** Begin Patch\r\n*** Add File: w.txt\r\n+x\r\n*** End Patch\r\n'), [{ type: 'add', path: 'w.txt', contents: 'x\n', line: 2 }]);
  });

  it('an update with two @@ chunks, the second after a context line', () => {
    const [u] = parsePatch(wrap('*** Update File: multi.txt\n@@\n foo\n-bar\n+BAR\n@@ baz\n-qux\n+QUX'));
    assert.ok(u.type === 'update');
    assert.deepEqual(u.chunks.map((c) => [c.context, c.oldLines, c.newLines]), [
      [null, ['foo', 'bar'], ['foo', 'BAR']],
      ['baz', ['qux'], ['QUX']],
    ]);
  });

  it('rejects bad patches with Codex\'s messages and the line', () => {
    const bad = (text: string, re: RegExp, line: number | null) =>
      assert.throws(() => parsePatch(text), (e: PatchParseError) => {
        assert.ok(e instanceof PatchParseError);
        assert.match(e.message, re);
        assert.equal(e.line, line);
        return true;
      });
    bad('bad', /The first line of the patch must be '\*\*\* Begin Patch'/, null);
    bad('*** Begin Patch\nbad', /The last line of the patch must be '\*\*\* End Patch'/, null);
    bad(wrap('*** Update File: test.py'), /Update file hunk for path 'test.py' is empty/, 2);
    bad(wrap('*** Frobnicate File: foo'), /'\*\*\* Frobnicate File: foo' is not a valid hunk header/, 2);
    bad(wrap('*** Add File: a\n+x\n*** Update File: b\n@@\n-y\n+z\nnot a diff line'), /Expected update hunk to start with a @@ context marker, got: 'not a diff line'/, 8);
    bad(wrap('*** Update File: b\n@@\n!oops'), /Unexpected line found in update hunk: '!oops'/, 4);
    bad(wrap('*** Update File: b\n@@'), /Update hunk does not contain any lines/, 4);
    assert.deepEqual(parsePatch(wrap('').replace('\n\n', '\n')), []);
  });
});

describe('apply_patch matching and updates (seek_sequence.rs, lib.rs)', () => {
  it('seeks exact, then without trailing whitespace, then trimmed, then with ASCII punctuation; End of File looks at the end first', () => {
    assert.equal(seekSequence(['foo', 'bar', 'baz'], ['bar', 'baz'], 0, false), 1);
    assert.equal(seekSequence(['foo   ', 'bar\t\t'], ['foo', 'bar'], 0, false), 0);
    assert.equal(seekSequence(['    foo   ', '   bar\t'], ['foo', 'bar'], 0, false), 0);
    assert.equal(seekSequence(['a \u2014 b \u201Cq\u201D'], ['a - b "q"'], 0, false), 0);
    assert.equal(seekSequence(['x', 'y', 'x', 'y'], ['x', 'y'], 0, true), 2);
    assert.equal(seekSequence(['x', 'y', 'x', 'y'], ['x', 'y'], 1, false), 2);
    assert.equal(seekSequence(['just one line'], ['too', 'many'], 0, false), -1);
    // An exact match later in the file wins over a looser one earlier.
    assert.equal(seekSequence(['foo ', 'foo'], ['foo'], 0, false), 1);
  });

  it('computes new contents: chunks in order, pure additions at the end, a final newline always', () => {
    const chunks = (body: string) => {
      const [u] = parsePatch(wrap(`*** Update File: f\n${body}`));
      return u.type === 'update' ? u.chunks : [];
    };
    assert.equal(updatedContent('foo\nbar\nbaz\nqux\n', '/f', chunks('@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX')), 'foo\nBAR\nbaz\nQUX\n');
    assert.equal(updatedContent('line1\nline2\n', '/f', chunks('@@\n+added line 1\n+added line 2')), 'line1\nline2\nadded line 1\nadded line 2\n');
    assert.equal(updatedContent('a\nb\nc\n', '/f', chunks('@@\n a\n-b\n c')), 'a\nc\n');
    assert.equal(updatedContent('no newline at end', '/f', chunks('@@\n-no newline at end\n+first line\n+second line')), 'first line\nsecond line\n');
    assert.equal(updatedContent('first\nsecond\n', '/f', chunks('@@\n first\n-second\n+second updated\n*** End of File')), 'first\nsecond updated\n');
    // A chunk's context line narrows where it applies (the second `x` is after `def g():`).
    assert.equal(updatedContent('def f():\n    x\ndef g():\n    x\n', '/f', chunks('@@ def g():\n-    x\n+    y')), 'def f():\n    x\ndef g():\n    y\n');
    // A CRLF file stays CRLF.
    assert.equal(updatedContent('a\r\nb\r\n', '/f', chunks('@@\n-b\n+B')), 'a\r\nB\r\n');
  });

  it('says which hunk does not match, and where', () => {
    const [u] = parsePatch(wrap('*** Update File: f\n@@\n-a\n+A\n@@ def nope():\n-b\n+B'));
    assert.ok(u.type === 'update');
    assert.throws(() => updatedContent('a\nb\n', '/app/f', u.chunks), (e: Error) => e.message === 'patch hunk 2 (@@ def nope():) does not match /app/f: context line "def nope():" not found');
    const [w] = parsePatch(wrap('*** Update File: f\n@@\n-a\n+A\n@@\n-zzz\n+Z'));
    assert.ok(w.type === 'update');
    assert.throws(() => updatedContent('a\nb\n', '/app/f', w.chunks), (e: Error) => {
      assert.ok(e instanceof PatchApplyError);
      assert.equal(e.message, 'patch hunk 2 does not match /app/f: expected lines not found after line 1: "zzz"');
      return true;
    });
  });
});

describe('applying a Codex patch to files', () => {
  it('adds (with parent folders, over an existing file), deletes, updates and moves, relative to the cwd', async () => {
    const fs = new MemoryFs({ '/w/modify.txt': 'line1\nline2\n', '/w/delete.txt': 'obsolete\n', '/w/dup.txt': 'old\n', '/w/old/name.txt': 'from\n' });
    const r = await applyCodexPatch(
      fs,
      wrap('*** Add File: nested/new.txt\n+created\n*** Add File: dup.txt\n+new\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+to'),
      '/w',
    );
    assert.deepEqual(r.summary, ['A /w/nested/new.txt', 'A /w/dup.txt', 'D /w/delete.txt', 'M /w/modify.txt', 'M /w/renamed/dir/name.txt']);
    assert.deepEqual(Object.fromEntries(fs.files), { '/w/modify.txt': 'line1\nchanged\n', '/w/dup.txt': 'new\n', '/w/nested/new.txt': 'created\n', '/w/renamed/dir/name.txt': 'to\n' });
    assert.deepEqual(r.changes.find((c) => c.path === '/w/renamed/dir/name.txt'), { path: '/w/renamed/dir/name.txt', before: 'from\n', after: 'to\n', movedFrom: '/w/old/name.txt' });
  });

  it('verifies every hunk first: a failing one leaves every file as it was', async () => {
    const fs = new MemoryFs({ '/w/a.txt': 'a\n' });
    await rejects(applyCodexPatch(fs, wrap('*** Add File: created.txt\n+x\n*** Update File: a.txt\n@@\n-missing\n+y'), '/w'), /^patch hunk 1 does not match \/w\/a.txt: expected lines not found: "missing"$/);
    assert.deepEqual(fs.log, []);
    await rejects(applyCodexPatch(fs, wrap('*** Delete File: gone.txt'), '/w'), /^Delete File: file does not exist: \/w\/gone.txt$/);
    await rejects(applyCodexPatch(fs, wrap('*** Update File: nope.txt\n@@\n-a\n+b'), '/w'), /^Update File: file does not exist: \/w\/nope.txt$/);
    fs.mkdir('/w/dir');
    await rejects(applyCodexPatch(fs, wrap('*** Delete File: dir'), '/w'), /^Delete File: \/w\/dir is a directory$/);
    await rejects(applyCodexPatch(fs, '*** Begin Patch\n*** End Patch', '/w'), /changes nothing/);
    await rejects(applyCodexPatch(fs, 'not a patch', '/w'), /^invalid patch: The first line/);
    assert.deepEqual(fs.log, []);
  });

  it('a dry run computes the changes and writes nothing; absolute paths ignore the cwd', async () => {
    const fs = new MemoryFs({ '/abs/f.py': 'x = 1\n' });
    const r = await applyCodexPatch(fs, wrap('*** Update File: /abs/f.py\n@@\n-x = 1\n+x = 2'), '/elsewhere', true);
    assert.deepEqual(r.changes, [{ path: '/abs/f.py', before: 'x = 1\n', after: 'x = 2\n' }]);
    assert.deepEqual(fs.log, []);
  });

  it('a write that fails part-way names the file and what was already applied', async () => {
    const fs = new MemoryFs({ '/w/a': 'a\n' });
    fs.readOnly.add('/w/ro');
    await rejects(applyCodexPatch(fs, wrap('*** Update File: a\n@@\n-a\n+A\n*** Add File: ro/x\n+x'), '/w'), /^Add File \/w\/ro\/x: can't create \/w\/ro\/x: Permission denied \(already applied: M \/w\/a\)$/);
  });
});

describe('recognising apply_patch in a shell command (lib.rs maybe_parse_apply_patch)', () => {
  const script = (prefix: string, suffix = '') => `${prefix}apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nPATCH${suffix}`;
  const body = '*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch';

  it('accepts the literal, bash -lc / -c heredoc, applypatch, and cd DIR && forms', () => {
    assert.deepEqual(findPatchInvocation(['apply_patch', body]), { patch: body, workdir: null });
    assert.deepEqual(findPatchInvocation(['applypatch', body]), { patch: body, workdir: null });
    assert.deepEqual(findPatchInvocation(['bash', '-lc', script('')]), { patch: body, workdir: null });
    assert.deepEqual(findPatchInvocation(['/bin/sh', '-c', script('')]), { patch: body, workdir: null });
    assert.deepEqual(findPatchInvocation(['bash', '-lc', script('cd foo && ')]), { patch: body, workdir: 'foo' });
    assert.deepEqual(findPatchInvocation(['bash', '-lc', script("cd 'foo bar' && ")]), { patch: body, workdir: 'foo bar' });
    assert.deepEqual(findPatchInvocation(['bash', '-lc', script('cd "foo bar" && ')]), { patch: body, workdir: 'foo bar' });
    assert.deepEqual(heredocInvocation('apply_patch << EOF\n*** Begin Patch\n*** End Patch\nEOF\n'), { patch: '*** Begin Patch\n*** End Patch', workdir: null });
    assert.deepEqual(findPatchInvocation(script('')), { patch: body, workdir: null });
  });

  it('rejects what Codex does not take as apply_patch', () => {
    for (const s of [script('cd foo; '), script('cd bar || '), script('cd bar | '), script('echo foo && '), script('cd foo && cd bar && '), script('cd foo bar && '), script('cd bar && ', ' && echo done'), script('echo foo; cd bar && ')]) {
      assert.equal(findPatchInvocation(['bash', '-lc', s]), null, s);
    }
    assert.equal(findPatchInvocation(['bash', '-lc', "apply_patch foo <<'PATCH'\n*** Begin Patch\n*** End Patch\nPATCH"]), null);
    assert.equal(findPatchInvocation(['python', '-c', script('')]), null);
    assert.equal(findPatchInvocation('ls -la'), null);
  });
});

/** The census's Codex CLI session: its records, with call outputs by call id. */
function codexSession() {
  const rows = fs.readFileSync(censusFile('codex-cli/vibecodingtracker_codex.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const outputs = new Map<string, string>();
  for (const r of rows) {
    if (r.payload?.type !== 'function_call_output') continue;
    const o = r.payload.output;
    try {
      outputs.set(r.payload.call_id, JSON.parse(o).output);
    } catch {
      outputs.set(r.payload.call_id, o);
    }
  }
  const calls = rows.filter((r) => r.payload?.type === 'function_call' && r.payload.name === 'shell').map((r) => ({ argv: JSON.parse(r.payload.arguments).command as string[], output: outputs.get(r.payload.call_id) ?? '' }));
  const cwd = rows.find((r) => r.type === 'session_meta').payload.cwd as string;
  return { calls, cwd };
}

describe('real Codex CLI patches (census vibecodingtracker_codex.jsonl)', () => {
  it('finds the five applypatch calls among the shell calls, in order, with their files', () => {
    const { calls } = codexSession();
    const patches = calls.map((c) => findPatchInvocation(c.argv)).filter((p) => p !== null);
    assert.deepEqual(patches.map((p) => parsePatch(p!.patch).map((h) => `${h.type} ${h.path}`)), [['update go.mod'], ['update README.zh-TW.md'], ['update README.zh-CN.md'], [], ['update .python-version']]);
    const [goMod] = parsePatch(patches[0]!.patch);
    assert.ok(goMod.type === 'update');
    assert.deepEqual(goMod.chunks, [{ context: null, oldLines: ['module claude-code-helper', '', 'go 1.24.0'], newLines: ['module claude-code-helper', '', 'go 1.24'], endOfFile: false, line: 3 }]);
    // The other shell calls are not patches (sed, rg, rm …).
    assert.equal(findPatchInvocation(calls.find((c) => c.argv[2].startsWith('sed -n'))!.argv), null);
  });

  it('re-applied to the README the session printed, the patch puts the line the session grepped later at line 167', async () => {
    const { calls, cwd } = codexSession();
    const rg = calls.find((c) => c.argv[2].startsWith('rg -n "go [0-9]'))!.output;
    for (const [name, expectAt167] of [
      ['README.zh-TW.md', /^README\.zh-TW\.md:167:(.*)$/m],
      ['README.zh-CN.md', /^README\.zh-CN\.md:167:(.*)$/m],
    ] as const) {
      const printed = calls.find((c) => c.argv[2] === `sed -n '1,160p' ${name}`)!.output;
      const patch = calls.map((c) => findPatchInvocation(c.argv)).find((p) => p && p.patch.includes(`*** Update File: ${name}`))!;
      const mem = new MemoryFs({ [`${cwd}/${name}`]: printed });
      const r = await applyCodexPatch(mem, patch.patch, cwd);
      assert.deepEqual(r.summary, [`M ${cwd}/${name}`]);
      const lines = mem.files.get(`${cwd}/${name}`)!.split('\n');
      assert.equal(lines[166], expectAt167.exec(rg)![1]);
      assert.ok(lines.length > 167);
    }
  });

  it('re-applied to go.mod (its recorded old lines), gives the "go 1.24" the session grepped at go.mod:3; the no-op .python-version patch keeps 3.10', async () => {
    const { calls, cwd } = codexSession();
    const patches = calls.map((c) => findPatchInvocation(c.argv)).filter((p) => p !== null);
    const mem = new MemoryFs({ [`${cwd}/go.mod`]: 'module claude-code-helper\n\ngo 1.24.0\n', [`${cwd}/.python-version`]: '3.10\n' });
    await applyCodexPatch(mem, patches[0]!.patch, cwd);
    const rg = calls.find((c) => c.argv[2].startsWith('rg -n "go [0-9]'))!.output;
    assert.equal(mem.files.get(`${cwd}/go.mod`)!.split('\n')[2], /^go\.mod:3:(.*)$/m.exec(rg)![1]);
    await applyCodexPatch(mem, patches[4]!.patch, cwd);
    assert.equal(mem.files.get(`${cwd}/.python-version`), '3.10\n');
    // The empty patch Codex rejected ("patch rejected: empty patch") is rejected here too.
    assert.equal(calls.find((c) => c.argv[2].includes('*** Begin Patch\n*** End Patch'))!.output, 'patch rejected: empty patch');
    await rejects(applyCodexPatch(mem, patches[3]!.patch, cwd), /changes nothing/);
  });
});
