/**
 * Pure presentation logic for the host side: labels, descriptions, quick-pick items, the webview's
 * HTML shell, error → message conversion. Nothing here imports `vscode`, so it is unit-tested in
 * plain mocha (test/unit/host/present.test.ts).
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { RolloutLoadError, UnknownFormatError, formatIssue } from '../core/errors';
import { attemptNumber } from '../core/formats/harborLayout';
import { countedSteps, type Outcome, type Rollout } from '../core/model';
import { EscapeClamp } from '../core/escapes';
import { MAX_EVENT_SECONDS } from '../core/formats/asciicast';
import { outcomeText } from '../shared/outcome';
import { type IssueView, type LoadErrorMessage, type RolloutSummary } from '../shared/protocol';
import { MAX_TERM_COLS, MAX_TERM_ROWS, type CastEventCode, type CastEventView, type CastMessage, type CastView } from '../shared/castProtocol';
import { formatReward, stepGist } from '../shared/text';

/** A per-render nonce for the webview CSP: 128 random bits, base64 (never Math.random). */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/** `resolved`, `failed`, the recorded exit status, or `—` (unknown): `outcomeText` of src/shared/outcome.ts, the text every view uses. */
export function resolvedText(resolved: boolean | null, status: string | null = null): string {
  return outcomeText({ resolved, status });
}

/** Outcome of a rollout as the tree and the picker show it: pass, fail or unknown. */
export type OutcomeKind = 'resolved' | 'failed' | 'unknown';

/** What the outcome says about success (the core already derives `resolved` from a 1/0 reward where that is implied). */
export function outcomeKind(o: Outcome): OutcomeKind {
  if (o.resolved === true) return 'resolved';
  if (o.resolved === false) return 'failed';
  return 'unknown';
}

/** `<n> steps · reward 0.0 · resolved` (reward left out when unknown; the outcome as `outcomeText` words it). */
export function describeRollout(r: Pick<Rollout, 'steps' | 'outcome'>): string {
  return describeCounts(countedSteps(r), r.outcome.reward, r.outcome.resolved, [], r.outcome.status);
}

/** The same description from the numbers alone (the tree keeps no steps); `status`: the recorded exit status (`submitted`). */
export function describeCounts(steps: number, reward: number | null, resolved: boolean | null, derived: readonly string[] = [], status: string | null = null): string {
  const parts = [`${steps} ${steps === 1 ? 'step' : 'steps'}`];
  if (reward !== null) parts.push(`reward ${formatReward(reward)}${derived.includes('outcome.reward') ? ' (derived)' : ''}`);
  parts.push(`${resolvedText(resolved, status)}${resolved !== null && derived.includes('outcome.resolved') ? ' (derived)' : ''}`);
  return parts.join(' · ');
}

/** The tooltip line naming the values a loader derived rather than read (core `Rollout.derived`), or ''. */
export function derivedText(derived: readonly string[] | undefined): string {
  return derived?.length ? `Derived by the loader, not recorded in the file: ${derived.join(', ')}` : '';
}

/**
 * The name a rollout file goes by in the tree: the trial folder for a Harbor trial
 * (`…/<trial>/agent/trajectory.json`), else the task id of its single rollout, else the file name.
 */
export function fileLabel(file: string, singleTaskId: string | null): string {
  const parts = file.split(/[\\/]/);
  const n = parts.length;
  // A retried Harbor trial's attempt folder `<trial>/attempts/<NNN>` goes by its trial.
  const trialAt = (i: number) => (i >= 2 && parts[i - 1] === 'attempts' && attemptNumber(parts[i]) !== null ? parts[i - 2] : parts[i]);
  if (n >= 3 && parts[n - 1] === 'trajectory.json' && parts[n - 2] === 'agent') return trialAt(n - 3);
  if (n >= 2 && parts[n - 1] === 'result.json') return trialAt(n - 2); // a Harbor trial's result.json
  return singleTaskId ?? path.basename(file);
}

/** Label of one rollout inside a multi-rollout file. */
export function rolloutLabel(r: Pick<Rollout, 'task' | 'source' | 'id'>, index: number): string {
  const where = r.source.line !== null ? `line ${r.source.line}` : `#${index + 1}`;
  return r.task.id ? `${r.task.id}` : where;
}

/** A summary of one rollout for the webview's picker and the tree. */
export function summarize(r: Rollout, index: number): RolloutSummary {
  return {
    index,
    id: r.id,
    taskId: r.task.id,
    // Steps an ATIF continuation copies from its earlier context are not new steps.
    steps: countedSteps(r),
    reward: r.outcome.reward,
    resolved: r.outcome.resolved,
    status: r.outcome.status,
    line: r.source.line,
  };
}

/** Converts anything a load threw into the webview's error message, with located issues formatted by core. */
export function errorToMessage(file: string, err: unknown): LoadErrorMessage {
  if (err instanceof RolloutLoadError) {
    const issues: IssueView[] = err.issues.map((i) => ({ ...i, formatted: formatIssue(i) }));
    return {
      type: 'loadError',
      file,
      title: err.format ? `Invalid ${err.format} rollout` : 'Unreadable rollout file',
      issues,
      declined: [],
      message: err.message,
    };
  }
  if (err instanceof UnknownFormatError) {
    return {
      type: 'loadError',
      file,
      title: 'No rollout format matches this file',
      issues: [],
      declined: err.declined.map((d) => ({ format: d.format, reason: d.reason })),
      message: err.message,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { type: 'loadError', file, title: 'Could not load this file', issues: [], declined: [], message };
}

/** One-line error text for a tooltip (first lines of the error message). */
export function errorSummary(err: unknown, maxLines = 6): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text.split('\n');
  return lines.length > maxLines ? `${lines.slice(0, maxLines).join('\n')}\n…` : text;
}

/** A Go to Step quick-pick entry (1-based numbers, as the timeline shows them). */
export interface StepPickItem {
  label: string;
  description: string;
  index: number;
}

export function stepPickItems(rollout: Pick<Rollout, 'steps'>): StepPickItem[] {
  return rollout.steps.map((s) => ({ label: `${s.index + 1}`, description: `${s.role} · ${stepGist(s)}`, index: s.index }));
}

/**
 * Reads a typed step number (1-based, as shown). Returns the 0-based index, or null when the text
 * is not a number in range.
 */
export function parseStepNumber(text: string, count: number): number | null {
  const m = /^\s*#?\s*(\d+)\s*$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n <= count ? n - 1 : null;
}

/** The resources and secrets the webview shell needs. */
export interface HtmlParts {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

/**
 * A webview's HTML shell under the strict CSP (scripts and styles by nonce, nothing inline, no
 * network): one root element and the bundle. Holds no rollout data (that comes by postMessage after
 * `ready`), so nothing from a file is ever interpolated here; the URIs come from `asWebviewUri`.
 * `root` is the custom element's tag, `title` the document title (both fixed strings of ours).
 */
export function webviewHtml(p: HtmlParts, root: string, title: string): string {
  const csp = [
    `default-src 'none'`,
    `script-src 'nonce-${p.nonce}'`,
    `style-src ${p.cspSource} 'nonce-${p.nonce}'`,
    `font-src ${p.cspSource}`,
    `img-src ${p.cspSource} data:`,
    `connect-src 'none'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${p.styleUri}" nonce="${p.nonce}">
<title>${title}</title>
</head>
<body>
<${root}></${root}>
<script type="module" nonce="${p.nonce}" src="${p.scriptUri}"></script>
</body>
</html>`;
}

/** The timeline's HTML shell (see webviewHtml). */
export function timelineHtml(p: HtmlParts): string {
  return webviewHtml(p, 'ti-app', 'Trajectory Inspector');
}

/**
 * Joins globs into the single `{a,b}` pattern findFiles and file watchers take. Returns null for
 * none; returns the globs unjoined (a list) when one holds braces itself, since VS Code's glob
 * groups do not nest.
 */
export function joinGlobs(globs: readonly string[]): string | string[] | null {
  const g = globs.map((s) => s.trim()).filter((s) => s !== '');
  if (g.length === 0) return null;
  if (g.length === 1) return g[0];
  return g.some((s) => s.includes('{')) ? g : `{${g.join(',')}}`;
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

// ---------------------------------------------------------------- terminal recordings

/** Recordings larger than this are not read at all (the player says so). */
export const MAX_CAST_FILE_BYTES = 100 * 1024 * 1024;
/**
 * The player gets at most this many characters of event data; a longer recording is cut after the
 * event that crosses the limit, with a note. (Every seek back replays from the start.)
 */
export const MAX_CAST_CHARS = 16 * 1024 * 1024;

/** What core `parseAsciicast` returns (the fields the player uses). */
export interface ParsedCast {
  header: unknown;
  events: readonly { time: number; code: string; data: string }[];
  /** Bad event lines left out (lenient parse). */
  issues?: readonly unknown[];
}

const CAST_CODES = new Set<string>(['o', 'i', 'm', 'r', 'x']);

function positiveInt(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}

/**
 * Terminal size from an asciicast header: core's normalised `cols`/`rows`, else a raw v2
 * `width`/`height` or v3 `term.cols`/`term.rows`; 80×24 when none is usable; at most
 * MAX_TERM_COLS×MAX_TERM_ROWS (`clamped` says whether the header asked for more, and `asked` what).
 */
export function castSize(header: unknown): { cols: number; rows: number } {
  const { cols, rows } = castSizeAsked(header);
  return { cols: Math.min(cols, MAX_TERM_COLS), rows: Math.min(rows, MAX_TERM_ROWS) };
}

/** The terminal size an asciicast header asks for (castSize before the clamp). */
function castSizeAsked(header: unknown): { cols: number; rows: number } {
  const h = (typeof header === 'object' && header !== null ? header : {}) as Record<string, unknown>;
  const term = (typeof h.term === 'object' && h.term !== null ? h.term : {}) as Record<string, unknown>;
  const cols = positiveInt(h.cols) ?? positiveInt(h.width) ?? positiveInt(term.cols) ?? 80;
  const rows = positiveInt(h.rows) ?? positiveInt(h.height) ?? positiveInt(term.rows) ?? 24;
  return { cols, rows };
}

/** `COLSxROWS` of a resize event, clamped to MAX_TERM_*, or null when malformed. */
function resizeOf(data: string): { cols: number; rows: number; clamped: boolean } | null {
  const m = /^\s*(\d{1,9})\s*x\s*(\d{1,9})\s*$/.exec(data);
  if (!m) return null;
  const cols = Number(m[1]);
  const rows = Number(m[2]);
  if (!(cols > 0 && rows > 0)) return null;
  return { cols: Math.min(cols, MAX_TERM_COLS), rows: Math.min(rows, MAX_TERM_ROWS), clamped: cols > MAX_TERM_COLS || rows > MAX_TERM_ROWS };
}

/** `1.2 MB` */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** `m:ss` for a note. */
function clock(sec: number): string {
  const s = Math.max(0, Math.floor(sec));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The player's view of a parsed recording: compact events with non-decreasing times, cut at
 * `maxChars` characters of event data (with a note saying where), unknown event codes dropped.
 */
export function castView(parsed: ParsedCast, maxChars = MAX_CAST_CHARS): { cast: CastView; note: string | null } {
  const asked = castSizeAsked(parsed.header);
  const { cols, rows } = castSize(parsed.header);
  const sizeClamped = asked.cols !== cols || asked.rows !== rows;
  const h = (typeof parsed.header === 'object' && parsed.header !== null ? parsed.header : {}) as Record<string, unknown>;
  const title = typeof h.title === 'string' && h.title.trim() ? h.title : null;
  const events: CastEventView[] = [];
  let chars = 0;
  let last = 0;
  let truncatedAt: number | null = null;
  let unknownCodes = 0;
  let badTimes = 0;
  let resizesClamped = 0;
  // Escape counts past the screen's size are lowered before xterm.js sees them (core/escapes.ts): a
  // 13-byte ESC[2147483647S would otherwise keep the player busy for minutes.
  const clamp = new EscapeClamp({ cols, rows });
  const all = parsed.events;
  for (let i = 0; i < all.length; i++) {
    const e = all[i];
    if (!CAST_CODES.has(e.code) || typeof e.data !== 'string') {
      unknownCodes++;
      continue;
    }
    // Times that go back or are not finite / absurd (1e308) play at the time of the event before.
    const ok = Number.isFinite(e.time) && e.time >= last && e.time < MAX_EVENT_SECONDS;
    if (!ok) badTimes++;
    const t = ok ? e.time : last;
    if (chars + e.data.length > maxChars) {
      // Keep what fits of a single huge first event rather than nothing.
      if (events.length === 0) {
        events.push([t, e.code as CastEventCode, e.code === 'o' ? clamp.push(e.data.slice(0, maxChars)) + clamp.flush() : e.data.slice(0, maxChars)]);
        last = t;
      }
      truncatedAt = last;
      break;
    }
    chars += e.data.length;
    last = t;
    let data = e.data;
    if (e.code === 'o') data = clamp.push(data);
    else if (e.code === 'r') {
      const size = resizeOf(data);
      if (size) {
        if (size.clamped) resizesClamped++;
        clamp.resize(size);
        data = `${size.cols}x${size.rows}`;
      }
    }
    events.push([t, e.code as CastEventCode, data]);
  }
  const rest = clamp.flush();
  if (rest) events.push([last, 'o', rest]);
  const lastTime = all.length ? all[all.length - 1].time : 0;
  const end = Number.isFinite(lastTime) && lastTime < MAX_EVENT_SECONDS ? lastTime : last;
  const notes: string[] = [];
  if (sizeClamped) notes.push(`The recording asks for a ${asked.cols}×${asked.rows} terminal; the player shows at most ${MAX_TERM_COLS}×${MAX_TERM_ROWS}.`);
  if (resizesClamped) notes.push(`${resizesClamped} resize ${resizesClamped === 1 ? 'event asks' : 'events ask'} for more than ${MAX_TERM_COLS}×${MAX_TERM_ROWS}; the player stops there.`);
  if (clamp.clamped) notes.push(`${clamp.clamped} escape ${clamp.clamped === 1 ? 'sequence asks' : 'sequences ask'} for more rows or columns than the screen has; ${clamp.clamped === 1 ? 'it was' : 'they were'} lowered to the screen's size.`);
  if (badTimes) notes.push(`${badTimes} ${badTimes === 1 ? 'event has a time' : 'events have times'} before the event before or past ${MAX_EVENT_SECONDS} s; ${badTimes === 1 ? 'it plays' : 'they play'} at the time of the event before.`);
  if (unknownCodes) notes.push(`${unknownCodes} ${unknownCodes === 1 ? 'event has' : 'events have'} an event code the player does not know (not o, i, m, r or x) and ${unknownCodes === 1 ? 'was' : 'were'} skipped.`);
  if (truncatedAt !== null) {
    notes.push(`The recording is long: the player shows its first ${formatBytes(maxChars)} of terminal data, up to ${clock(truncatedAt)} of ${clock(end)}.`);
  }
  const bad = parsed.issues?.length ?? 0;
  if (bad) notes.push(`${bad} damaged event ${bad === 1 ? 'line was' : 'lines were'} left out.`);
  return { cast: { cols, rows, duration: last, title, events, truncatedAt }, note: notes.length ? notes.join(' ') : null };
}

/** The `cast` answer for a recording that cannot be shown. */
export function castError(rolloutIndex: number, rolloutId: string, file: string, error: string): CastMessage {
  return { type: 'cast', rolloutIndex, rolloutId, path: file, cast: null, error, note: null };
}
