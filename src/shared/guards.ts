/**
 * Guards the message modules of src/shared share (protocol.ts, replayProtocol.ts, scoresProtocol.ts,
 * castProtocol.ts): the shapes every validator checks first.
 */

/** A plain object (not null, not an array). */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A 0-based index: an integer ≥ 0. */
export function isIndex(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** A 1-based position (an integer > 0) or null. */
export function isPosOrNull(v: unknown): v is number | null {
  return v === null || (typeof v === 'number' && Number.isInteger(v) && v > 0);
}
