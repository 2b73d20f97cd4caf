/**
 * A timeline's file read whole or through its index (a file that is not followed), as what the
 * timeline shows: the rollouts, or the `loadError` that says why there are none. Nothing a file
 * holds throws out of here.
 */
import { describeJob } from '../../core/formats/harborJob';
import type { LoadErrorMessage } from '../../shared/protocol';
import { errorToMessage } from '../loadErrors';
import { openRolloutSource, type OpenSourceOptions, type RolloutSource } from '../rolloutSource';

/** The outcome of reading a timeline's file: exactly one of the two is non-null. */
export type SourceOrError = { source: RolloutSource; error: null } | { source: null; error: LoadErrorMessage };

/**
 * Opens `file` (an absolute path) with `openRolloutSource`; a file with no rollouts becomes an
 * error that says what it holds instead (a Harbor job result: its trials and where they are), and
 * any failure to read it the error's located issues (`errorToMessage`).
 */
export async function readTimelineSource(file: string, opts: OpenSourceOptions): Promise<SourceOrError> {
  try {
    const source = await openRolloutSource(file, opts);
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
