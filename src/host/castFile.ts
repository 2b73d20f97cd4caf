/**
 * Reads a rollout's terminal recording for the timeline's player. A v2 / v3 cast is streamed
 * (`openCastStream`, castStream.ts: any size, read once, the player fed windows of it); a v1 cast
 * (one JSON value) is read whole (`readCastMessage`: size check, core `parseAsciicast` (lenient),
 * then `castView`: compact events, size cap, notes). No `vscode` import, so the webview tier uses it
 * as the host does.
 */
import { promises as fsp } from 'node:fs';
import { MAX_EVENT_SECONDS, parseAsciicast } from '../core/formats/asciicast';
import type { CastMessage, CastProgressMessage } from '../shared/castProtocol';
import { CastRecording, readCastHeader, type CastProgress } from './castStream';
import { MAX_CAST_CHARS, MAX_CAST_FILE_BYTES, castError, castSize, castView, streamNote } from './castView';
import { formatBytes } from '../shared/text';

/** Limits (overridable for tests). */
export interface CastLimits {
  maxFileBytes: number;
  maxChars: number;
}

/** Reads and parses a recording into the `cast` message; every failure becomes its `error`, never a throw. */
export async function readCastMessage(
  rolloutIndex: number,
  rolloutId: string,
  file: string,
  limits: CastLimits = { maxFileBytes: MAX_CAST_FILE_BYTES, maxChars: MAX_CAST_CHARS },
): Promise<CastMessage> {
  try {
    const st = await fsp.stat(file);
    if (!st.isFile()) return castError(rolloutIndex, rolloutId, file, 'The recording path is not a file.');
    if (st.size > limits.maxFileBytes) {
      return castError(rolloutIndex, rolloutId, file, `The recording is ${formatBytes(st.size)}; the player reads recordings up to ${formatBytes(limits.maxFileBytes)}.`);
    }
    // Lenient: a recording cut off mid-line (a killed run) still plays; castView notes what was left out.
    const parsed = parseAsciicast(await fsp.readFile(file, 'utf8'), { file, lenient: true });
    const { cast, note } = castView(parsed, limits.maxChars);
    return { type: 'cast', rolloutIndex, rolloutId, path: file, cast, error: null, note };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'The recording file does not exist.' : e instanceof Error ? e.message : String(e);
    return castError(rolloutIndex, rolloutId, file, why);
  }
}

/** Largest event time in the last 64 KiB of a v2 cast (its times are absolute): the duration before the whole file is read. */
async function tailDuration(file: string, size: number): Promise<number | null> {
  const n = Math.min(size, 64 * 1024);
  const fh = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, size - n);
    let best: number | null = null;
    for (const line of buf.subarray(0, bytesRead).toString('utf8').split('\n')) {
      if (!line.startsWith('[')) continue;
      try {
        const v = JSON.parse(line) as unknown;
        if (Array.isArray(v) && typeof v[0] === 'number' && v[0] >= 0 && v[0] < MAX_EVENT_SECONDS) best = Math.max(best ?? 0, v[0]);
      } catch {
        // a line cut by the start of the tail, or a damaged one
      }
    }
    return best;
  } finally {
    await fh.close();
  }
}

/** An opened recording: the `cast` message to post, the recording (null when read whole or not shown), and `started`, to call once the message is posted. */
export interface CastStreamHandle {
  message: CastMessage;
  recording: CastRecording | null;
  started: () => void;
}

/**
 * Opens a rollout's recording for the player: a v2 / v3 cast is streamed (`cast.stream` = `streamId`,
 * its first window in `cast.events`; `onProgress` then gets a `castProgress` about every second and at
 * the end of the reading, once `started` was called); anything else goes through readCastMessage.
 * Every failure becomes the message's `error`, never a throw.
 */
export async function openCastStream(
  rolloutIndex: number,
  rolloutId: string,
  file: string,
  streamId: string,
  onProgress: (m: CastProgressMessage) => void,
): Promise<CastStreamHandle> {
  const whole = async (): Promise<CastStreamHandle> => ({ message: await readCastMessage(rolloutIndex, rolloutId, file), recording: null, started: () => {} });
  try {
    const st = await fsp.stat(file);
    if (!st.isFile()) return whole();
    const head = await readCastHeader(file);
    if (!head) return whole();
    const size = castSize(head.header);
    const estimate = head.version === 2 ? await tailDuration(file, st.size) : null;
    let live = false;
    let missed = false;
    const progress = (p: CastProgress): CastProgressMessage => {
      const note = [streamNote(head.header, p.counts), p.error ? `The recording could not be read to its end: ${p.error}` : null].filter(Boolean).join(' ');
      return { type: 'castProgress', stream: streamId, duration: p.done ? p.time : Math.max(p.time, estimate ?? 0), done: p.done, note: note || null };
    };
    const { recording, first } = await CastRecording.open(file, head, size, (p) => {
      if (live) onProgress(progress(p));
      else missed = true;
    });
    const now = progress(recording.status());
    const title = typeof head.header.title === 'string' && head.header.title.trim() ? head.header.title : null;
    const message: CastMessage = {
      type: 'cast',
      rolloutIndex,
      rolloutId,
      path: file,
      cast: { cols: size.cols, rows: size.rows, duration: now.duration, title, events: first.events, truncatedAt: null, stream: { id: streamId, next: first.next } },
      error: null,
      note: now.note,
    };
    return {
      message,
      recording,
      started: () => {
        live = true;
        if (missed) onProgress(progress(recording.status()));
      },
    };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR') return whole();
    return { message: castError(rolloutIndex, rolloutId, file, e instanceof Error ? e.message : String(e)), recording: null, started: () => {} };
  }
}
