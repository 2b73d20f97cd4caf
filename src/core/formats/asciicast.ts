/**
 * asciinema recordings (`.cast`, asciicast v1, v2 and v3) as rollouts, and a pure parser for the
 * terminal player.
 *
 * Source of the format: asciinema/asciinema `src/asciicast.rs` (`open`: v3 header tried first, then
 * v2, then the whole text as v1), `src/asciicast/{v1,v2,v3}.rs` and `util.rs` (`deserialize_time`:
 * times are read as whole microseconds); docs.asciinema.org/manual/asciicast/v2 and /v3.
 * - v2: newline-delimited JSON. Line 1 is the header `{version: 2, width, height, timestamp?,
 *   duration?, idle_time_limit?, command?, title?, env?, theme?{fg, bg, palette}}`; every other
 *   non-blank line is an event `[time, code, data]` with `time` in seconds since the start
 *   (absolute).
 * - v3: header `{version: 3, term: {cols, rows, type?, version?, theme?}, timestamp?, idle_time_limit?,
 *   command?, title?, env?}`; event `time` is the interval since the previous event; lines starting
 *   with `#` are comments (the header line cannot be one).
 * - v1: one JSON object `{version: 1, width, height, duration?, command?, title?, env?,
 *   stdout: [[delay, data], …]}`; `delay` is the interval since the previous frame; every frame is
 *   output.
 * Event codes: `o` output, `i` input (recorded with `--stdin`), `m` marker (data = label), `r`
 * resize (`"COLSxROWS"`), `x` exit status (v3); any other one-letter code is kept as is.
 *
 * `parseAsciicast` turns a cast text into `{version, header, events, issues}` where every event time
 * is absolute seconds from the start (v1/v3 intervals summed in whole microseconds, as asciinema does,
 * so sums do not drift), for the webview player that feeds the events to xterm.js.
 *
 * A `.cast` as a rollout (format id `asciicast`, one rollout per file; `recording` = the file itself):
 * - The session is cut into steps at markers (`m`) when there are any: each marker starts an `agent`
 *   step whose `message` is the marker label. Otherwise, when there is input (`i`), at input lines:
 *   input events are gathered until one holds a line break (`\r` or `\n`) and form one `agent` step
 *   with one `keystrokes` action whose `command` is the input text exactly as recorded (a paste that
 *   holds several lines in one event stays one step). Otherwise the whole output is one
 *   `environment` step. Output before the first marker / input becomes a leading `environment`
 *   step (castTime 0) when there is any.
 * - A step's observation is all output (`o`) from its first event up to the next step's first event;
 *   `exitCode` is the last `x` event inside the step (v3), else null. In marker mode the inputs
 *   inside a marker step are its actions (one per input line).
 * - `castTime` = absolute seconds of the step's first event (0 for a leading step); `durationSec` =
 *   until the next step's `castTime` (the last step: until the last event); `range` = from the first to
 *   the last event line of the step.
 * - `outcome.status` = data of the last `x` event (v3 exit status) when there is one; everything else
 *   in the outcome is unknown. Header fields (size, title, command, env, start time) go to
 *   `metadata`. Task and agent are unknown.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { asWarning, describeValue, RolloutLoadError, type LocatedIssue } from '../errors';
import { MAX_SCREEN_COLS, MAX_SCREEN_ROWS } from '../escapes';
import { JsonDoc, LineIndex, splitJsonl } from '../json';
import { makeStep, unknownOutcome, type Action, type Observation, type Rollout, type Step } from '../model';
import type { FormatLoader } from './types';
import { isObject } from './util';

const FORMAT = 'asciicast (.cast)';

/** The header of a cast, the same fields whatever the version. */
export interface AsciicastHeader {
  version: 1 | 2 | 3;
  /** Terminal width / height in cells (v1/v2 `width`/`height`, v3 `term.cols`/`term.rows`). */
  cols: number;
  rows: number;
  /** Unix seconds at which the recording started, or null. */
  timestamp: number | null;
  idleTimeLimit: number | null;
  command: string | null;
  title: string | null;
  /** `env` as recorded (values may be null), or null. */
  env: Record<string, string | null> | null;
  /** v3 `term.type`, else `env.TERM`, or null. */
  termType: string | null;
  /** Colour theme (v2 `theme`, v3 `term.theme`): `#rrggbb` fg/bg and a `:`-separated palette, or null. */
  theme: { fg: string; bg: string; palette: string } | null;
  /** The header object exactly as in the file (for v1: the root object without `stdout`). */
  raw: Record<string, unknown>;
}

/** One event, with its time made absolute. */
export interface AsciicastEvent {
  /** Seconds from the start of the recording (absolute, whatever the version). */
  time: number;
  /** `o` output, `i` input, `m` marker, `r` resize, `x` exit status, or another code as recorded. */
  code: string;
  /** Output/input text, marker label, `COLSxROWS`, or exit status, as recorded. */
  data: string;
}

/** An event with where it sits in the file (offsets into the text, 1-based line). */
export interface PositionedEvent extends AsciicastEvent {
  start: number;
  end: number;
  line: number;
}

/** Result of `parseAsciicast`. */
export interface ParsedAsciicast {
  version: 1 | 2 | 3;
  header: AsciicastHeader;
  events: AsciicastEvent[];
  /** Bad event lines left out (lenient mode only); [] otherwise. */
  issues: LocatedIssue[];
}

export interface ParseAsciicastOptions {
  /** File path used in located errors (default `<cast>`). */
  file?: string;
  /**
   * When true, event lines that are not valid events are left out and listed in `issues` instead of
   * failing the whole cast (a recording cut off mid-line by a killed run). A bad header still throws.
   */
  lenient?: boolean;
}

const Theme = z.looseObject({ fg: z.string(), bg: z.string(), palette: z.string() });
const Env = z.record(z.string(), z.string().nullable());
const Common = {
  timestamp: z.number().nullable().optional(),
  idle_time_limit: z.number().nullable().optional(),
  command: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
  env: Env.nullable().optional(),
};
const Size = z.number().int().nonnegative();

/** v2 header line. */
export const V2Header = z.looseObject({ version: z.literal(2), width: Size, height: Size, theme: Theme.nullable().optional(), ...Common });
/** v3 header line. */
export const V3Header = z.looseObject({
  version: z.literal(3),
  term: z.looseObject({
    cols: Size,
    rows: Size,
    type: z.string().nullable().optional(),
    version: z.string().nullable().optional(),
    theme: Theme.nullable().optional(),
  }),
  ...Common,
});
/** v1 document. */
export const V1Cast = z.looseObject({
  version: z.literal(1),
  width: Size,
  height: Size,
  command: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
  env: Env.nullable().optional(),
  stdout: z.array(z.tuple([z.number().nonnegative(), z.string()]).rest(z.unknown())),
});

/** True for a v2 or v3 header value (cheap shape check used by detection). */
export function isCastHeader(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (v.version === 2) return typeof v.width === 'number' && typeof v.height === 'number';
  if (v.version === 3) return isObject(v.term) && typeof v.term.cols === 'number' && typeof v.term.rows === 'number';
  return false;
}

/** True for a v1 cast value. */
export function isV1Cast(v: unknown): boolean {
  return isObject(v) && v.version === 1 && Array.isArray(v.stdout);
}

/** Seconds → whole microseconds (asciinema reads times as µs). */
function micros(t: number): number {
  return Math.round(t * 1e6);
}

function header(version: 1 | 2 | 3, raw: Record<string, unknown>, parsed: any): AsciicastHeader {
  const env: Record<string, string | null> | null = parsed.env ?? null;
  const term = version === 3 ? parsed.term : null;
  return {
    version,
    cols: version === 3 ? term.cols : parsed.width,
    rows: version === 3 ? term.rows : parsed.height,
    timestamp: parsed.timestamp ?? null,
    idleTimeLimit: parsed.idle_time_limit ?? null,
    command: parsed.command ?? null,
    title: parsed.title ?? null,
    env,
    termType: (version === 3 ? term.type : null) ?? env?.TERM ?? null,
    theme: (version === 3 ? term.theme : parsed.theme) ?? null,
    raw,
  };
}

/**
 * Parses a cast text with positions (see `parseAsciicast`). Throws RolloutLoadError with located
 * issues (file, line, column, JSON pointer inside the line's value).
 */
export function parseAsciicastPositioned(
  text: string,
  options: ParseAsciicastOptions = {},
): { version: 1 | 2 | 3; header: AsciicastHeader; events: PositionedEvent[]; issues: LocatedIssue[] } {
  const file = options.file ?? '<cast>';
  const fail = (issues: LocatedIssue[]): never => {
    throw new RolloutLoadError(file, FORMAT, issues);
  };
  const index = new LineIndex(text);
  const lines = splitJsonl(text);
  if (lines.length === 0) fail([{ file, line: 1, column: 1, pointer: null, expected: 'an asciicast header line', found: 'an empty file' }]);
  const withFormat = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      if (e instanceof RolloutLoadError) throw new RolloutLoadError(file, FORMAT, e.issues);
      throw e;
    }
  };
  const first = lines[0];
  // v1 is one JSON value over many lines: try the header line alone first (v2/v3), as asciinema does.
  let headDoc: JsonDoc | null = null;
  try {
    headDoc = JsonDoc.parse(file, first.text, first.offset, index);
  } catch {
    headDoc = null;
  }
  const headValue = headDoc?.value;
  const isHeader = isObject(headValue) && (headValue.version === 2 || headValue.version === 3);
  if (!isHeader) {
    if (headDoc && (!isObject(headValue) || headValue.version !== 1)) {
      fail([headDoc.issue(isObject(headValue) ? ['version'] : [], isObject(headValue) ? 'asciicast version 1, 2 or 3' : 'an asciicast header object')]);
    }
    // No header line: the whole text must be one v1 object (pretty-printed over many lines).
    const whole = withFormat(() => JsonDoc.parse(file, text, 0, index));
    if (isObject(whole.value) && whole.value.version === 1) return parseV1(whole, file);
    fail([whole.issue(isObject(whole.value) ? ['version'] : [], isObject(whole.value) ? 'asciicast version 1, 2 or 3' : 'an asciicast header object')]);
  }
  const doc = headDoc as JsonDoc;
  const version = (headValue as Record<string, unknown>).version as 2 | 3;
  const parsed = withFormat(() => doc.validate(version === 3 ? V3Header : V2Header, FORMAT));
  const hdr = header(version, headValue as Record<string, unknown>, parsed);

  const events: PositionedEvent[] = [];
  const issues: LocatedIssue[] = [];
  let acc = 0; // v3: running sum of intervals, µs
  for (let k = 1; k < lines.length; k++) {
    const l = lines[k];
    if (version === 3 && l.text.startsWith('#')) continue;
    const checked = checkEvent(l.text);
    if (!checked.ok) {
      const problem = checked;
      let issue: LocatedIssue;
      try {
        issue = JsonDoc.parse(file, l.text, l.offset, index).issue(problem.path, problem.expected);
      } catch (e) {
        issue = e instanceof RolloutLoadError ? e.issues[0] : { file, ...index.position(l.offset), pointer: null, expected: 'valid JSON', found: 'unparseable text' };
      }
      if (!options.lenient) fail([issue]);
      issues.push(issue);
      continue;
    }
    const ev = checked.event;
    const us = micros(ev[0]);
    if (version === 3) acc += us;
    events.push({ time: (version === 3 ? acc : us) / 1e6, code: ev[1], data: ev[2], start: l.offset, end: l.offset + l.text.length, line: l.line });
  }
  return { version, header: hdr, events, issues };
}

type CheckedEvent = { ok: true; event: [number, string, string] } | { ok: false; path: (string | number)[]; expected: string };

/** Parses an event line `[time ≥ 0, code, data]`, or says where it is not one (JSON path, what was expected). */
function checkEvent(text: string): CheckedEvent {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, path: [], expected: 'valid JSON' };
  }
  if (!Array.isArray(v)) return { ok: false, path: [], expected: 'an event array [time, code, data]' };
  if (v.length < 3) return { ok: false, path: [], expected: 'an event array of 3 items [time, code, data]' };
  if (typeof v[0] !== 'number' || !Number.isFinite(v[0]) || v[0] < 0) return { ok: false, path: [0], expected: 'a time in seconds (number ≥ 0)' };
  if (typeof v[1] !== 'string' || v[1] === '') return { ok: false, path: [1], expected: 'an event code (non-empty string: "o", "i", "m", "r", "x")' };
  if (typeof v[2] !== 'string') return { ok: false, path: [2], expected: 'event data (string)' };
  return { ok: true, event: v as [number, string, string] };
}

function parseV1(doc: JsonDoc, file: string): { version: 1; header: AsciicastHeader; events: PositionedEvent[]; issues: LocatedIssue[] } {
  let parsed: z.infer<typeof V1Cast>;
  try {
    parsed = doc.validate(V1Cast, FORMAT);
  } catch (e) {
    if (e instanceof RolloutLoadError) throw new RolloutLoadError(file, FORMAT, e.issues);
    throw e;
  }
  const raw = { ...(doc.value as Record<string, unknown>) };
  delete raw.stdout;
  let acc = 0;
  const events = parsed.stdout.map((frame, i) => {
    acc += micros(frame[0]);
    const r = doc.rangeOf(['stdout', i]) ?? { start: 0, end: 0 };
    return { time: acc / 1e6, code: 'o', data: frame[1], start: r.start, end: r.end, line: doc.locate(['stdout', i]).line };
  });
  return { version: 1, header: header(1, raw, parsed), events, issues: [] };
}

/**
 * Parses an asciicast v1, v2 or v3 text (version told by the header, as asciinema does) into
 * `{version, header, events, issues}`:
 * - `header`: `AsciicastHeader` (cols/rows, timestamp, theme, … the same fields for every version,
 *   plus `raw`, the header as written);
 * - `events`: `[{time, code, data}]` in file order, `time` = absolute seconds from the start (v2 as
 *   written; v1/v3 intervals summed in whole microseconds);
 * - `issues`: the event lines left out in lenient mode.
 * Throws RolloutLoadError (file, line, column, pointer inside the line) on a bad header, or on a bad
 * event line unless `lenient`.
 */
export function parseAsciicast(text: string, options: ParseAsciicastOptions = {}): ParsedAsciicast {
  const p = parseAsciicastPositioned(text, options);
  return { version: p.version, header: p.header, events: p.events.map(({ time, code, data }) => ({ time, code, data })), issues: p.issues };
}

/** True when input text holds a line break (Enter sends `\r`; some senders `\n`). */
function endsLine(data: string): boolean {
  return data.includes('\r') || data.includes('\n');
}

/** Groups the input events of `evs[from..to)` into lines: each group ends at an event holding a line break. */
function inputLines(evs: PositionedEvent[], from: number, to: number): { first: number; text: string }[] {
  const out: { first: number; text: string }[] = [];
  let cur: { first: number; text: string } | null = null;
  for (let k = from; k < to; k++) {
    const e = evs[k];
    if (e.code !== 'i') continue;
    if (!cur) cur = { first: k, text: '' };
    cur.text += e.data;
    if (endsLine(e.data)) {
      out.push(cur);
      cur = null;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Output text, last exit status of `evs[from..to)`. */
function segmentOutput(evs: PositionedEvent[], from: number, to: number): { output: string; exit: string | null } {
  let output = '';
  let exit: string | null = null;
  for (let k = from; k < to; k++) {
    if (evs[k].code === 'o') output += evs[k].data;
    else if (evs[k].code === 'x') exit = evs[k].data;
  }
  return { output, exit };
}

/** Integer exit status of an `x` event's data, or null. */
function exitCodeOf(data: string | null): number | null {
  if (data === null || !/^\s*-?\d+\s*$/.test(data)) return null;
  return Number.parseInt(data, 10);
}

function keystrokes(text: string): Action {
  return { kind: 'keystrokes', command: text, tool: null, callId: null };
}

/** Builds the steps of a cast (see the module docs). */
export function castSteps(events: PositionedEvent[]): { steps: Step[]; split: 'markers' | 'input' | 'output' } {
  const hasMarkers = events.some((e) => e.code === 'm');
  const hasInput = events.some((e) => e.code === 'i');
  const split = hasMarkers ? 'markers' : hasInput ? 'input' : 'output';
  // Step starts: event indices; a leading segment (index 0 with no boundary event) when output precedes.
  type Start = { at: number; kind: 'lead' | 'marker' | 'input'; text?: string };
  const starts: Start[] = [];
  if (split === 'markers') {
    events.forEach((e, k) => {
      if (e.code === 'm') starts.push({ at: k, kind: 'marker' });
    });
  } else if (split === 'input') {
    for (const l of inputLines(events, 0, events.length)) starts.push({ at: l.first, kind: 'input', text: l.text });
  }
  if (split === 'output' || (starts.length > 0 && starts[0].at > 0) || starts.length === 0) starts.unshift({ at: 0, kind: 'lead' });
  const steps: Step[] = [];
  const lastTime = events.length ? events[events.length - 1].time : 0;
  for (let s = 0; s < starts.length; s++) {
    const from = starts[s].at;
    const to = s + 1 < starts.length ? starts[s + 1].at : events.length;
    const { output, exit } = segmentOutput(events, from, to);
    const kind = starts[s].kind;
    if (kind === 'lead' && split !== 'output' && output === '' && to - from === 0) continue;
    const castTime = kind === 'lead' ? 0 : events[from].time;
    const nextTime = s + 1 < starts.length ? events[starts[s + 1].at].time : lastTime;
    const observations: Observation[] = [];
    if (output !== '' || exit !== null || kind === 'lead') {
      observations.push({ callId: null, output, exitCode: exitCodeOf(exit), truncated: false });
    }
    let actions: Action[] = [];
    if (kind === 'input') actions = [keystrokes(starts[s].text ?? '')];
    else if (kind === 'marker' || kind === 'lead') actions = inputLines(events, from, to).map((l) => keystrokes(l.text));
    const range = to > from ? { start: events[from].start, end: events[to - 1].end } : null;
    steps.push(
      makeStep(steps.length, kind === 'lead' && actions.length === 0 ? 'environment' : 'agent', {
        message: kind === 'marker' ? events[from].data : '',
        actions,
        observations,
        // An absurd event time (1e308 s, past MAX_EVENT_SECONDS: a located warning) places no step on the recording.
        castTime: castTime <= MAX_EVENT_SECONDS ? castTime : null,
        durationSec: castTime <= MAX_EVENT_SECONDS && nextTime <= MAX_EVENT_SECONDS ? Math.max(0, Math.round((nextTime - castTime) * 1e6) / 1e6) : null,
        range,
      }),
    );
  }
  return { steps, split };
}

/** Event times past this (seconds from the start, ~31 years) are no real recording's. */
export const MAX_EVENT_SECONDS = 1e9;

/** Event codes of asciicast v1–v3 (others are kept, with a warning). */
const KNOWN_CODES = new Set(['o', 'i', 'm', 'r', 'x']);

/**
 * Located warnings for what loads but is odd: a header size past
 * MAX_SCREEN_COLS×MAX_SCREEN_ROWS (the player clamps it), event times that go back (v2 times are
 * absolute) or lie past MAX_EVENT_SECONDS, and unknown event codes. At most 20 of each kind are
 * located; the rest are counted in one more warning.
 */
export function castOddities(file: string, version: 1 | 2 | 3, h: AsciicastHeader, events: readonly PositionedEvent[], text = ''): LocatedIssue[] {
  const out: LocatedIssue[] = [];
  const size = version === 3 ? ['term', 'cols'] : ['width'];
  if (h.cols > MAX_SCREEN_COLS || h.rows > MAX_SCREEN_ROWS || h.cols === 0 || h.rows === 0) {
    out.push(asWarning({ file, line: 1, column: 1, pointer: '/' + size.join('/'), expected: `a terminal size from 1×1 to ${MAX_SCREEN_COLS}×${MAX_SCREEN_ROWS} (the player shows at most that)`, found: `${h.cols}×${h.rows}` }));
  }
  const counts = new Map<string, number>();
  const add = (kind: string, e: PositionedEvent, pointer: string, expected: string, found: () => string): void => {
    const n = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, n);
    if (n <= 20) out.push(asWarning({ file, line: e.line, column: 1, pointer, expected, found: found() }));
  };
  /** The time as written on the event's line (v1/v3 intervals were summed, and 1e308 s in µs is Infinity). */
  const written = (e: PositionedEvent): string => {
    try {
      const v = JSON.parse(text.slice(e.start, e.end)) as unknown;
      if (Array.isArray(v)) return describeValue(v[0]);
    } catch {
      // a v1 frame: not a line of its own
    }
    return describeValue(e.time);
  };
  let prev = 0;
  for (const e of events) {
    if (e.time > MAX_EVENT_SECONDS) add('time', e, '/0', `an event time under ${MAX_EVENT_SECONDS} s (it plays at the time of the event before)`, () => (version === 2 ? written(e) : `${written(e)} (${describeValue(e.time)} s from the start)`));
    else if (e.time < prev) add('back', e, '/0', `an event time at or after the one before (${prev} s); the player plays it at that time`, () => describeValue(e.time));
    else prev = e.time;
    if (!KNOWN_CODES.has(e.code)) add('code', e, '/1', 'an event code "o", "i", "m", "r" or "x" (the player skips others)', () => describeValue(e.code));
  }
  for (const [kind, n] of counts) {
    if (n > 20) out.push(asWarning({ file, line: null, column: null, pointer: null, expected: kind === 'code' ? 'known event codes' : 'event times in order, under ' + MAX_EVENT_SECONDS + ' s', found: `${n - 20} more events like the ones above` }));
  }
  return out;
}

/** Unix seconds → ISO-8601, or null. */
function isoFromUnix(n: number | null): string | null {
  if (n === null) return null;
  const d = new Date(n * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** Loader for asciinema `.cast` recordings (format id `asciicast`). */
export const asciicastLoader: FormatLoader = {
  id: 'asciicast',
  label: 'asciinema recording (.cast, asciicast v1/v2/v3)',
  /**
   * Accepts a first line that is a v2 header (`version: 2` with numeric `width`/`height`) or a v3
   * header (`version: 3` with `term.cols`/`term.rows`) (0.95, also for a header-only file), or one
   * JSON object `{version: 1, stdout: [...]}` (0.95).
   */
  detect(input) {
    if (input.lines && isCastHeader(input.firstLineValue)) return { accept: true, confidence: 0.95 };
    const v = input.doc?.value;
    if (isCastHeader(v)) return { accept: true, confidence: 0.95 };
    if (isV1Cast(v) && typeof (v as Record<string, unknown>).width === 'number') return { accept: true, confidence: 0.95 };
    return {
      accept: false,
      reason: 'first line is no asciicast header ({"version": 2, "width", "height"} or {"version": 3, "term": {"cols", "rows"}}), and not a v1 {"version": 1, "stdout": [...]}',
    };
  },
  /** Reads the one rollout of a cast. Throws RolloutLoadError with located issues. */
  async load(input) {
    const cast = parseAsciicastPositioned(input.text, { file: input.path });
    const odd = castOddities(input.path, cast.version, cast.header, cast.events, input.text);
    if (odd.length) (input.issues ??= []).push(...odd);
    const { steps, split } = castSteps(cast.events);
    const h = cast.header;
    const counts: Record<string, number> = {};
    let lastExit: PositionedEvent | null = null;
    for (const e of cast.events) {
      counts[e.code] = (counts[e.code] ?? 0) + 1;
      if (e.code === 'x') lastExit = e;
    }
    const metadata: Record<string, unknown> = {
      asciicastVersion: cast.version,
      cols: h.cols,
      rows: h.rows,
      stepSplit: split,
      eventCounts: counts,
      durationSec: cast.events.length && cast.events[cast.events.length - 1].time <= MAX_EVENT_SECONDS ? cast.events[cast.events.length - 1].time : null,
    };
    if (h.timestamp !== null) {
      metadata.timestamp = h.timestamp;
      metadata.startedAt = isoFromUnix(h.timestamp);
    }
    if (h.title !== null) metadata.title = h.title;
    if (h.command !== null) metadata.command = h.command;
    if (h.termType !== null) metadata.termType = h.termType;
    if (h.env !== null) metadata.env = h.env;
    if (h.idleTimeLimit !== null) metadata.idleTimeLimit = h.idleTimeLimit;
    const outcome = unknownOutcome();
    if (lastExit) {
      outcome.status = lastExit.data;
      outcome.source = `"x" event (line ${lastExit.line})`;
    }
    const rollout: Rollout = {
      id: `${input.path}#0`,
      format: 'asciicast',
      schemaVersion: `asciicast-v${cast.version}`,
      source: { path: input.path, range: null, line: null },
      task: { id: null, instruction: null },
      agent: { name: null, version: null, model: null },
      environment: { image: null, workdir: null },
      outcome,
      groupId: null,
      steps,
      metadata,
      recording: { path: input.path, kind: 'asciicast' },
    };
    return [rollout];
  },
};
