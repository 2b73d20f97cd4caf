/**
 * Streaming reading of an asciicast v2 / v3 recording for the terminal player: event lines are
 * turned into player events one at a time (`CastScanner`), from any place in the file whose scan
 * state was kept (`CastScanState`), and the file's bytes are cut into segments at line ends with the
 * state at the start of each (`CastSegmenter`), so a player can be fed any part of a recording of
 * any size without reading what comes before it.
 *
 * Format: see asciicast.ts (asciinema `src/asciicast/v2.rs`, `v3.rs`). The events given are those
 * of core `parseAsciicast` (lenient: a damaged line is counted and left out; v3 `#` comment lines
 * skipped; times as whole microseconds, v3 intervals summed) as the host's `castView` turns them
 * into the player's (src/host/castView.ts, which this reproduces event for event; a unit test checks
 * it on the sample casts):
 * - unknown event codes (not o, i, m, r, x) are dropped (counted);
 * - a time that goes back, is not finite, or is past MAX_EVENT_SECONDS plays at the time of the event
 *   before (counted);
 * - output (`o`) goes through `EscapeClamp` (absurd CSI counts lowered to the screen's size,
 *   core/escapes.ts), with the screen size following resize (`r`) events, which are clamped to
 *   MAX_SCREEN_COLS×MAX_SCREEN_ROWS and rewritten `COLSxROWS`.
 * No `vscode`, no file system: the host reads the bytes (src/host/castStream.ts).
 */
import { EscapeClamp } from '../escapes';
import { MAX_SCREEN_COLS, MAX_SCREEN_ROWS } from '../escapes';
import { MAX_EVENT_SECONDS } from './asciicast';

/** One player event: [seconds from the start, code, data] (as src/shared/castProtocol `CastEventView`). */
export type ScannedEvent = [number, string, string];

/** Where a scan stands between two lines: enough to resume it there with the same results. */
export interface CastScanState {
  /** Played time of the last event before (seconds; 0 at the start). */
  time: number;
  /** v3: running sum of the event intervals so far, whole microseconds (0 for v2). */
  acc: number;
  /** Screen size the escape clamp uses (the header's, then resize events'). */
  cols: number;
  rows: number;
  /** Incomplete escape sequence held back by the clamp (EscapeClamp.pending). */
  held: string;
}

/** What a scan left out or changed, counted (for the player's note). */
export interface CastScanCounts {
  damaged: number;
  unknownCodes: number;
  badTimes: number;
  resizesClamped: number;
  escapesClamped: number;
}

const CODES = new Set(['o', 'i', 'm', 'r', 'x']);

/** `COLSxROWS` of a resize event, clamped to MAX_SCREEN_*, or null when malformed (as castView). */
export function scanResize(data: string): { cols: number; rows: number; clamped: boolean } | null {
  const m = /^\s*(\d{1,9})\s*x\s*(\d{1,9})\s*$/.exec(data);
  if (!m) return null;
  const cols = Number(m[1]);
  const rows = Number(m[2]);
  if (!(cols > 0 && rows > 0)) return null;
  return { cols: Math.min(cols, MAX_SCREEN_COLS), rows: Math.min(rows, MAX_SCREEN_ROWS), clamped: cols > MAX_SCREEN_COLS || rows > MAX_SCREEN_ROWS };
}

/** Turns event lines into player events from a scan state (see the module docs). */
export class CastScanner {
  readonly counts: CastScanCounts = { damaged: 0, unknownCodes: 0, badTimes: 0, resizesClamped: 0, escapesClamped: 0 };
  private time: number;
  private acc: number;
  private cols: number;
  private rows: number;
  private readonly clamp: EscapeClamp;

  constructor(
    private readonly version: 2 | 3,
    start: CastScanState,
  ) {
    this.time = start.time;
    this.acc = start.acc;
    this.cols = start.cols;
    this.rows = start.rows;
    this.clamp = new EscapeClamp({ cols: start.cols, rows: start.rows }, start.held);
  }

  /** The state after the lines given so far. */
  state(): CastScanState {
    return { time: this.time, acc: this.acc, cols: this.cols, rows: this.rows, held: this.clamp.pending };
  }

  /** Played time of the last event so far (seconds). */
  get lastTime(): number {
    return this.time;
  }

  /**
   * The player event of one line of the file (its text without the line break), or null for a
   * blank line, a v3 comment, a damaged line or an unknown code (the last two counted).
   */
  line(raw: string): ScannedEvent | null {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return null;
    if (this.version === 3 && text.startsWith('#')) return null;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      this.counts.damaged++;
      return null;
    }
    if (!Array.isArray(v) || v.length < 3 || typeof v[0] !== 'number' || !Number.isFinite(v[0]) || v[0] < 0 || typeof v[1] !== 'string' || v[1] === '' || typeof v[2] !== 'string') {
      this.counts.damaged++;
      return null;
    }
    const us = Math.round(v[0] * 1e6);
    if (this.version === 3) this.acc += us;
    const time = (this.version === 3 ? this.acc : us) / 1e6;
    const code = v[1];
    if (!CODES.has(code)) {
      this.counts.unknownCodes++;
      return null;
    }
    const ok = Number.isFinite(time) && time >= this.time && time < MAX_EVENT_SECONDS;
    if (!ok) this.counts.badTimes++;
    const t = ok ? time : this.time;
    this.time = t;
    let data = v[2] as string;
    if (code === 'o') {
      const before = this.clamp.clamped;
      data = this.clamp.push(data);
      this.counts.escapesClamped += this.clamp.clamped - before;
    } else if (code === 'r') {
      const size = scanResize(data);
      if (size) {
        if (size.clamped) this.counts.resizesClamped++;
        this.clamp.resize(size);
        this.cols = size.cols;
        this.rows = size.rows;
        data = `${size.cols}x${size.rows}`;
      }
    }
    return [t, code, data];
  }

  /** What the clamp still holds at the end of the recording, as an output event (null when nothing). */
  finish(): ScannedEvent | null {
    const rest = this.clamp.flush();
    return rest ? [this.time, 'o', rest] : null;
  }

  /** Events of a text of whole lines (`\n`-separated; a last line without one counts too). */
  lines(text: string, out: ScannedEvent[] = []): ScannedEvent[] {
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const e = this.line(text.slice(start, end));
      if (e) out.push(e);
      start = end + 1;
    }
    return out;
  }
}

/** A stretch of whole lines of the file: its first byte, its length, and the scan state before it. */
export interface CastSegment {
  offset: number;
  bytes: number;
  /** Events before the segment (kept ones). */
  eventsBefore: number;
  state: CastScanState;
}

/**
 * Cuts the event lines of a recording, given as byte chunks in file order, into segments of about
 * `segmentBytes` (each ending at a line end, a long line making a longer one) and scans them: for each
 * segment `onSegment` gets it with its text and events. The header line must be consumed before
 * (`start` = byte after it).
 */
export class CastSegmenter {
  readonly scanner: CastScanner;
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private offset: number;
  private events = 0;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(
    version: 2 | 3,
    start: { offset: number; state: CastScanState },
    private readonly segmentBytes: number,
    private readonly onSegment: (seg: CastSegment, events: ScannedEvent[]) => void,
  ) {
    this.scanner = new CastScanner(version, start.state);
    this.offset = start.offset;
  }

  /** Events given so far. */
  get eventCount(): number {
    return this.events;
  }

  /** Feeds the next bytes of the file. */
  push(chunk: Buffer): void {
    this.carry.push(chunk);
    this.carryBytes += chunk.length;
    if (this.carryBytes < this.segmentBytes) return;
    const all = this.carry.length === 1 ? this.carry[0] : Buffer.concat(this.carry, this.carryBytes);
    let from = 0;
    while (all.length - from >= this.segmentBytes) {
      const nl = all.indexOf(10, from + this.segmentBytes - 1);
      if (nl < 0) break;
      this.emit(all.subarray(from, nl + 1));
      from = nl + 1;
    }
    const rest = all.subarray(from);
    this.carry = rest.length ? [Buffer.from(rest)] : [];
    this.carryBytes = rest.length;
  }

  /** The end of the file: the last segment (when bytes are left) and the clamp's rest. */
  end(): ScannedEvent | null {
    if (this.carryBytes) this.emit(this.carry.length === 1 ? this.carry[0] : Buffer.concat(this.carry, this.carryBytes));
    this.carry = [];
    this.carryBytes = 0;
    return this.scanner.finish();
  }

  private emit(bytes: Buffer): void {
    const seg: CastSegment = { offset: this.offset, bytes: bytes.length, eventsBefore: this.events, state: this.scanner.state() };
    const events = this.scanner.lines(this.decoder.decode(bytes));
    this.events += events.length;
    this.offset += bytes.length;
    this.onSegment(seg, events);
  }
}
