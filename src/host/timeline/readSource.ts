/**
 * A timeline's file read whole, through its index, or — an ATIF `.json` of at least
 * `steppedMinBytes` (STEPPED_MIN_BYTES, 64 MiB: the size from which the CLI's `show` streams,
 * src/cli/showStream.ts) — by windows of steps (SteppedRolloutSource, steppedSource.ts), as what the
 * timeline shows: the rollouts, or the `loadError` that says why there are none. Nothing a file
 * holds throws out of here.
 */
import { promises as fs } from 'node:fs';
import { describeJob } from '../../core/formats/harborJob';
import type { LoadErrorMessage } from '../../shared/protocol';
import { errorToMessage } from '../loadErrors';
import { NotIndexableError } from '../../core/scale/rolloutIndex';
import { openRolloutSource, type OpenSourceOptions, type RolloutSource } from '../rolloutSource';
import { SteppedRolloutSource, SteppedSource } from '../steppedSource';

/** ATIF files at least this large (bytes) open in the timeline by windows of steps (the CLI's STREAM_MIN_BYTES). */
export const STEPPED_MIN_BYTES = 64 * 1024 * 1024;

/**
 * The threshold in force: the CLI's `TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES` (a whole number of
 * bytes; what the e2e tier sets to open a small file this way) when set, else STEPPED_MIN_BYTES.
 */
export function steppedMinBytes(): number {
  const v = process.env.TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : STEPPED_MIN_BYTES;
}

/** How a timeline's file is read: openRolloutSource's options, and from which size an ATIF is read by windows. */
export interface TimelineSourceOptions extends OpenSourceOptions {
  /** Bytes from which a `.json` file is tried as an ATIF read by windows (default steppedMinBytes(); tests use small files). */
  steppedMinBytes?: number;
}

/**
 * A `.json` file of at least `minBytes` as an ATIF read by windows, or null (smaller, another
 * extension, not a single ATIF object with `steps`, or a path that cannot be stat'ed: read it the
 * usual way, which says what is wrong).
 * @throws RolloutLoadError (located) for an ATIF whose head or step list does not conform
 */
export async function openStepped(file: string, minBytes = steppedMinBytes()): Promise<SteppedRolloutSource | null> {
  if (!/\.json$/i.test(file)) return null;
  let size: number;
  try {
    size = (await fs.stat(file)).size;
  } catch {
    return null;
  }
  if (size < minBytes) return null;
  try {
    return new SteppedRolloutSource(await SteppedSource.open(file));
  } catch (e) {
    if (e instanceof NotIndexableError) return null;
    throw e;
  }
}

/** The outcome of reading a timeline's file: exactly one of the two is non-null. */
export type SourceOrError = { source: RolloutSource; error: null } | { source: null; error: LoadErrorMessage };

/**
 * Opens `file` (an absolute path) by windows of steps (`openStepped`) or with `openRolloutSource`; a file with no rollouts becomes an
 * error that says what it holds instead (a Harbor job result: its trials and where they are), and
 * any failure to read it the error's located issues (`errorToMessage`).
 */
export async function readTimelineSource(file: string, opts: TimelineSourceOptions): Promise<SourceOrError> {
  try {
    const source = (await openStepped(file, opts.steppedMinBytes)) ?? (await openRolloutSource(file, opts));
    if (source.count > 0) return { source, error: null };
    const f = source.file;
    const error = f.job
      ? { ...errorToMessage(file, new Error([...describeJob(f.job), '', 'Its trials are read from their own folders: open them from the Rollouts view.'].join('\n'))), title: 'Harbor job result (its trials are in their own folders)' }
      : errorToMessage(file, new Error(`The file was read as ${f.format} but holds no rollouts.`));
    return { source: null, error };
  } catch (e) {
    return { source: null, error: errorToMessage(file, e) };
  }
}
