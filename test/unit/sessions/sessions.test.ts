/**
 * The Sessions list's core (src/core/sessions): heads, counts, listing, cache, on the real Claude
 * Code and Codex CLI sessions of ../shared/format-census (copied into a fake home with their cwd
 * rewritten, test/unit/sessions/fakeHome.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SessionCache } from '../../../src/core/sessions/cache';
import { outputExitCode } from '../../../src/core/sessions/codexScan';
import { countSession, listSessions, readSessionHead, sessionTitle } from '../../../src/core/sessions/list';
import { claudeProjectDirName, defaultSessionRoots, extraSessionRoots, isWithin, projectDirMatches } from '../../../src/core/sessions/roots';
import { commandText, requestText } from '../../../src/core/sessions/text';
import type { SessionEntry } from '../../../src/core/sessions/types';
import { censusFile, tmpDir } from '../samples';
import { makeFakeHome } from './fakeHome';

function facts(file: string) {
  const st = fs.statSync(file);
  return { path: file, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
}

async function headOf(rel: string) {
  const r = await readSessionHead(censusFile(rel), null);
  assert.ok(r, `${rel} is read as a session`);
  return r.head;
}

async function countsOf(file: string) {
  const r = await readSessionHead(file, null);
  assert.ok(r);
  return countSession(facts(file), r.head);
}

function jsonl(rel: string): any[] {
  return fs.readFileSync(censusFile(rel), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

describe('sessions: heads of the real files', () => {
  it('Claude Code: cwd, id, version, branch and start from the first records; the title is the first typed request', async () => {
    const h = await headOf('claude-code/short.jsonl');
    assert.equal(h.format, 'claude-code');
    assert.equal(h.cwd, '/home/marco/projects/spotter');
    assert.equal(h.sessionId, '55604662-cf2a-4331-851a-ec234028f8ca');
    assert.equal(h.cliVersion, '2.1.38');
    assert.equal(h.gitBranch, 'master');
    // The first record with a time is a SessionStart hook's progress record, before the prompt.
    assert.equal(h.startedAt, '2026-02-10T21:11:52.438Z');
    const firstUser = jsonl('claude-code/short.jsonl').find((r) => r.type === 'user');
    assert.equal(h.title, firstUser.message.content);
    assert.equal(h.title, 'mix phx.server doesnt seem to start');
    assert.equal(h.titleFrom, 'first-request');
    assert.equal(h.sidechain, false);

    const big = await headOf('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    assert.equal(big.title, 'Implement spotter-gqc');
    assert.equal(big.cwd, '/home/USER/projects/spotter-worktrees/spotter-gqc');
    assert.equal(big.startedAt, '2026-02-11T20:31:53.375Z');
    assert.equal(big.cliVersion, '2.1.39');
  });

  it('Claude Code 1.0.95: a multi-line first request becomes one line', async () => {
    const h = await headOf('claude-code/vibecodingtracker_claude_code.jsonl');
    const first = jsonl('claude-code/vibecodingtracker_claude_code.jsonl')[0];
    assert.equal(h.title, first.message.content.replace(/\s+/g, ' ').trim());
    assert.match(h.title!, /^幫我檢查一下 go\.mod 裡面 為何 go版本是 1\.23, toolchain 卻是 1\.24\? 請幫我統一成1\.23/);
    assert.equal(h.cwd, '/home/wei/repo/claude-code');
    assert.equal(h.startedAt, '2025-08-28T12:57:08.611Z');
  });

  it('a subagent transcript (isSidechain on its first message) is marked, not taken for a session', async () => {
    const h = await headOf('claude-code/258c7280_subagents_agent-a881341.jsonl');
    assert.equal(h.sidechain, true);
  });

  it('Codex CLI: session_meta gives id, cwd, start, version, origin, branch; the title is the first user_message', async () => {
    const h = await headOf('codex-cli/vibecodingtracker_codex.jsonl');
    assert.equal(h.format, 'codex-cli');
    assert.equal(h.sessionId, '01996135-afde-7911-97f0-d863511eca56');
    assert.equal(h.cwd, '/proj/ds906659/gai/claude-code');
    assert.equal(h.cwdFrom, 'record');
    assert.equal(h.startedAt, '2025-09-19T09:02:12.446Z');
    assert.equal(h.cliVersion, '0.39.0');
    assert.equal(h.origin, 'codex_vscode');
    assert.equal(h.gitBranch, 'main');
    // The IDE extension wraps the prompt ("# Context from my IDE setup: … ## My request for Codex:"); the title is the request.
    const ev = jsonl('codex-cli/vibecodingtracker_codex.jsonl').find((r) => r.payload?.type === 'user_message');
    assert.match(ev.payload.message, /^# Context from my IDE setup:/);
    const request = ev.payload.message.split('## My request for Codex:\n')[1];
    assert.equal(h.title, request.replace(/\s+/g, ' ').trim());

    const desk = await headOf('codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
    assert.equal(desk.title, '[REDACTED_MESSAGE len=516 sha=05857781]'); // the publisher redacted the text
    assert.equal(desk.origin, 'Codex Desktop');
    assert.equal(desk.cliVersion, '0.104.0-alpha.1');
    assert.equal(desk.startedAt, '2026-02-23T11:40:23.298Z');
  });

  it('reads only the head: a few KB of a 2.7 MB transcript', async () => {
    const h = await headOf('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    assert.ok(h.headBytes < 16 * 1024, `${h.headBytes} bytes`);
  });
});

describe('sessions: counts of the real files', () => {
  it('Claude Code short session: one turn (four streamed records of one message id), its two tool calls, both rejected', async () => {
    const file = censusFile('claude-code/short.jsonl');
    const c = await countsOf(file);
    const recs = jsonl('claude-code/short.jsonl');
    const ids = new Set(recs.filter((r) => r.type === 'assistant').map((r) => r.message.id));
    assert.deepEqual([...ids], ['msg_01MKH1ccEGrZGNPvu8pYiiQa']);
    assert.equal(c.turns, 1);
    const tools = recs.filter((r) => r.type === 'assistant').flatMap((r) => r.message.content).filter((b: any) => b.type === 'tool_use');
    assert.deepEqual(tools.map((t: any) => t.name), ['Bash', 'Glob']);
    assert.equal(c.toolCalls, 2);
    assert.equal(c.failedCommands, 2); // both tool_results: is_error true ("The user doesn't want to proceed…")
    // usage counted once for the message id: 3 input + 13835 cache creation + 11515 cache read, 13 output
    assert.deepEqual(c.tokens, { input: 3 + 13835 + 11515, output: 13, cached: 11515, total: 3 + 13835 + 11515 + 13 });
    assert.equal(c.lastActivityAt, '2026-02-10T21:16:12.381Z');
    assert.equal(c.badLines, 0);
    assert.equal(c.scannedBytes, fs.statSync(file).size);
  });

  it('Claude Code 2.7 MB session: 152 turns, 186 tool calls, 7 failed (5 shell exits, a missing file, a rejection)', async () => {
    const c = await countsOf(censusFile('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl'));
    assert.equal(c.turns, 152);
    assert.equal(c.toolCalls, 186);
    assert.equal(c.failedCommands, 7);
    assert.deepEqual(c.tokens, { input: 15121271, output: 38899, cached: 14771617, total: 15160170 });
  });

  it('Claude Code 1.0.95 session: 32 turns, 31 tool calls, 2 failed', async () => {
    const c = await countsOf(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'));
    assert.deepEqual([c.turns, c.toolCalls, c.failedCommands], [32, 31, 2]);
    assert.deepEqual(c.tokens, { input: 1192671, output: 3860, cached: 1093509, total: 1196531 });
  });

  it('a subagent transcript counts its own (sidechain) records', async () => {
    const c = await countsOf(censusFile('claude-code/258c7280_subagents_agent-a881341.jsonl'));
    assert.deepEqual([c.turns, c.toolCalls, c.failedCommands], [3, 2, 0]);
  });

  it('Codex CLI 0.104: a turn per model response (= its turn_context records), tool calls, tokens of the last token_count', async () => {
    const rel = 'codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';
    const recs = jsonl(rel);
    const c = await countsOf(censusFile(rel));
    assert.equal(c.turns, recs.filter((r) => r.type === 'turn_context').length);
    assert.equal(c.turns, 81);
    const calls = recs.filter((r) => r.type === 'response_item' && ['function_call', 'custom_tool_call', 'web_search_call'].includes(r.payload.type));
    assert.equal(c.toolCalls, calls.length);
    assert.equal(c.toolCalls, 105); // 82 exec_command + 22 apply_patch + 1 web search
    assert.equal(c.failedCommands, 0); // outputs redacted: no exit code recorded
    const last = recs.filter((r) => r.payload?.type === 'token_count' && r.payload.info).at(-1).payload.info.total_token_usage;
    assert.deepEqual(c.tokens, { input: last.input_tokens, output: last.output_tokens, cached: last.cached_input_tokens, total: last.total_tokens });
    assert.deepEqual(c.tokens, { input: 7204025, output: 36075, cached: 6836352, total: 7240100 });
  });

  it('Codex CLI 0.39 (VS Code): 19 turns, 19 tool calls, every shell exit code 0', async () => {
    const rel = 'codex-cli/vibecodingtracker_codex.jsonl';
    const c = await countsOf(censusFile(rel));
    assert.deepEqual([c.turns, c.toolCalls, c.failedCommands], [19, 19, 0]);
    const codes = jsonl(rel).filter((r) => r.payload?.type === 'function_call_output').map((r) => outputExitCode(r.payload.output));
    assert.ok(codes.filter((x) => x === 0).length >= 5, JSON.stringify(codes));
    assert.ok(codes.every((x) => x === 0 || x === null));
    assert.deepEqual(c.tokens, { input: 270530, output: 12551, cached: 136832, total: 283081 });
  });

  it('Codex: a non-zero exit code in an output counts as a failed command (the real output line, its exit code changed)', async () => {
    const dir = tmpDir('sessions-fail-');
    const text = fs.readFileSync(censusFile('codex-cli/vibecodingtracker_codex.jsonl'), 'utf8');
    const changed = text.replace('"metadata\\":{\\"exit_code\\":0', '"metadata\\":{\\"exit_code\\":2');
    assert.notEqual(changed, text);
    const f = path.join(dir, 'rollout.jsonl');
    fs.writeFileSync(f, changed);
    const c = await countsOf(f);
    assert.equal(c.failedCommands, 1);
    assert.equal(c.toolCalls, 19);
  });

  it('Codex exit codes are read from metadata or from the output header, never from the command output', () => {
    assert.equal(outputExitCode('{"output":"x","metadata":{"exit_code":101,"duration_seconds":0.1}}'), 101);
    assert.equal(outputExitCode('Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom'), 1);
    assert.equal(outputExitCode('Chunk ID: 5\nWall time: 0.0 seconds\nProcess exited with code 2\nOriginal token count: 3\nOutput:\nno'), 2);
    assert.equal(outputExitCode('Exit code: 0\nWall time: 1 seconds\nOutput:\nExit code: 1\n'), 0);
    assert.equal(outputExitCode('Plan updated'), null);
    assert.equal(outputExitCode({ metadata: { exit_code: 3 } }), 3);
  });
});

describe('sessions: titles', () => {
  it('keeps the user\'s words: wrapper blocks, interruptions, caveats and commands are not requests', () => {
    assert.equal(requestText('<ide_opened_file>The user opened src/a.ts</ide_opened_file>\nfix the bug'), 'fix the bug');
    assert.equal(requestText('<command-name>/clear</command-name>\n  <command-message>clear</command-message>\n  <command-args></command-args>'), null);
    assert.equal(commandText('<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>'), '/model opus');
    assert.equal(requestText('[Request interrupted by user for tool use]'), null);
    assert.equal(requestText('Caveat: The messages below were generated by the user while running local commands. DO NOT respond'), null);
    assert.equal(requestText('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'), null);
  });

  it('a summary of this session (its leaf is a record of the file) or a custom title wins over the first request; other sessions\' summaries do not', async () => {
    const dir = tmpDir('sessions-title-');
    const f = path.join(dir, 's.jsonl');
    const text = fs.readFileSync(censusFile('claude-code/short.jsonl'), 'utf8');
    const last = jsonl('claude-code/short.jsonl').at(-1);
    // Claude Code appends summaries of the project's other sessions to the transcript it writes (head and body).
    const other = '{"type":"summary","summary":"Conversation sync logic bug fix","leafUuid":"37ea360a-6c0a-4c25-980e-959ac3311815"}\n';
    fs.writeFileSync(f, other + text + other);
    let r = await readSessionHead(f, 'claude-code');
    let counts = await countSession(facts(f), r!.head);
    assert.deepEqual(sessionTitle({ head: r!.head, counts }), { title: 'mix phx.server doesnt seem to start', from: 'first-request' });
    fs.appendFileSync(f, `{"type":"summary","summary":"Phoenix server will not start","leafUuid":"${last.uuid}"}\n`);
    counts = await countSession(facts(f), r!.head);
    assert.deepEqual(sessionTitle({ head: r!.head, counts }), { title: 'Phoenix server will not start', from: 'summary' });
    fs.appendFileSync(f, '{"type":"custom-title","customTitle":"somebody else","sessionId":"00000000-0000-4000-8000-000000000000"}\n');
    fs.appendFileSync(f, '{"type":"custom-title","customTitle":"phx debugging","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca"}\n');
    counts = await countSession(facts(f), r!.head);
    assert.deepEqual(sessionTitle({ head: r!.head, counts }), { title: 'phx debugging', from: 'custom-title' });
    assert.deepEqual(sessionTitle({ head: r!.head, counts: null }), { title: 'mix phx.server doesnt seem to start', from: 'first-request' });
    // A resumed session's file that starts with the summary of the conversation it copies: matched once the leaf comes.
    fs.writeFileSync(f, `{"type":"summary","summary":"Phoenix server will not start","leafUuid":"${last.uuid}"}\n` + text);
    r = await readSessionHead(f, 'claude-code');
    counts = await countSession(facts(f), r!.head);
    assert.deepEqual(sessionTitle({ head: r!.head, counts }), { title: 'Phoenix server will not start', from: 'summary' });
  });

  it('a first record longer than the head budget still gives cwd and title (the start of the cut line)', async () => {
    const dir = tmpDir('sessions-long-');
    const recs = jsonl('claude-code/short.jsonl');
    const user = recs.find((r) => r.type === 'user');
    user.message.content = `paste: ${'x'.repeat(2 * 1024 * 1024)}`;
    const f = path.join(dir, 'long.jsonl');
    fs.writeFileSync(f, [recs[0], user].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = await readSessionHead(f, 'claude-code');
    assert.equal(r!.head.cwd, '/home/marco/projects/spotter');
    assert.match(r!.head.title!, /^paste: x{100}/);
    assert.ok(r!.head.title!.length <= 300);
    assert.ok(r!.head.headBytes <= 1024 * 1024);
  });

  it('Codex rollouts older than session_meta: cwd from the <environment_context> message, title from the first request', async () => {
    // The layout codex-rs wrote before the record envelope (bare header, state markers, bare items); no such real file is in the census.
    const dir = tmpDir('sessions-legacy-');
    const f = path.join(dir, 'rollout-2025-08-20T13-20-47-c27a914d.jsonl');
    fs.writeFileSync(f, [
      '{"id":"c27a914d-0000-4000-8000-000000000001","timestamp":"2025-08-20T13:20:47.060Z","instructions":null,"git":{"branch":"main"}}',
      '{"record_type":"state"}',
      '{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"<user_instructions>\\n\\n# AGENTS.md\\n</user_instructions>"}]}',
      '{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"<environment_context>\\n  <cwd>/home/u/proj</cwd>\\n  <approval_policy>on-request</approval_policy>\\n</environment_context>"}]}',
      '{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"index the pre-envelope rollouts"}]}',
      '{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"opaque"}',
      '{"type":"function_call","id":"fc_1","name":"shell","arguments":"{\\"command\\":[\\"false\\"]}","call_id":"call_1"}',
      '{"type":"function_call_output","call_id":"call_1","output":"{\\"output\\":\\"\\",\\"metadata\\":{\\"exit_code\\":1,\\"duration_seconds\\":0.0}}"}',
      '{"type":"message","id":null,"role":"assistant","content":[{"type":"output_text","text":"done"}]}',
    ].join('\n') + '\n');
    const r = await readSessionHead(f, null);
    assert.equal(r!.head.format, 'codex-cli');
    assert.equal(r!.head.cwd, '/home/u/proj');
    assert.equal(r!.head.cwdFrom, 'environment_context');
    assert.equal(r!.head.title, 'index the pre-envelope rollouts');
    assert.equal(r!.head.gitBranch, 'main');
    assert.equal(r!.head.startedAt, '2025-08-20T13:20:47.060Z');
    const c = await countSession(facts(f), r!.head);
    assert.deepEqual([c.turns, c.toolCalls, c.failedCommands], [2, 1, 1]);
  });
});

describe('sessions: finding and listing', () => {
  let home: string;
  let ws: string;
  let fake: ReturnType<typeof makeFakeHome>;
  before(() => {
    const tmp = tmpDir('sessions-home-');
    home = path.join(tmp, 'home');
    ws = path.join(tmp, 'work', 'my.project');
    fs.mkdirSync(ws, { recursive: true });
    fake = makeFakeHome(home, ws);
  });
  const roots = () => defaultSessionRoots({}, home);

  it('default roots: ~/.claude/projects and ~/.codex/sessions, or CLAUDE_CONFIG_DIR / CODEX_HOME', () => {
    assert.deepEqual(defaultSessionRoots({}, '/h').map((r) => [r.path, r.format, r.origin]), [
      ['/h/.claude/projects', 'claude-code', 'default'],
      ['/h/.codex/sessions', 'codex-cli', 'default'],
    ]);
    assert.deepEqual(defaultSessionRoots({ CLAUDE_CONFIG_DIR: '/cfg/claude', CODEX_HOME: '/cfg/codex' }, '/h').map((r) => [r.path, r.origin]), [
      ['/cfg/claude/projects', 'env'],
      ['/cfg/codex/sessions', 'env'],
    ]);
    assert.deepEqual(extraSessionRoots(['~/old/.codex/sessions', 'rel'], 'setting', '/base', '/h').map((r) => r.path), ['/h/old/.codex/sessions', '/base/rel']);
  });

  it('lists the sessions recorded in the folder or below it, newest first, and nothing else', async () => {
    const r = await listSessions({ roots: roots(), folders: [ws] });
    assert.equal(fake.inside.length, 6);
    assert.deepEqual(r.sessions.map((s) => s.head.sessionId), [
      '019c8bfe-ec25-79e0-97d7-bda6a9c575ff', // Codex Desktop, 2026-02-23 19:34
      '019c8a4c-ed82-79a1-aa28-7738fc5ab61a', // Codex Desktop, 2026-02-23 11:40
      '258c7280-ae70-4798-800f-63464d01a85d', // Claude Code 2.1.39, 2026-02-11
      '55604662-cf2a-4331-851a-ec234028f8ca', // Claude Code 2.1.38, 2026-02-10
      '01996135-afde-7911-97f0-d863511eca56', // Codex 0.39, 2025-09-19
      'e9f146fa-3b20-48d0-9be4-d99ca901cae4', // Claude Code 1.0.95 in sub/, 2025-08-28
    ]);
    assert.deepEqual(r.sessions.map((s) => s.head.cwd), [ws, ws, ws, ws, ws, path.join(ws, 'sub')]);
    assert.ok(!r.sessions.some((s) => s.path === fake.outside.path), 'the session recorded elsewhere is not listed');
    assert.ok(!r.sessions.some((s) => s.path.includes('subagents')), 'subagent transcripts are not sessions');
    assert.equal(r.files, 7); // 6 inside, 1 outside; the subagent's file is not walked into
    assert.equal(r.sessions[2].head.title, 'Implement spotter-gqc');
    assert.ok(r.sessions.every((s) => s.counts === null), 'no cache: counts come later');
  });

  it('a subfolder lists only what lies below it; a folder named like the project but elsewhere lists nothing', async () => {
    const r = await listSessions({ roots: roots(), folders: [path.join(ws, 'sub')] });
    assert.deepEqual(r.sessions.map((s) => s.head.sessionId), ['e9f146fa-3b20-48d0-9be4-d99ca901cae4']);
    // `my-project` encodes to the same Claude project folder name as `my.project`; the recorded cwd tells them apart.
    const twin = path.join(path.dirname(ws), 'my-project');
    assert.equal(claudeProjectDirName(twin), claudeProjectDirName(ws));
    assert.deepEqual((await listSessions({ roots: roots(), folders: [twin] })).sessions, []);
  });

  it('Claude project folder names only order the reading: a session under an odd folder name is still listed', async () => {
    const odd = path.join(home, '.claude', 'projects', 'renamed-by-hand');
    fs.mkdirSync(odd, { recursive: true });
    const p = path.join(odd, 'x.jsonl');
    fs.copyFileSync(fake.inside[0].path, p);
    try {
      assert.equal(projectDirMatches('renamed-by-hand', ws), false);
      const r = await listSessions({ roots: roots(), folders: [ws] });
      assert.ok(r.sessions.some((s) => s.path === p));
    } finally {
      fs.rmSync(odd, { recursive: true });
    }
  });

  it('first page: the newest sessions, before every file is read', async () => {
    let page = null as SessionEntry[] | null;
    const r = await listSessions({ roots: roots(), folders: [ws], pageSize: 2, concurrency: 1, onFirstPage: (p) => (page = p) });
    assert.ok(page);
    assert.deepEqual(page!.map((s) => s.head.sessionId), r.sessions.slice(0, 2).map((s) => s.head.sessionId));
  });

  it('the cache: a second listing reads no head; counts made once are returned unread for the same size and mtime', async () => {
    const cacheFile = path.join(tmpDir('sessions-cache-'), 'sessions.json');
    const cache = await SessionCache.load(cacheFile);
    const first = await listSessions({ roots: roots(), folders: [ws], cache });
    assert.equal(first.headsRead, 7);
    for (const s of first.sessions) await countSession(s, s.head, cache);
    await cache.save();
    const again = await SessionCache.load(cacheFile);
    const second = await listSessions({ roots: roots(), folders: [ws], cache: again });
    assert.equal(second.headsRead, 0);
    assert.deepEqual(second.sessions.map((s) => s.head), first.sessions.map((s) => s.head));
    const short = second.sessions.find((s) => s.head.sessionId === '55604662-cf2a-4331-851a-ec234028f8ca')!;
    assert.deepEqual([short.counts?.turns, short.counts?.toolCalls, short.counts?.failedCommands], [1, 2, 2]);
  });

  it('a session that grew is counted from where the last pass ended; a truncated last line waits for the rest', async () => {
    const dir = tmpDir('sessions-grow-');
    const f = path.join(dir, 'grow.jsonl');
    const text = fs.readFileSync(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'), 'utf8');
    const all = text.split('\n').filter(Boolean);
    const cut = 40;
    const half = all[cut].slice(0, Math.floor(all[cut].length / 2));
    fs.writeFileSync(f, all.slice(0, cut).join('\n') + '\n' + half);
    const cache = new SessionCache(null);
    const h = (await readSessionHead(f, 'claude-code'))!;
    cache.putHead(facts(f), h.head, h.done);
    const c1 = await countSession(facts(f), h.head, cache);
    assert.equal(c1.badLines, 0, 'the half-written line is not a bad line');
    assert.equal(c1.scannedBytes, Buffer.byteLength(all.slice(0, cut).join('\n') + '\n'));
    // Scramble an early assistant line (same length): a fresh pass would count it as a bad line, a resumed one never reads it.
    const bytes = fs.readFileSync(f);
    const at = bytes.indexOf('"type":"assistant"');
    bytes.fill('#'.charCodeAt(0), at, at + 18);
    fs.writeFileSync(f, bytes);
    fs.appendFileSync(f, all[cut].slice(half.length) + '\n' + all.slice(cut + 1).join('\n') + '\n');
    const c2 = await countSession(facts(f), h.head, cache);
    const full = await countsOf(censusFile('claude-code/vibecodingtracker_claude_code.jsonl'));
    assert.deepEqual([c2.turns, c2.toolCalls, c2.failedCommands, c2.tokens, c2.badLines], [full.turns, full.toolCalls, full.failedCommands, full.tokens, 0]);
    // A rewritten file (the bytes before the old end changed) is counted afresh.
    fs.writeFileSync(f, '#'.repeat(64) + text.slice(64));
    const c3 = await countSession(facts(f), h.head, cache);
    assert.equal(c3.badLines, 1);
  });

  it('isWithin: equal or below, never a sibling with the same prefix', () => {
    assert.equal(isWithin('/w/a', '/w/a'), true);
    assert.equal(isWithin('/w/a/b', '/w/a/'), true);
    assert.equal(isWithin('/w/ab', '/w/a'), false);
    assert.equal(isWithin('/anything', '/'), true);
  });
});
