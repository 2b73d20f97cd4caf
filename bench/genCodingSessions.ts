/**
 * Generates large coding-agent sessions for bench/follow.bench.ts from the REAL records of the
 * census files (../shared/format-census, test/unit/samples.ts `censusFile`), repeated until the file
 * reaches the size asked for:
 *
 * - Claude Code: `claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl` (CLI 2.1.39, 1,863
 *   records: streamed assistant records sharing a `message.id`, tool results, hook / bash / agent
 *   progress, file-history snapshots, a compaction, queue operations), one copy after another in one
 *   `<session id>.jsonl`, and for each copy the subagent transcript its Task call names
 *   (`258c7280_subagents_agent-a881341.jsonl`) under `<session id>/subagents/` (the 2.1.x layout).
 * - Codex CLI: the header (`session_meta`) of
 *   `codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl` (Codex
 *   Desktop 0.104: exec_command, apply_patch custom tool calls, web search; its texts redacted to
 *   markers) once, then the rest of its records and those of `codex-cli/vibecodingtracker_codex.jsonl`
 *   (CLI 0.39: shell calls with JSON outputs, update_plan, patch events) in turn, in a file named as
 *   Codex names it.
 *
 * Each copy after the first gets fresh ids — every uuid / message id / request id / tool-use id /
 * call id / turn id / agent id a record holds (the values of the id fields, wherever the same token
 * appears again in the copy: a parentUuid, a tool_result's tool_use_id, "agentId: …" in a result
 * text, a subagent file name) is mapped to a new token of the same shape, the same within a copy —
 * so tool results pair with their calls and streamed records share their message id in every copy.
 * The session id stays (one session). Timestamps are shifted so the copies follow one another.
 *
 * Deterministic (ids are hashes of the copy number and the original id); a file already there is
 * reused (the generator's version is in the folder name). Written under bench/out/ (git-ignored).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { censusFile } from '../test/unit/samples';

/** Bumped when what is generated changes (the cache folder is named after it). */
const VERSION = 1;

export const CC_MAIN = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl';
export const CC_SUBAGENT = 'claude-code/258c7280_subagents_agent-a881341.jsonl';
export const CODEX_ROLLOUT = 'codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';
export const CODEX_VIBE = 'codex-cli/vibecodingtracker_codex.jsonl';

/** Field names whose string values are ids (rewritten in each copy). `sessionId` is not one: the session stays. */
const ID_KEY = /^(?:uuid|id|\w*Uuid|\w*UUID|\w*Id|\w*ID|tool_use_id|call_id|turn_id)$/;
/** The shapes of the ids the census files hold: UUIDs, Anthropic / OpenAI prefixed ids, Claude Code agent ids. */
const ID_SHAPE = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\b(?:msg|toolu|srvtoolu|req|call)_[A-Za-z0-9_]+|\ba[0-9a-f]{6,16}\b/g;
const ID_WHOLE = new RegExp(`^(?:${ID_SHAPE.source})$`);
const ISO_TS = /"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"/g;
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The id values of a record (fields named like ids), except those in `keep`. */
function collectIds(v: unknown, out: Set<string>, keep: ReadonlySet<string>): void {
  if (Array.isArray(v)) for (const x of v) collectIds(x, out, keep);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'string' && k !== 'sessionId' && ID_KEY.test(k) && !keep.has(x)) {
        if (ID_WHOLE.test(x)) out.add(x);
      } else collectIds(x, out, keep);
    }
  }
}

/** A token of the same shape as `id`, fixed by `copy` and `id`. */
function freshId(id: string, copy: number): string {
  const h = createHash('sha256').update(`${copy}:${id}`).digest();
  if (/^[0-9a-fA-F]{8}-/.test(id)) {
    const hex = h.toString('hex');
    let i = 0;
    return id.replace(/[0-9a-fA-F]/g, () => hex[i++ % hex.length]);
  }
  const us = id.indexOf('_');
  if (us > 0) {
    const body = id.slice(us + 1);
    let i = 0;
    return `${id.slice(0, us + 1)}${body.replace(/[A-Za-z0-9]/g, () => ALNUM[h[i++ % h.length] % ALNUM.length])}`;
  }
  const hex = h.toString('hex');
  return `a${hex.slice(0, id.length - 1)}`;
}

/** Rewrites the lines of a template for one copy: fresh ids, timestamps shifted. */
class Rewriter {
  constructor(private readonly ids: ReadonlySet<string>) {}

  copy(lines: readonly string[], copy: number, shiftMs: number): string[] {
    const map = new Map<string, string>();
    const id = (t: string): string => {
      if (!this.ids.has(t)) return t;
      let n = map.get(t);
      if (n === undefined) map.set(t, (n = freshId(t, copy)));
      return n;
    };
    return lines.map((l) => {
      let out = copy === 0 ? l : l.replace(ID_SHAPE, id);
      if (shiftMs) out = out.replace(ISO_TS, (_m, ts: string) => `"${new Date(Date.parse(ts) + shiftMs).toISOString()}"`);
      return out;
    });
  }

  /** The agent id `id` has in copy `copy`. */
  agentId(id: string, copy: number): string {
    return copy === 0 ? id : freshId(id, copy);
  }
}

function readLines(rel: string): string[] {
  return fs.readFileSync(censusFile(rel), 'utf8').split('\n').filter((l) => l.trim() !== '');
}

/** First and last timestamp of the records (ms). */
function span(lines: readonly string[]): { first: number; last: number } {
  let first = Infinity;
  let last = -Infinity;
  for (const l of lines) {
    const v = JSON.parse(l);
    const t = Date.parse(v.timestamp ?? '');
    if (Number.isFinite(t)) {
      first = Math.min(first, t);
      last = Math.max(last, t);
    }
  }
  return { first, last };
}

/** A generated session file. */
export interface GeneratedSession {
  file: string;
  size: number;
  lines: number;
  /** Copies of the template(s) written. */
  copies: number;
  /** Subagent transcripts written beside it (Claude Code). */
  subagents: number;
}

/** One turn to append to a followed file: the lines of the model's call, then those of its result. */
export interface AppendTurn {
  /** The lines (each a JSON record, no line break) that make the new step. */
  call: string[];
  /** The lines of the tool result(s) that join it. */
  result: string[];
  /** A text of the result that the step card shows once the result joined it. */
  snippet: string;
}

/** The cached generation of `file` (a JSON note beside it says it completed). */
function cached(file: string): GeneratedSession | null {
  const note = `${file}.done.json`;
  if (!fs.existsSync(file) || !fs.existsSync(note)) return null;
  return JSON.parse(fs.readFileSync(note, 'utf8')) as GeneratedSession;
}

function finish(file: string, out: fs.WriteStream | number, g: Omit<GeneratedSession, 'file' | 'size'>): GeneratedSession {
  if (typeof out === 'number') fs.closeSync(out);
  const r: GeneratedSession = { file, size: fs.statSync(file).size, ...g };
  fs.writeFileSync(`${file}.done.json`, JSON.stringify(r));
  return r;
}

// ---------------------------------------------------------------------------------- Claude Code

interface CcTemplate {
  main: string[];
  sub: string[];
  rw: Rewriter;
  agentId: string;
  sessionId: string;
  periodMs: number;
}

let ccTemplate: CcTemplate | null = null;
function claudeTemplate(): CcTemplate {
  if (ccTemplate) return ccTemplate;
  const main = readLines(CC_MAIN);
  const sub = readLines(CC_SUBAGENT);
  const ids = new Set<string>();
  for (const l of [...main, ...sub]) collectIds(JSON.parse(l), ids, new Set());
  const subRec = JSON.parse(sub[0]);
  const s = span(main);
  ccTemplate = { main, sub, rw: new Rewriter(ids), agentId: subRec.agentId, sessionId: subRec.sessionId, periodMs: s.last - s.first + 60_000 };
  return ccTemplate;
}

/**
 * A Claude Code session of at least `bytes` bytes: `<dir>/<session id>.jsonl` and its subagent
 * transcripts in `<dir>/<session id>/subagents/`. Reused when already generated.
 */
export function claudeCodeSession(dir: string, bytes: number): GeneratedSession {
  const t = claudeTemplate();
  const root = `${dir}-v${VERSION}`;
  const file = path.join(root, `${t.sessionId}.jsonl`);
  const have = cached(file);
  if (have) return have;
  fs.rmSync(root, { recursive: true, force: true });
  const subDir = path.join(root, t.sessionId, 'subagents');
  fs.mkdirSync(subDir, { recursive: true });
  const fd = fs.openSync(file, 'w');
  let size = 0;
  let copies = 0;
  let lines = 0;
  while (size < bytes) {
    const text = t.rw.copy(t.main, copies, copies * t.periodMs).join('\n') + '\n';
    fs.writeSync(fd, text);
    size += Buffer.byteLength(text);
    lines += t.main.length;
    const sub = t.rw.copy(t.sub, copies, copies * t.periodMs).join('\n') + '\n';
    fs.writeFileSync(path.join(subDir, `agent-${t.rw.agentId(t.agentId, copies)}.jsonl`), sub);
    copies++;
  }
  return finish(file, fd, { lines, copies, subagents: copies });
}

/** The turns of the Claude Code template that call Bash and get a text result: [first line, last call line, end). */
function claudeTurns(main: readonly string[]): { start: number; callEnd: number; end: number }[] {
  const recs = main.map((l) => JSON.parse(l));
  const turns: { start: number; callEnd: number; end: number }[] = [];
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    if (r.type !== 'assistant' || recs[i - 1]?.message?.id === r.message?.id) continue;
    const mid = r.message?.id;
    let last = i;
    for (let j = i + 1; j < recs.length && !(recs[j].type === 'assistant' && recs[j].message?.id !== mid); j++) if (recs[j].message?.id === mid) last = j;
    let end = last + 1;
    while (end < recs.length && !(recs[end].type === 'assistant' || (recs[end].type === 'user' && typeof recs[end].message?.content === 'string'))) end++;
    const calls = recs.slice(i, last + 1).flatMap((x) => (Array.isArray(x.message?.content) ? x.message.content : []).filter((b: any) => b.type === 'tool_use' && b.name === 'Bash'));
    const results = recs.slice(last + 1, end).flatMap((x) => (Array.isArray(x.message?.content) ? x.message.content : []).filter((b: any) => b.type === 'tool_result'));
    if (calls.length === 1 && results.length === 1 && typeof results[0].content === 'string' && results[0].content.trim().length > 20) turns.push({ start: i, callEnd: last + 1, end });
  }
  return turns;
}

/**
 * Turn `k` to append to a generated Claude Code session of `copies` copies: a real Bash turn of the
 * template (its streamed assistant records; then its progress records and tool result), with the ids
 * of copy `copies + k` (fresh) and timestamps after the file's.
 */
export function claudeCodeAppend(copies: number, k: number): AppendTurn {
  const t = claudeTemplate();
  const turns = claudeTurns(t.main);
  const u = turns[k % turns.length];
  const copy = copies + k;
  const lines = t.rw.copy(t.main.slice(u.start, u.end), copy, copies * t.periodMs);
  const call = lines.slice(0, u.callEnd - u.start);
  const result = lines.slice(u.callEnd - u.start);
  const res = result.map((l) => JSON.parse(l)).find((r) => Array.isArray(r.message?.content) && r.message.content.some((b: any) => b.type === 'tool_result'));
  const text: string = res.message.content.find((b: any) => b.type === 'tool_result').content;
  return { call, result, snippet: snippetOf(text) };
}

/**
 * A short distinctive piece of the first line of a result with 8 characters or more between its
 * ANSI escapes (the card shows the text without them): that run of text, at most 40 characters.
 */
function snippetOf(text: string): string {
  const runs = (l: string) => l.split(/\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x1f]/).map((r) => r.trim());
  for (const l of text.split('\n')) {
    const best = runs(l).sort((a, b) => b.length - a.length)[0] ?? '';
    if (best.length >= 8) return best.slice(0, 40);
  }
  return text.trim().slice(0, 40);
}

// ------------------------------------------------------------------------------------- Codex CLI

interface CodexTemplate {
  header: string;
  bodies: string[][];
  rw: Rewriter;
  periodMs: number;
  name: string;
}

let cxTemplate: CodexTemplate | null = null;
function codexTemplate(): CodexTemplate {
  if (cxTemplate) return cxTemplate;
  const a = readLines(CODEX_ROLLOUT);
  const b = readLines(CODEX_VIBE);
  const isMeta = (l: string) => JSON.parse(l).type === 'session_meta';
  const header = a.find(isMeta) as string;
  const sessionIds = new Set([a, b].map((x) => JSON.parse(x.find(isMeta) as string).payload.id as string));
  const ids = new Set<string>();
  for (const l of [...a, ...b]) collectIds(JSON.parse(l), ids, sessionIds);
  // The second file's records follow the first's: its times are moved to just after them.
  const sa = span(a.filter((l) => !isMeta(l)));
  const sb = span(b.filter((l) => !isMeta(l)));
  const bShift = sa.last + 60_000 - sb.first;
  const bodyB = new Rewriter(new Set()).copy(b.filter((l) => !isMeta(l)), 0, bShift);
  cxTemplate = {
    header,
    bodies: [a.filter((l) => !isMeta(l)), bodyB],
    rw: new Rewriter(ids),
    periodMs: sa.last - sa.first + (sb.last - sb.first) + 120_000,
    name: path.basename(CODEX_ROLLOUT),
  };
  return cxTemplate;
}

/** A Codex CLI rollout of at least `bytes` bytes in `dir` (named as Codex names it). Reused when already generated. */
export function codexRollout(dir: string, bytes: number): GeneratedSession {
  const t = codexTemplate();
  const root = `${dir}-v${VERSION}`;
  const file = path.join(root, t.name);
  const have = cached(file);
  if (have) return have;
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const fd = fs.openSync(file, 'w');
  let size = Buffer.byteLength(t.header) + 1;
  fs.writeSync(fd, `${t.header}\n`);
  let copies = 0;
  let lines = 1;
  const body = [...t.bodies[0], ...t.bodies[1]];
  while (size < bytes) {
    const text = t.rw.copy(body, copies, copies * t.periodMs).join('\n') + '\n';
    fs.writeSync(fd, text);
    size += Buffer.byteLength(text);
    lines += body.length;
    copies++;
  }
  return finish(file, fd, { lines, copies, subagents: 0 });
}

/** The exec_command turns of the Codex rollout template: [turn_context, first output, next turn_context). */
function codexTurns(body: readonly string[]): { start: number; callEnd: number; end: number }[] {
  const recs = body.map((l) => JSON.parse(l));
  const turns: { start: number; callEnd: number; end: number }[] = [];
  for (let i = 0; i < recs.length; i++) {
    if (recs[i].type !== 'turn_context') continue;
    let end = i + 1;
    while (end < recs.length && recs[end].type !== 'turn_context') end++;
    const part = recs.slice(i, end);
    const out = part.findIndex((r) => r.payload?.type === 'function_call_output');
    const calls = part.filter((r) => r.payload?.type === 'function_call');
    const outs = part.filter((r) => r.payload?.type === 'function_call_output');
    if (out > 0 && calls.length >= 1 && calls.every((c) => c.payload.name === 'exec_command') && outs.length === calls.length && part.slice(out).every((r) => r.payload?.type === 'function_call_output'))
      turns.push({ start: i, callEnd: i + out, end });
  }
  return turns;
}

/**
 * Turn `k` to append to a generated Codex rollout of `copies` copies: a real exec_command turn of the
 * rollout template (turn context, token count, reasoning and message with their events, the calls;
 * then their outputs), with the ids of copy `copies + k` and timestamps after the file's.
 */
export function codexAppend(copies: number, k: number): AppendTurn {
  const t = codexTemplate();
  const turns = codexTurns(t.bodies[0]);
  const u = turns[k % turns.length];
  const lines = t.rw.copy(t.bodies[0].slice(u.start, u.end), copies + k, copies * t.periodMs);
  const call = lines.slice(0, u.callEnd - u.start);
  const result = lines.slice(u.callEnd - u.start);
  const first = JSON.parse(result[0]).payload.output as string;
  return { call, result, snippet: snippetOf(first) };
}
