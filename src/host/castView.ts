/**
 * A terminal recording as the timeline's player gets it: the terminal size from the asciicast
 * header, the events cut to a size the player can hold (with notes saying what was cut, clamped or
 * skipped), the note of a streamed recording (`streamNote`), and the `cast` answer for a recording
 * that cannot be shown. Reading the file is castFile.ts. Nothing here imports `vscode` (test/unit/host/castView.test.ts).
 */
import { EscapeClamp } from '../core/escapes';
import { MAX_EVENT_SECONDS } from '../core/formats/asciicast';
import { MAX_TERM_COLS, MAX_TERM_ROWS, type CastEventCode, type CastEventView, type CastMessage, type CastView } from '../shared/castProtocol';
import { formatBytes } from '../shared/text';

/** Recordings read whole (v1 casts: castFile.ts `readCastMessage`) larger than this are not read at all (the player says so). */
export const MAX_CAST_FILE_BYTES = 100 * 1024 * 1024;
/**
 * A recording read whole gives the player at most this many characters of event data; a longer one
 * is cut after the event that crosses the limit, with a note. (Streamed v2 / v3 recordings,
 * castStream.ts, have no such cap.)
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
export function castSizeAsked(header: unknown): { cols: number; rows: number } {
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

/**
 * The player's note for a streamed recording (src/host/castStream.ts): the same sentences as
 * castView's for what the reading so far clamped, skipped or left out; null when nothing.
 */
export function streamNote(
  header: unknown,
  counts: { damaged: number; unknownCodes: number; badTimes: number; resizesClamped: number; escapesClamped: number },
): string | null {
  const asked = castSizeAsked(header);
  const { cols, rows } = castSize(header);
  const notes: string[] = [];
  if (asked.cols !== cols || asked.rows !== rows) notes.push(`The recording asks for a ${asked.cols}×${asked.rows} terminal; the player shows at most ${MAX_TERM_COLS}×${MAX_TERM_ROWS}.`);
  const n = counts;
  if (n.resizesClamped) notes.push(`${n.resizesClamped} resize ${n.resizesClamped === 1 ? 'event asks' : 'events ask'} for more than ${MAX_TERM_COLS}×${MAX_TERM_ROWS}; the player stops there.`);
  if (n.escapesClamped) notes.push(`${n.escapesClamped} escape ${n.escapesClamped === 1 ? 'sequence asks' : 'sequences ask'} for more rows or columns than the screen has; ${n.escapesClamped === 1 ? 'it was' : 'they were'} lowered to the screen's size.`);
  if (n.badTimes) notes.push(`${n.badTimes} ${n.badTimes === 1 ? 'event has a time' : 'events have times'} before the event before or past ${MAX_EVENT_SECONDS} s; ${n.badTimes === 1 ? 'it plays' : 'they play'} at the time of the event before.`);
  if (n.unknownCodes) notes.push(`${n.unknownCodes} ${n.unknownCodes === 1 ? 'event has' : 'events have'} an event code the player does not know (not o, i, m, r or x) and ${n.unknownCodes === 1 ? 'was' : 'were'} skipped.`);
  if (n.damaged) notes.push(`${n.damaged} damaged event ${n.damaged === 1 ? 'line was' : 'lines were'} left out.`);
  return notes.length ? notes.join(' ') : null;
}

/** The `cast` answer for a recording that cannot be shown. */
export function castError(rolloutIndex: number, rolloutId: string, file: string, error: string): CastMessage {
  return { type: 'cast', rolloutIndex, rolloutId, path: file, cast: null, error, note: null };
}
