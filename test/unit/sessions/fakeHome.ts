/**
 * A fake home folder holding the real Claude Code and Codex CLI sessions of ../shared/format-census,
 * laid out as the tools lay them out (`.claude/projects/<encoded cwd>/<session id>.jsonl`,
 * `.codex/sessions/YYYY/MM/DD/rollout-….jsonl`), with their recorded cwd rewritten to a folder of
 * the test's (every occurrence of the old cwd in the copy: the session moved with its project).
 * Used by the unit, CLI and e2e tests of the Sessions list. Each file's mtime is set to its last
 * record's time, as if the tool had just written it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claudeProjectDirName } from '../../../src/core/sessions/roots';
import { censusFile } from '../samples';

/** One copied session: where it came from and what the list should show for it. */
export interface FakeSession {
  census: string;
  format: 'claude-code' | 'codex-cli';
  path: string;
  sessionId: string;
  /** The cwd written into the copy. */
  cwd: string;
  /** The cwd the real file recorded. */
  originalCwd: string;
}

function lines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
}

/** Replaces every JSON-string occurrence of `from` by `to` in a JSONL text's lines. */
function rewrite(text: string[], from: string, to: string): string {
  const a = JSON.stringify(from).slice(1, -1);
  const b = JSON.stringify(to).slice(1, -1);
  return text.map((l) => l.split(a).join(b)).join('\n') + '\n';
}

function lastTimestamp(text: string[]): Date {
  for (let i = text.length - 1; i >= 0; i--) {
    const ts = (JSON.parse(text[i]) as { timestamp?: unknown }).timestamp;
    if (typeof ts === 'string') return new Date(ts);
  }
  throw new Error('no timestamp');
}

function put(file: string, text: string[], from: string | null, to: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, from === null ? text.join('\n') + '\n' : rewrite(text, from, to));
  const t = lastTimestamp(text);
  fs.utimesSync(file, t, t);
}

/**
 * Builds the fake home under `home`: the three Claude Code sessions and three Codex rollouts of the
 * census with their cwd set to `workspace` (the VibeCodingTracker Claude session to
 * `workspace/sub`), the short Claude session a second time under its real cwd (outside the
 * workspace: must not be listed), and the 258c7280 subagent transcript in its session's
 * `subagents/` folder (not a session of its own).
 * @returns the sessions expected in the workspace's list (in no particular order) and the one outside it
 */
export function makeFakeHome(home: string, workspace: string): { inside: FakeSession[]; outside: FakeSession } {
  const sub = path.join(workspace, 'sub');
  const claudeRoot = path.join(home, '.claude', 'projects');
  const codexRoot = path.join(home, '.codex', 'sessions');
  const inside: FakeSession[] = [];
  const claude = (census: string, sessionId: string, originalCwd: string, cwd: string) => {
    const p = path.join(claudeRoot, claudeProjectDirName(cwd), `${sessionId}.jsonl`);
    put(p, lines(censusFile(census)), originalCwd, cwd);
    return { census, format: 'claude-code' as const, path: p, sessionId, cwd, originalCwd };
  };
  const codex = (census: string, day: string, name: string, sessionId: string, originalCwd: string) => {
    const p = path.join(codexRoot, ...day.split('-'), name);
    put(p, lines(censusFile(census)), originalCwd, workspace);
    return { census, format: 'codex-cli' as const, path: p, sessionId, cwd: workspace, originalCwd };
  };
  inside.push(claude('claude-code/short.jsonl', '55604662-cf2a-4331-851a-ec234028f8ca', '/home/marco/projects/spotter', workspace));
  const big = claude('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl', '258c7280-ae70-4798-800f-63464d01a85d', '/home/USER/projects/spotter-worktrees/spotter-gqc', workspace);
  inside.push(big);
  const agent = path.join(path.dirname(big.path), big.sessionId, 'subagents', 'agent-a881341.jsonl');
  put(agent, lines(censusFile('claude-code/258c7280_subagents_agent-a881341.jsonl')), big.originalCwd, workspace);
  inside.push(claude('claude-code/vibecodingtracker_claude_code.jsonl', 'e9f146fa-3b20-48d0-9be4-d99ca901cae4', '/home/wei/repo/claude-code', sub));
  inside.push(codex('codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl', '2026-02-23',
    'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl', '019c8a4c-ed82-79a1-aa28-7738fc5ab61a', '/redacted/path/fa3f7eaace'));
  inside.push(codex('codex-cli/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl', '2026-02-23',
    'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl', '019c8bfe-ec25-79e0-97d7-bda6a9c575ff', '/redacted/path/ea96e59ed9'));
  inside.push(codex('codex-cli/vibecodingtracker_codex.jsonl', '2025-09-19',
    'rollout-2025-09-19T09-02-12-01996135-afde-7911-97f0-d863511eca56.jsonl', '01996135-afde-7911-97f0-d863511eca56', '/proj/ds906659/gai/claude-code'));
  // The same short session, left where it was recorded: another project.
  const outsideCwd = '/home/marco/projects/spotter';
  const op = path.join(claudeRoot, claudeProjectDirName(outsideCwd), 'aaaaaaaa-0000-4000-8000-000000000000.jsonl');
  put(op, lines(censusFile('claude-code/short.jsonl')), null, outsideCwd);
  return { inside, outside: { census: 'claude-code/short.jsonl', format: 'claude-code', path: op, sessionId: '55604662-cf2a-4331-851a-ec234028f8ca', cwd: outsideCwd, originalCwd: outsideCwd } };
}
