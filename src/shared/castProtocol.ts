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
    Array.isArray(v.events)
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
