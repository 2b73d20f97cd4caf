/**
 * Terminal recordings in the timeline: the webview asks for the recording of a rollout that has one
 * (`loadCast`, protocol.ts) and the host answers with `cast`, read by core `parseAsciicast` and cut
 * to what the player can show (src/host/castView.ts `castView`).
 */
import { isIndex, isObj } from './guards';

/** Kind of an asciicast event: output, input, marker, resize (`COLSxROWS`), exit. */
export type CastEventCode = 'o' | 'i' | 'm' | 'r' | 'x';

/** One recording event, compact: [seconds from the start of the recording, code, data]. */
export type CastEventView = [number, CastEventCode, string];

/**
 * Largest terminal the player emulates (cells). A recording whose header or resize events ask for
 * more is shown at this size, with a note (a 10000×10000 header would take 1.2 GB in xterm.js).
 */
export const MAX_TERM_COLS = 500;
export const MAX_TERM_ROWS = 200;

/** A terminal recording ready to play. Event times never decrease. */
export interface CastView {
  /** Terminal size at the start (later `r` events resize it). */
  cols: number;
  rows: number;
  /** Seconds from the start to the last event kept. */
  duration: number;
  /** Recording title from the header, when it has one. */
  title: string | null;
  events: CastEventView[];
  /** Set when the host cut the recording short (size limit): the time of the last event kept. */
  truncatedAt: number | null;
  /**
   * Set when the recording is streamed (src/host/castStream.ts): `events` are then only its first
   * window, the rest comes with `castWindow` answers, and `duration` is an estimate until a
   * `castProgress` with `done` (null or absent: `events` is the whole recording).
   */
  stream?: CastStreamInfo | null;
}

/** A streamed recording: the id to ask for its windows with, and the segment after the first window. */
export interface CastStreamInfo {
  id: string;
  /** Segment to ask for next (`castWindow` with `from`), or null when `events` reach the end. */
  next: number | null;
}

/**
 * Ask for a window of a streamed recording: the segments from `from` on (playing on), or, with
 * `time`, the screen at that time (a seek): answered by `castWindow` with the same `stream` and `seq`.
 */
export interface CastWindowRequest {
  type: 'castWindow';
  stream: string;
  seq: number;
  from: number | null;
  time: number | null;
}

/**
 * A window of a streamed recording. A seek's (`time` set) starts from `base`, a screen snapshot to
 * write to a reset terminal of `base.cols`×`base.rows` (null: a reset terminal of the recording's
 * size; then `startTime` is 0); its events follow on from there. A window asked for with `from`
 * continues the one before.
 */
export interface CastWindowMessage {
  type: 'castWindow';
  stream: string;
  seq: number;
  time: number | null;
  from: number;
  startTime: number;
  base: { screen: string; cols: number; rows: number } | null;
  events: CastEventView[];
  /** Segment after this window, or null at the end of the recording. */
  next: number | null;
}

/** How far the host has read a streamed recording: its duration so far (final once `done`), and the player's note. */
export interface CastProgressMessage {
  type: 'castProgress';
  stream: string;
  duration: number;
  done: boolean;
  note: string | null;
}

/**
 * Answer to `loadCast`: the rollout's terminal recording, read by core `parseAsciicast`. `cast` is
 * null when it cannot be shown (missing, unreadable, over the size limit): `error` says why.
 * `note` is shown with the player (e.g. the recording was cut at the size limit).
 */
export interface CastMessage {
  type: 'cast';
  rolloutIndex: number;
  /** Rollout the recording belongs to (a late answer for another rollout is dropped). */
  rolloutId: string;
  /** Absolute path of the recording. */
  path: string;
  cast: CastView | null;
  error: string | null;
  note: string | null;
}

function isCastView(v: unknown): v is CastView {
  return (
    isObj(v) &&
    isIndex(v.cols) &&
    isIndex(v.rows) &&
    typeof v.duration === 'number' &&
    Number.isFinite(v.duration) &&
    (v.title === null || typeof v.title === 'string') &&
    (v.truncatedAt === null || typeof v.truncatedAt === 'number') &&
    Array.isArray(v.events) &&
    (v.stream === undefined || v.stream === null || (isObj(v.stream) && typeof v.stream.id === 'string' && (v.stream.next === null || isIndex(v.stream.next))))
  );
}

/** Validates a `castWindow` answer (the webview's side). */
export function isCastWindowMessage(v: Record<string, unknown>): boolean {
  const b = v.base;
  return (
    typeof v.stream === 'string' &&
    isIndex(v.seq) &&
    (v.time === null || (typeof v.time === 'number' && Number.isFinite(v.time))) &&
    isIndex(v.from) &&
    typeof v.startTime === 'number' &&
    Number.isFinite(v.startTime) &&
    (b === null || (isObj(b) && typeof b.screen === 'string' && isIndex(b.cols) && isIndex(b.rows))) &&
    Array.isArray(v.events) &&
    (v.next === null || isIndex(v.next))
  );
}

/** Validates a `castProgress` message (the webview's side). */
export function isCastProgressMessage(v: Record<string, unknown>): boolean {
  return typeof v.stream === 'string' && typeof v.duration === 'number' && Number.isFinite(v.duration) && typeof v.done === 'boolean' && (v.note === null || typeof v.note === 'string');
}

/** Validates a `castWindow` request (the host's side). */
export function isCastWindowRequest(v: Record<string, unknown>): boolean {
  const time = v.time;
  return (
    typeof v.stream === 'string' &&
    isIndex(v.seq) &&
    (v.from === null || isIndex(v.from)) &&
    (time === null || (typeof time === 'number' && Number.isFinite(time) && time >= 0)) &&
    (v.from === null) !== (time === null)
  );
}

/** Validates a `cast` message (the webview's side). */
export function isCastMessage(v: Record<string, unknown>): boolean {
  return (
    isIndex(v.rolloutIndex) &&
    typeof v.rolloutId === 'string' &&
    typeof v.path === 'string' &&
    (v.cast === null || isCastView(v.cast)) &&
    (v.error === null || typeof v.error === 'string') &&
    (v.note === null || typeof v.note === 'string')
  );
}
