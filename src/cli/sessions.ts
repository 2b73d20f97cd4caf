/**
 * `trajectory-inspector sessions [--cwd DIR] [--json] [--root DIR]…`: the Claude Code and Codex CLI
 * sessions whose recorded cwd is DIR (default: the current directory) or below it, newest first,
 * with their counts — the same list the extension's Sessions view shows (core/sessions).
 *
 * Roots: `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`, `$CODEX_HOME/sessions` or
 * `~/.codex/sessions` (`~` = $HOME), plus every `--root`. Exit codes: 0 listed (also when none
 * matched), 1 DIR does not exist, 2 usage error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countSession, listSessions, sessionTitle } from '../core/sessions/list';
import { defaultSessionRoots, extraSessionRoots, uniqueRoots } from '../core/sessions/roots';
import type { SessionEntry, SessionRoot } from '../core/sessions/types';
import { compactCount, localTime as localTimeText } from '../core/sessions/text';
import { parseOptions, printable, UsageError } from './common';

/** Usage lines of the sessions command (joined into the CLI's usage). */
export const SESSIONS_USAGE = `  trajectory-inspector sessions [--cwd DIR] [--json] [--root DIR]…
                                                        Claude Code and Codex CLI sessions recorded in DIR (default: the
                                                        current directory) or below it, newest first, with turns, tool
                                                        calls, failed commands and tokens; roots ~/.claude/projects and
                                                        ~/.codex/sessions (CLAUDE_CONFIG_DIR, CODEX_HOME honoured) and each --root;
        --json: {cwd, roots: [{path, format, origin, exists}], sessions: [{format, path, sessionId, cwd, title,
        titleFrom, startedAt, lastActivityAt, modifiedAt, sizeBytes, cliVersion, gitBranch, origin, turns,
        toolCalls, failedCommands, tokens: {input, output, cached, total} | null, badLines}],
        skipped: {withoutCwd, unreadable}} (unknown values null; times ISO-8601 as recorded)`;

/**
 * One session in `sessions --json` (README "Command line" documents the fields): format, path,
 * sessionId, cwd, title, titleFrom, startedAt, lastActivityAt, modifiedAt, sizeBytes, cliVersion,
 * gitBranch, origin, turns, toolCalls, failedCommands, tokens {input, output, cached, total} | null,
 * badLines. Unknown values are null.
 */
export function sessionJson(e: SessionEntry): Record<string, unknown> {
  const t = sessionTitle(e);
  const c = e.counts;
  return {
    format: e.head.format,
    path: e.path,
    sessionId: e.head.sessionId,
    cwd: e.head.cwd,
    title: t.title,
    titleFrom: t.from,
    startedAt: e.head.startedAt,
    lastActivityAt: c?.lastActivityAt ?? null,
    modifiedAt: new Date(e.mtimeMs).toISOString(),
    sizeBytes: e.size,
    cliVersion: e.head.cliVersion,
    gitBranch: e.head.gitBranch,
    origin: e.head.origin,
    turns: c?.turns ?? null,
    toolCalls: c?.toolCalls ?? null,
    failedCommands: c?.failedCommands ?? null,
    tokens: c?.tokens ?? null,
    badLines: c?.badLines ?? null,
  };
}

function localTime(iso: string | null): string {
  return localTimeText(iso).padEnd(16);
}

/** Runs `sessions`; resolves to the exit code. */
export async function runSessions(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(`Usage:\n${SESSIONS_USAGE}\n`);
    return 0;
  }
  // --root may be given several times.
  const extra: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--root') {
      if (argv[i + 1] === undefined) {
        process.stderr.write(`option --root needs a value\nUsage:\n${SESSIONS_USAGE}\n`);
        return 2;
      }
      extra.push(argv[++i]);
    } else if (a.startsWith('--root=')) extra.push(a.slice('--root='.length));
    else rest.push(a);
  }
  let opts;
  try {
    opts = parseOptions(rest, ['--cwd'], ['--json']);
    if (opts.positional.length) throw new UsageError(`sessions takes no file (got ${opts.positional[0]}); use --cwd DIR`);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nUsage:\n${SESSIONS_USAGE}\n`);
    return 2;
  }
  const cwd = path.resolve(opts.options.get('--cwd') ?? process.cwd());
  if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) {
    process.stderr.write(`error: ${cwd} is not a folder\n`);
    return 1;
  }
  const roots: SessionRoot[] = uniqueRoots([...defaultSessionRoots(), ...extraSessionRoots(extra, 'option')]);
  const list = await listSessions({ roots, folders: [cwd] });
  // Count a few files at a time (each is one streaming pass).
  const queue = [...list.sessions];
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let e = queue.shift(); e; e = queue.shift()) {
      try {
        e.counts = await countSession(e, e.head);
      } catch (err) {
        process.stderr.write(`warning: ${e.path}: ${(err as Error).message}\n`);
      }
    }
  }));
  if (opts.flags.has('--json')) {
    const doc = {
      cwd,
      roots: roots.map((r) => ({ path: r.path, format: r.format, origin: r.origin, exists: fs.existsSync(r.path) })),
      sessions: list.sessions.map(sessionJson),
      skipped: { withoutCwd: list.withoutCwd, unreadable: list.unreadable },
    };
    process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
    return 0;
  }
  const n = list.sessions.length;
  process.stdout.write(printable(`${n} session${n === 1 ? '' : 's'} in ${cwd}`) + '\n');
  for (const r of roots) process.stdout.write(printable(`  root ${r.path}${fs.existsSync(r.path) ? '' : ' (missing)'}`) + '\n');
  if (n) process.stdout.write(`\n${'started'.padEnd(16)}  ${'agent'.padEnd(11)} ${'turns'.padStart(5)} ${'tools'.padStart(5)} ${'failed'.padStart(6)} ${'tokens'.padStart(6)}  title\n`);
  for (const e of list.sessions) {
    const c = e.counts;
    const num = (v: number | undefined, w: number) => (v === undefined ? '?' : String(v)).padStart(w);
    const title = sessionTitle(e).title ?? '(no request recorded)';
    process.stdout.write(printable(`${localTime(e.head.startedAt)}  ${e.head.format.padEnd(11)} ${num(c?.turns, 5)} ${num(c?.toolCalls, 5)} ${num(c?.failedCommands, 6)} ${(c?.tokens ? compactCount(c.tokens.total) : '—').padStart(6)}  ${title.length > 100 ? `${title.slice(0, 99)}…` : title}`) + '\n');
    process.stdout.write(printable(`${' '.repeat(18)}${e.path}`) + '\n');
  }
  if (list.withoutCwd) process.stdout.write(`(${list.withoutCwd} session file(s) under the roots record no cwd and are not listed)\n`);
  return 0;
}
