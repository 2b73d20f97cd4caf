/**
 * Pure helpers of the terminal player: finding events and steps by time, clock text. Times are
 * seconds from the start of the recording (asciicast event times, `Step.castTime`).
 */
import { MAX_TERM_COLS, MAX_TERM_ROWS, type CastEventView } from '../src/shared/castProtocol';

/** Index of the first event later than `t` (events sorted by time): events [0, result) are at or before `t`. */
export function eventsUpTo(events: readonly CastEventView[], t: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid][0] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A step's place on the recording. */
export interface StepMark {
  index: number;
  time: number;
}

/** Steps that have a `castTime`, sorted by time (then index). */
export function stepMarks(steps: readonly { index: number; castTime?: number | null }[]): StepMark[] {
  const marks: StepMark[] = [];
  for (const s of steps) {
    if (typeof s.castTime === 'number' && Number.isFinite(s.castTime)) marks.push({ index: s.index, time: Math.max(0, s.castTime) });
  }
  return marks.sort((a, b) => a.time - b.time || a.index - b.index);
}

/** The step running at time `t`: the last mark at or before `t` (null before the first). */
export function stepAtTime(marks: readonly StepMark[], t: number): number | null {
  let lo = 0;
  let hi = marks.length;
  // Marks count as reached a microsecond early, so seeking exactly to a step's time lands on it.
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (marks[mid].time <= t + 1e-6) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? marks[lo - 1].index : null;
}

/** `0:06.3`, `12:04.0`, `1:02:03` */
export function formatClock(sec: number, tenths = true): string {
  const s = Math.max(0, sec);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const whole = Math.floor(s % 60);
  const frac = tenths ? `.${Math.floor((s * 10) % 10)}` : '';
  const ss = String(whole).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}${frac}` : `${m}:${ss}${frac}`;
}

/** `COLSxROWS` of an asciicast resize event (at most MAX_TERM_COLS×MAX_TERM_ROWS: the host clamps them so), or null when malformed. */
export function parseResize(data: string): { cols: number; rows: number } | null {
  const m = /^\s*(\d{1,5})\s*x\s*(\d{1,5})\s*$/.exec(data);
  if (!m) return null;
  const cols = Number(m[1]);
  const rows = Number(m[2]);
  return cols > 0 && rows > 0 ? { cols: Math.min(cols, MAX_TERM_COLS), rows: Math.min(rows, MAX_TERM_ROWS) } : null;
}

/**
 * Splits events [from, to) into what the terminal must do, in order: output text to write
 * (consecutive `o` events joined) and resizes. Input, marker and exit events show no output.
 */
export type TermOp = { kind: 'write'; data: string } | { kind: 'resize'; cols: number; rows: number };

export function termOps(events: readonly CastEventView[], from: number, to: number): TermOp[] {
  const ops: TermOp[] = [];
  let buf: string[] = [];
  const flush = (): void => {
    if (buf.length) ops.push({ kind: 'write', data: buf.join('') });
    buf = [];
  };
  for (let i = from; i < to; i++) {
    const [, code, data] = events[i];
    if (code === 'o') buf.push(data);
    else if (code === 'r') {
      const size = parseResize(data);
      if (size) {
        flush();
        ops.push({ kind: 'resize', ...size });
      }
    }
  }
  flush();
  return ops;
}
