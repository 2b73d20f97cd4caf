/**
 * The contract between the loader registry and one format's loader.
 *
 * A loader is chosen by content: `detect` looks at the parsed value (and, as a tie-breaker only,
 * the file name) and either accepts with a confidence or declines with a reason the user can read.
 * `load` turns the document into rollouts, throwing RolloutLoadError with located issues when the
 * file claims the format but does not conform.
 */
import type { LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine } from '../json';
import type { FormatId, HarborJob, Rollout } from '../model';

/** Read access to files next to the one being loaded (Harbor `result.json`, continuation files). */
export interface FileAccess {
  /** Text of the file at an absolute path (UTF-8, lenient), or null when it does not exist or is not a file. */
  readText(path: string): Promise<string | null>;
  /** Raw bytes of the file, or null when it does not exist or is not a file; throws when it exists but cannot be read. */
  readBytes(path: string): Promise<Uint8Array | null>;
  /** True when the path exists and is a directory. */
  isDirectory(path: string): Promise<boolean>;
  /** Entry names of a directory ([] when absent). */
  list(path: string): Promise<string[]>;
  /**
   * Why the directory cannot be listed (`permission denied (EACCES)`), or null when it can (or is
   * absent); folder scans report such a folder instead of skipping it. Optional: without it a
   * folder that cannot be listed reads as empty.
   */
  listError?(path: string): Promise<string | null>;
  /** The path with symlinks resolved, or null when it does not resolve; folder scans use it to visit each folder once. */
  realpath?(path: string): Promise<string | null>;
}

/**
 * What a loader sees. A JSON file is one `doc`; a JSONL file is `lines` (each line parsed on demand
 * with `parseLine`) and `doc` is null.
 */
export interface LoadInput {
  /** Absolute path of the file. */
  path: string;
  /** Decoded text of the whole file ('' for a binary archive: see `bytes`). */
  text: string;
  /**
   * Raw bytes of a binary archive (a ZIP, e.g. an Inspect AI `.eval`); then `text` is '' and `doc`
   * and `lines` are null. Undefined for text files.
   */
  bytes?: Uint8Array;
  /** The parsed document for a JSON file; null for JSONL, concatenated JSON and archives. */
  doc: JsonDoc | null;
  /**
   * The values of a file holding several JSON values: one per non-blank line (JSONL, asciicast), or
   * several pretty-printed values one after another (PRM800K examples), each with its first line
   * and offset (first value in `firstLineValue`); null for a single JSON document.
   */
  lines: JsonlLine[] | null;
  /** 'jsonl' (one value per line), 'concatenated' (pretty-printed values back to back), or undefined. */
  linesKind?: 'jsonl' | 'concatenated';
  /** The parsed first line of a JSONL file (for detection), or undefined. */
  firstLineValue?: unknown;
  /** Parses one JSONL line into a JsonDoc positioned in the file; throws RolloutLoadError. */
  parseLine(line: JsonlLine): JsonDoc;
  files: FileAccess;
  /**
   * Where a loader that reads a file in parts (one rollout per JSONL row) puts the located issues of
   * the parts it left out while loading the rest; loadFile returns them as `LoadedFile.issues`.
   */
  issues?: LocatedIssue[];
  /**
   * Where the loader of a collection's own summary file (a Harbor job's `result.json`, format
   * `harbor-job`) puts the collection's stats, which are not a rollout; loadFile returns them as
   * `LoadedFile.job`.
   */
  job?: HarborJob;
  /**
   * Set when the input is one item of a large top-level JSON array read alone (scale/arrayIndex.ts):
   * `doc.value` holds only this index and the row loaders read only that row (rows.ts `rowRefs`).
   */
  item?: number;
  /**
   * Bytes inflated from an archive (an Inspect AI `.eval`) at most, all its entries together
   * (zip.ts `ZipArchive.open` maxInflatedBytes); undefined: zip.ts MAX_INFLATED_BYTES. The
   * user's `trajectoryInspector.load.maxInflatedMiB` setting or the CLI's `--max-inflated-mib`.
   */
  maxInflatedBytes?: number;
}

/** What a record stream needs to start: the file, its neighbours, and a line parser positioned in the file. */
export interface StreamStart {
  /** Absolute path of the file. */
  path: string;
  files: FileAccess;
  /** Parses one complete line into a JsonDoc located in the file (line/column from the whole file); throws RolloutLoadError. */
  parseLine(line: JsonlLine): JsonDoc;
}

/** One rollout of a record stream's snapshot and the first of its steps that may differ from the previous snapshot. */
export interface StreamedRollout {
  rollout: Rollout;
  /**
   * Index of the first step that is new or may have changed since the previous `snapshot()` (a tool
   * result joined to an earlier call, a streamed message part); `rollout.steps.length` when none.
   * Steps before it are the same values as before (the follower sends only the rest).
   */
  changedFrom: number;
}

/**
 * A loader's incremental reader of a file of records, one JSON value per line (a coding-agent
 * session): the host feeds it the file a part at a time, to show the first steps of a large session
 * before the rest is read and to follow a session that is still being written, without reading the
 * file again from the start.
 *
 * Contract: lines are pushed in file order, each complete (a last line without its newline is held
 * back by the caller until it is complete or the caller calls `end`); `snapshot()` may be called at
 * any time and costs about the work since the previous one, not the whole file. Feeding every line
 * of a file then `end()` and `snapshot()` gives exactly the rollouts `load` gives for it (the
 * loader's `load` should be written as that).
 */
export interface RecordStream {
  /** Takes the next complete lines. Never throws for a bad line: it becomes a located issue. */
  push(lines: readonly JsonlLine[]): void;
  /** The file has no more lines for now: a held-back partial line was pushed as is (a truncated write). */
  end?(): void;
  /**
   * Waits for asynchronous work the pushed lines started (a linked folder being listed: Claude Code
   * subagent transcripts), so that the next snapshot holds its result. Absent: nothing to wait for.
   */
  settle?(): Promise<void>;
  /** The rollouts as of the lines pushed so far (the session's main rollout first), with what changed. */
  snapshot(): StreamedRollout[];
  /** Located problems of the lines pushed so far (bad lines, unknown records, results without calls). */
  readonly issues: readonly LocatedIssue[];
}

/**
 * A loader's verdict on a file. A decline may name `at`, the JSON path (in the document, or in the
 * first line's value for JSONL) of the field that decided; without it the registry points at the
 * first quoted field name of `reason` that the top-level object has, else at the top-level value.
 */
export type Detection = { accept: true; confidence: number } | { accept: false; reason: string; at?: (string | number)[] };

export interface FormatLoader {
  id: FormatId;
  /** Human name, e.g. "Harbor ATIF trajectory". */
  label: string;
  /**
   * Decide from content whether this loader reads the file. Must be cheap and never throw.
   * Confidence: 1 = the file declares the format (schema_version, trajectory_format), 0.5–0.9 =
   * structural match.
   */
  detect(input: LoadInput): Detection;
  /** Reads the rollouts. Throws RolloutLoadError (located issues) on non-conforming input. */
  load(input: LoadInput): Promise<Rollout[]>;
  /**
   * For JSONL session formats: an incremental reader of the file (see RecordStream), used for
   * progressive open of large files and live follow. Absent = the host reloads the whole file.
   */
  stream?(start: StreamStart): RecordStream;
}
