/**
 * `show` and `show --json` of one big file, written as it is read, so that memory follows the
 * window being written, not the file (a 700,000-step trajectory in under 300 MB):
 *
 * - a Harbor ATIF `trajectory.json` (any `.json` whose top level is an ATIF object with `steps`)
 *   is indexed by core/scale/stepIndex.ts and its steps read `STEP_WINDOW` at a time;
 * - a JSONL dump of one rollout per line (`.jsonl`, a row format of core/scale/indexBase.ts
 *   ROW_FORMATS) is read a row at a time (core/scale/rowStream.ts).
 *
 * Files are streamed from `STREAM_MIN_BYTES` (64 MiB) on; the environment variable
 * `TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES` (a whole number of bytes) sets another threshold (tests
 * use it to stream small files). A file that is neither (NotIndexableError), a folder, or a smaller
 * file is loaded whole as before.
 *
 * The output is that of a full load (the same text lines; the same `show --json` shape, showJson.ts)
 * with what a read by parts cannot check said as a warning, not dropped: one warning names the
 * file as read by windows (or rows) and the checks of a full load that were not run (step
 * timestamps over the file, step_id order; for an ATIF its continuation, not joined). A step or row
 * that does not conform is an error as in a full load; a step that does not conform ends the
 * rollout's steps where it is (a full load would fail the whole file) and says so.
 */
import * as fs from 'node:fs';
import { asWarning, formatIssue, RolloutLoadError, type LocatedIssue } from '../core/errors';
import { LOADERS } from '../core/formats/registry';
import { metadataWarningIssues, type LoadFailure } from '../core/load';
import type { Rollout, Step } from '../core/model';
import { fileTitle } from '../core/naming';
import { NotIndexableError } from '../core/scale/indexBase';
import { openRowStream, type RowStream } from '../core/scale/rowStream';
import { openSteppedRollout, type SteppedRollout } from '../core/scale/stepIndex';
import { printable, printFailures } from './common';
import { writeShowJsonStream, type StreamedRollout, type TextSink } from './showJson';
import { rolloutHeadText, stepText } from './showText';

/** Files at least this large (bytes) are shown as they are read (see the module docs). */
export const STREAM_MIN_BYTES = 64 * 1024 * 1024;
/** Steps of an ATIF read and written per window. */
export const STEP_WINDOW = 1000;

/** The threshold in force: `TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES` when it is a whole number, else STREAM_MIN_BYTES. */
export function streamMinBytes(): number {
  const v = process.env.TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : STREAM_MIN_BYTES;
}

/** A file opened for streaming: an ATIF read by windows of steps, or a dump read by rows. */
export type Streamed = { kind: 'steps'; file: string; size: number; lazy: SteppedRollout } | { kind: 'rows'; file: string; size: number; rows: RowStream };

/**
 * Opens `target` for streaming when it is a file of at least `minBytes` that can be read by parts;
 * null when it is to be loaded whole (a folder, a smaller file, another kind of file, or one the
 * step index refuses: a header that does not conform, over its size limit; the full load then says
 * where, with the number that was hit; or a file that cannot be read: the full load reports it).
 */
export async function openStreamed(target: string, minBytes = streamMinBytes()): Promise<Streamed | null> {
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(target);
  } catch {
    return null; // the full load says why
  }
  if (!st.isFile() || st.size < minBytes) return null;
  try {
    if (/\.jsonl$/i.test(target)) return { kind: 'rows', file: target, size: st.size, rows: await openRowStream(target) };
    if (/\.json$/i.test(target)) return { kind: 'steps', file: target, size: st.size, lazy: await openSteppedRollout(target) };
  } catch (e) {
    // A read error (permissions, I/O) too: the full load reports it as it reports any file's.
    if (e instanceof NotIndexableError || e instanceof RolloutLoadError || typeof (e as NodeJS.ErrnoException).code === 'string') return null;
    throw e;
  }
  return null;
}

/** The warning that says a file was read by parts, and which checks of a full load were not run. */
function partsWarning(s: Streamed, minBytes: number, window: number): LocatedIssue {
  const checks =
    s.kind === 'steps'
      ? `step timestamps and step_id order not checked over the file${s.lazy.continuation ? `; its continuation ${s.lazy.continuation} not joined` : ''}`
      : 'step timestamps not checked over the file';
  return asWarning({
    file: s.file,
    line: null,
    column: null,
    pointer: null,
    expected: `a file under ${minBytes} bytes to load whole and check as a full load checks`,
    found: `${s.size} bytes, read ${s.kind === 'steps' ? `${window} steps at a time` : 'one row at a time'} (${checks})`,
  });
}

/** What a streamed show found besides the rollouts: rollouts and counted steps written, failures, warnings. */
interface StreamState {
  rollouts: number;
  schemaVersion: string | null;
  /** Issues of rows left out (one failure of the file, as a full load's partFailures). */
  rowIssues: LocatedIssue[];
  /** Errors that ended a rollout's steps (a step that does not conform, the file changed). */
  failures: LoadFailure[];
  warnings: LocatedIssue[];
}

/** The ATIF's steps window by window; a window that fails ends them and is recorded. */
async function* stepWindows(lazy: SteppedRollout, window: number, state: StreamState): AsyncGenerator<Step[]> {
  for (let i = 0; i < lazy.count; i += window) {
    let w: Step[];
    try {
      w = await lazy.read(i, window);
    } catch (e) {
      state.failures.push({ path: lazy.file, error: e instanceof Error ? e : new Error(String(e)) });
      state.warnings.push(
        asWarning({ file: lazy.file, line: null, column: null, pointer: null, expected: `all ${lazy.count} steps shown`, found: `the first ${i} steps shown: the window from step ${i} on did not read (see the error)` }),
      );
      return;
    }
    yield w;
  }
}

/** The dump's rollouts, each one window of steps; rows left out are recorded. */
async function* rowRollouts(rows: RowStream, state: StreamState): AsyncGenerator<Rollout> {
  for await (const row of rows.rows()) {
    if (row.issues) {
      state.rowIssues.push(...row.issues);
      continue;
    }
    state.rollouts++;
    state.warnings.push(...metadataWarningIssues(row.rollout));
    yield row.rollout;
  }
}

/** The failures of a streamed show: rows left out (one per file), then what ended a rollout's steps. */
function failuresOf(s: Streamed, state: StreamState): LoadFailure[] {
  const label = s.kind === 'rows' ? LOADERS.find((l) => l.id === s.rows.format)?.label ?? s.rows.format : null;
  return [...(state.rowIssues.length ? [{ path: s.file, error: new RolloutLoadError(s.file, label, state.rowIssues) }] : []), ...state.failures];
}

/**
 * `show` (text, or `--json`) of a file opened by openStreamed, written to `sink` as it is read;
 * warnings and errors go to stderr as the full-load path says them (after the output: they are
 * known at its end). Returns the exit code: 1 when a row was left out or a window failed, else 0.
 * @param options.window steps per window of an ATIF (default STEP_WINDOW)
 * @param options.minBytes the threshold the file was opened under (default streamMinBytes()), named in the warning
 */
export async function showStreamed(s: Streamed, json: boolean, sink: TextSink, options: { window?: number; minBytes?: number } = {}): Promise<number> {
  const window = options.window ?? STEP_WINDOW;
  const state: StreamState = { rollouts: 0, schemaVersion: null, rowIssues: [], failures: [], warnings: [partsWarning(s, options.minBytes ?? streamMinBytes(), window)] };
  if (s.kind === 'steps') state.warnings.push(...metadataWarningIssues(s.lazy.rollout));
  const format = s.kind === 'steps' ? 'atif' : s.rows.format;
  // The rollouts, with the first one read ahead (its schema version heads the document; with a second, a dump's titles are task ids).
  const source: AsyncIterator<Rollout> =
    s.kind === 'steps'
      ? (async function* () {
          state.rollouts = 1;
          yield s.lazy.rollout;
        })()
      : rowRollouts(s.rows, state);
  let next = await source.next();
  const first = next.done ? null : next.value;
  state.schemaVersion = first?.schemaVersion ?? null;
  // Each rollout with whether another follows (read ahead before it is written).
  const rollouts = (async function* (): AsyncGenerator<StreamedRollout & { more: boolean }> {
    while (!next.done) {
      const r = next.value;
      next = await source.next();
      yield { rollout: r, windows: s.kind === 'steps' ? stepWindows(s.lazy, window, state) : [r.steps], more: !next.done };
    }
  })();
  if (json) {
    await writeShowJsonStream({ format: first ? format : null, schemaVersion: state.schemaVersion }, rollouts, () => {
      const failures = failuresOf(s, state);
      const loaded = state.rollouts > 0;
      return {
        files: loaded ? [{ path: s.file, format, schemaVersion: state.schemaVersion, rollouts: state.rollouts }] : [],
        errors: failures.map((f) => ({ path: f.path, message: f.error.message })),
        warnings: state.warnings.map((w) => ({ path: s.file, message: formatIssue(w) })),
        skipped: [],
      };
    }, sink);
  } else {
    // Text written in chunks of about 1 Mi characters (few writes, none long).
    let pending = '';
    const put = async (text: string): Promise<void> => {
      pending += text;
      if (pending.length >= 1 << 20) {
        const out = pending;
        pending = '';
        await sink(out);
      }
    };
    let only = true;
    for await (const { rollout: r, windows, more } of rollouts) {
      // A file of one rollout is titled as a full load titles it (its trial folder, its task); else each by its task.
      only &&= !more;
      const title = only ? fileTitle(s.file, r.task.id) : r.task.id ?? fileTitle(s.file, null);
      const count = s.kind === 'steps' ? s.lazy.count : r.steps.length;
      const copied = s.kind === 'steps' ? s.lazy.copied : r.steps.filter((x) => x.copiedContext).length;
      await put(rolloutHeadText(r, title, count - copied, copied));
      for await (const w of windows) await put(w.map(stepText).join(''));
    }
    if (pending) await sink(pending);
  }
  for (const w of state.warnings) process.stderr.write(`warning: ${printable(formatIssue(w))}\n`);
  const failures = failuresOf(s, state);
  printFailures(failures);
  return failures.length ? 1 : 0;
}
