/**
 * Reads a rollout's terminal recording for the timeline's player: size check, core
 * `parseAsciicast` (lenient), then `castView` (compact events, size cap, notes). No `vscode`
 * import, so the webview tier uses it as the host does.
 */
import { promises as fsp } from 'node:fs';
import { parseAsciicast } from '../core/formats/asciicast';
import type { Rollout } from '../core/model';
import type { CastMessage } from '../shared/castProtocol';
import { MAX_CAST_CHARS, MAX_CAST_FILE_BYTES, castError, castView } from './castView';
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

/** The `cast` message of `rollout` (index `rolloutIndex` in its file): its recording read (readCastMessage), or why it has none. */
export async function rolloutCastMessage(rolloutIndex: number, rollout: Rollout): Promise<CastMessage> {
  const rec = rollout.recording;
  if (!rec) return castError(rolloutIndex, rollout.id, '', 'This rollout has no terminal recording.');
  return readCastMessage(rolloutIndex, rollout.id, rec.path);
}
