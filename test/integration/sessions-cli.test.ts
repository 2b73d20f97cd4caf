/**
 * `trajectory-inspector sessions` (dist/cli.js) as a user runs it: a child process with HOME set to
 * a fake home that holds the real census sessions (test/unit/sessions/fakeHome.ts), their cwd
 * rewritten to a temp workspace. Needs `npm run build` first.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, censusFile, tmpDir } from '../unit/samples';
import { makeFakeHome } from '../unit/sessions/fakeHome';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

function run(args: string[], env: Record<string, string>, cwd = REPO_ROOT) {
  const e: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete e.CLAUDE_CONFIG_DIR;
  delete e.CODEX_HOME;
  Object.assign(e, env);
  const r = spawnSync(process.execPath, [CLI, 'sessions', ...args], { encoding: 'utf8', env: e, cwd, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI sessions (dist/cli.js)', function () {
  // Each test starts CLI processes one after another: on 2 busy shared cores one start can take
  // seconds, so the test gets the time a loaded machine needs (each process has its own timeout).
  this.timeout(180_000);
  let home: string;
  let ws: string;
  before(() => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    const tmp = tmpDir('sessions-cli-');
    home = path.join(tmp, 'home');
    ws = path.join(tmp, 'work', 'proj');
    fs.mkdirSync(ws, { recursive: true });
    makeFakeHome(home, ws);
  });

  it('--cwd DIR --json lists the sessions of DIR from $HOME\'s default roots, with their real titles, starts and counts', () => {
    const r = run(['--cwd', ws, '--json'], { HOME: home });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.cwd, ws);
    assert.deepEqual(doc.roots.map((x: any) => [x.path, x.format, x.exists]), [
      [path.join(home, '.claude', 'projects'), 'claude-code', true],
      [path.join(home, '.codex', 'sessions'), 'codex-cli', true],
    ]);
    const rows = doc.sessions.map((s: any) => [s.format, s.sessionId, s.startedAt, s.turns, s.toolCalls, s.failedCommands]);
    assert.deepEqual(rows, [
      ['codex-cli', '019c8bfe-ec25-79e0-97d7-bda6a9c575ff', '2026-02-23T19:34:25.573Z', 6, 5, 0],
      ['codex-cli', '019c8a4c-ed82-79a1-aa28-7738fc5ab61a', '2026-02-23T11:40:23.298Z', 81, 105, 0],
      ['claude-code', '258c7280-ae70-4798-800f-63464d01a85d', '2026-02-11T20:31:53.375Z', 152, 186, 7],
      ['claude-code', '55604662-cf2a-4331-851a-ec234028f8ca', '2026-02-10T21:11:52.438Z', 1, 2, 2],
      ['codex-cli', '01996135-afde-7911-97f0-d863511eca56', '2025-09-19T09:02:12.446Z', 19, 19, 0],
      ['claude-code', 'e9f146fa-3b20-48d0-9be4-d99ca901cae4', '2025-08-28T12:57:08.611Z', 32, 31, 2],
    ]);
    const byId = new Map(doc.sessions.map((s: any) => [s.sessionId, s]));
    const short: any = byId.get('55604662-cf2a-4331-851a-ec234028f8ca');
    assert.equal(short.title, 'mix phx.server doesnt seem to start');
    assert.equal(short.titleFrom, 'first-request');
    assert.equal(short.cwd, ws);
    assert.equal(short.cliVersion, '2.1.38');
    assert.equal(short.gitBranch, 'master');
    assert.deepEqual(short.tokens, { input: 25353, output: 13, cached: 11515, total: 25366 });
    assert.equal(short.lastActivityAt, '2026-02-10T21:16:12.381Z');
    assert.equal((byId.get('258c7280-ae70-4798-800f-63464d01a85d') as any).title, 'Implement spotter-gqc');
    assert.equal((byId.get('e9f146fa-3b20-48d0-9be4-d99ca901cae4') as any).cwd, path.join(ws, 'sub'));
    const codex: any = byId.get('01996135-afde-7911-97f0-d863511eca56');
    assert.match(codex.title, /^幫我檢查一下 go\.mod 裡面 為何 go版本是 1\.24\?/);
    assert.equal(codex.origin, 'codex_vscode');
    assert.deepEqual(codex.tokens, { input: 270530, output: 12551, cached: 136832, total: 283081 });
    for (const s of doc.sessions) assert.ok(fs.existsSync(s.path) && s.path.startsWith(home), s.path);
  });

  it('without --cwd lists the current directory\'s sessions; as text, one row per session with its path', () => {
    fs.mkdirSync(path.join(ws, 'sub'), { recursive: true });
    const r = run([], { HOME: home }, path.join(ws, 'sub'));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^1 session in /);
    assert.match(r.stdout, /claude-code\s+32\s+31\s+2\s+1\.2M\s+幫我檢查一下 go\.mod/);
    assert.ok(r.stdout.includes(path.join(home, '.claude', 'projects')), r.stdout);
  });

  it('CLAUDE_CONFIG_DIR and CODEX_HOME move the roots; --root adds one (either kind, told by the first record)', () => {
    const other = tmpDir('sessions-cli-env-');
    const r0 = run(['--cwd', ws, '--json'], { HOME: home, CLAUDE_CONFIG_DIR: path.join(other, 'claude'), CODEX_HOME: path.join(other, 'codex') });
    const d0 = JSON.parse(r0.stdout);
    assert.deepEqual(d0.roots.map((x: any) => [x.path, x.origin, x.exists]), [
      [path.join(other, 'claude', 'projects'), 'env', false],
      [path.join(other, 'codex', 'sessions'), 'env', false],
    ]);
    assert.deepEqual(d0.sessions, []);
    // An archive of sessions elsewhere, named any way: the recorded cwd decides.
    const archive = path.join(other, 'archive');
    fs.mkdirSync(archive, { recursive: true });
    const text = fs.readFileSync(censusFile('codex-cli/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl'), 'utf8');
    fs.writeFileSync(path.join(archive, 'kept.jsonl'), text.split('/redacted/path/ea96e59ed9').join(ws));
    const r1 = run(['--cwd', ws, '--json', '--root', archive], { HOME: path.join(other, 'nobody') });
    assert.equal(r1.code, 0, r1.stderr);
    const d1 = JSON.parse(r1.stdout);
    assert.deepEqual(d1.sessions.map((s: any) => [s.format, s.sessionId, s.turns, s.toolCalls]), [['codex-cli', '019c8bfe-ec25-79e0-97d7-bda6a9c575ff', 6, 5]]);
    assert.equal(d1.roots.at(-1).origin, 'option');
  });

  it('usage errors exit 2, a missing folder 1', () => {
    assert.equal(run(['--bogus'], { HOME: home }).code, 2);
    assert.equal(run(['some-file'], { HOME: home }).code, 2);
    assert.equal(run(['--cwd', path.join(ws, 'missing')], { HOME: home }).code, 1);
    const help = run(['--help'], { HOME: home });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /failedCommands, tokens: \{input, output, cached, total\}/);
  });
});
