/**
 * Entry points for reading rollouts from disk: one file (JSON or JSONL, format detected by
 * content) or a folder (a Harbor trial folder, a job folder, or any folder of rollout files).
 *
 * Errors: loadFile throws RolloutLoadError (invalid content, located) or UnknownFormatError (no
 * loader accepted). loadPath never throws for a bad file inside a folder: it reports it in
 * `failures` and goes on, so one malformed rollout never hides the others.
 */
import * as path from 'node:path';
import { formatIssue, RolloutLoadError, UnknownFormatError, type LocatedIssue } from './errors';
import { JsonDoc, JsonlLine, LineIndex, splitJsonValues, splitJsonl } from './json';
import { isJobFolder, isTrialFolder, JOB_COMPANIONS, TRIAL_COMPANIONS, TRIAL_OUTPUT_DIRS, trialAttempts } from './formats/harborLayout';
import { pickLoader } from './formats/registry';
import { convertedLink } from './formats/harborLayout';
import type { FileAccess, LoadInput } from './formats/types';
import type { FormatId, HarborJob, Rollout } from './model';
import { nodeFiles } from './nodeFiles';
import { rolloutOddities } from './oddities';

/** The rollouts read from one file. */
export interface LoadedFile {
  path: string;
  format: FormatId;
  /** Schema version of the first rollout (files hold one format version). */
  schemaVersion: string | null;
  rollouts: Rollout[];
  /** Located problems of parts the loader left out while reading the rest (bad JSONL rows); absent when none. */
  issues?: LocatedIssue[];
  /** The Harbor job summary when the file is a job's `result.json` (format `harbor-job`); absent otherwise. */
  job?: HarborJob;
}

/** A file inside a folder that could not be read. */
export interface LoadFailure {
  path: string;
  error: RolloutLoadError | UnknownFormatError | Error;
}

/** Result of reading a file or folder. */
export interface LoadResult {
  files: LoadedFile[];
  failures: LoadFailure[];
  /** Files a folder scan tried that no loader reads (`.json` that are not rollouts): left out quietly. */
  skipped: string[];
}

/** How files are read (the user's limits). */
export interface LoadOptions {
  /** Bytes inflated per archive (an Inspect AI `.eval`) at most, all entries together; default zip.ts MAX_INFLATED_BYTES (2 GiB). */
  maxInflatedBytes?: number;
}

/**
 * Largest file read, in bytes: below V8's longest string (0x1fffffe8 UTF-16 units), so the decoded
 * text always fits in one string. A rollout this large could not be shown anyway.
 */
export const MAX_FILE_BYTES = 500 * 1024 * 1024;

/** Byte offset of the first byte that does not begin a valid UTF-8 sequence (overlong, surrogate, cut short), or -1. */
function invalidUtf8At(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (n === 0 || i + n >= b.length) return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      if ((b[i + k] & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (b[i + k] & 0x3f);
    }
    if (cp < [0, 0x80, 0x800, 0x10000][n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}

/** 1-based line/column of a byte offset whose preceding bytes are valid UTF-8 (column in UTF-16 units, BOM not counted). */
function bytePosition(bytes: Uint8Array, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = bytes.indexOf(10); i >= 0 && i < at; i = bytes.indexOf(10, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: new TextDecoder('utf-8').decode(bytes.subarray(lineStart, at)).length + 1 };
}

/**
 * Decodes bytes as UTF-8 (a leading BOM is dropped). Throws RolloutLoadError for a file over
 * `maxBytes`, at the first invalid byte, or at a NUL (binary data).
 */
export function decodeUtf8(file: string, bytes: Uint8Array, maxBytes = MAX_FILE_BYTES): string {
  if (bytes.length > maxBytes) {
    throw new RolloutLoadError(file, null, [
      { file, line: null, column: null, pointer: null, expected: `a file of at most ${sizeText(maxBytes)}`, found: sizeText(bytes.length) },
    ]);
  }
  const nul = bytes.indexOf(0);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const bad = invalidUtf8At(bytes);
    throw new RolloutLoadError(file, null, [
      { file, ...bytePosition(bytes, Math.max(0, bad)), pointer: null, expected: 'UTF-8 text', found: 'an invalid UTF-8 byte sequence' },
    ]);
  }
  if (nul >= 0) {
    throw new RolloutLoadError(file, null, [{ file, ...bytePosition(bytes, nul), pointer: null, expected: 'text', found: 'binary data (NUL byte)' }]);
  }
  return text;
}

/** `N bytes` below 1 MiB, else `N.N MiB`. */
function sizeText(n: number): string {
  return n < 1024 * 1024 ? `${n} bytes` : `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** True when the text looks like JSON Lines rather than one JSON value. */
function looksLikeJsonl(file: string, text: string): boolean {
  if (/\.jsonl$/i.test(file)) return true;
  // A JSON value spanning lines fails JSON.parse on its first line; JSONL's first line parses alone.
  const firstNl = text.indexOf('\n');
  if (firstNl < 0) return false;
  const first = text.slice(0, firstNl).trim();
  const rest = text.slice(firstNl + 1).trim();
  if (!first.startsWith('{') || rest === '') return false;
  try {
    JSON.parse(first);
    return true;
  } catch {
    return false;
  }
}

/** Builds a loader input from a file's text. Throws RolloutLoadError on a JSON syntax error. */
export function makeInput(file: string, text: string, files: FileAccess): LoadInput {
  const lines = new LineIndex(text);
  const parseLine: LoadInput['parseLine'] = (l) => JsonDoc.parse(file, l.text, l.offset, lines, true);
  const multi = (jl: JsonlLine[], linesKind: 'jsonl' | 'concatenated'): LoadInput => {
    // Detection looks at the first value that parses, so one bad line does not hide the format;
    // the loader reports the bad lines with their positions.
    let firstLineValue: unknown;
    for (const l of jl.slice(0, 10)) {
      try {
        firstLineValue = parseLine(l).value;
        break;
      } catch {
        continue;
      }
    }
    return { path: file, text, doc: null, lines: jl, linesKind, firstLineValue, parseLine, files, issues: [] };
  };
  if (looksLikeJsonl(file, text)) {
    const jl = splitJsonl(text);
    // A `.jsonl` name over pretty-printed values back to back (a real PRM800K example file does
    // this): its first line (`{`) is no JSON value on its own.
    if (jl.length && !parsesAlone(jl[0].text)) {
      const values = splitJsonValues(text);
      if (values) return multi(values, 'concatenated');
    }
    return multi(jl, 'jsonl');
  }
  if (text.trim() === '') {
    throw new RolloutLoadError(file, null, [{ file, line: 1, column: 1, pointer: null, expected: 'a JSON value', found: 'an empty file' }]);
  }
  try {
    return { path: file, text, doc: JsonDoc.parse(file, text, 0, lines), lines: null, parseLine, files, issues: [] };
  } catch (e) {
    // Several pretty-printed values back to back (PRM800K examples) read like JSONL, one value each.
    const values = splitJsonValues(text);
    if (values) return multi(values, 'concatenated');
    throw e;
  }
}

function parsesAlone(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A session format (a loader with `stream`) whose file ends without a newline is likely still being
 * written: the issues of its last line say so and are warnings, not errors.
 */
function markCutLastLine(input: LoadInput, issues: LocatedIssue[]): LocatedIssue[] {
  const last = input.lines?.[input.lines.length - 1];
  if (!last || input.text.endsWith('\n')) return issues;
  return issues.map((i) => (i.line === last.line ? cutLastLineIssue(i) : i));
}

/** An issue of a session's incomplete last line (no line break after it) as the warning it is: the session may still be being written. */
export function cutLastLineIssue(i: LocatedIssue): LocatedIssue {
  if (i.severity === 'warning') return i;
  return { ...i, severity: 'warning', found: /cut off/.test(i.found) ? i.found : `${i.found} — the last line is incomplete (the session may still be being written)` };
}

/** True for bytes that start a ZIP archive (`PK\x03\x04`; Inspect AI `.eval` logs). */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/**
 * Reads one rollout file.
 * @param file absolute path
 * @throws RolloutLoadError | UnknownFormatError
 */
export async function loadFile(file: string, files: FileAccess = nodeFiles, options: LoadOptions = {}): Promise<LoadedFile> {
  let bytes: Uint8Array | null;
  try {
    bytes = await files.readBytes(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_FS_FILE_TOO_LARGE') {
      throw new RolloutLoadError(file, null, [{ file, line: null, column: null, pointer: null, expected: `a file of at most ${sizeText(MAX_FILE_BYTES)}`, found: 'a file over 2 GiB' }]);
    }
    const why = err.code === 'EACCES' || err.code === 'EPERM' ? `permission denied (${err.code})` : `a read error (${err.code ?? err.message})`;
    throw new RolloutLoadError(file, null, [{ file, line: null, column: null, pointer: null, expected: 'a readable file', found: why }]);
  }
  if (!bytes) {
    throw new RolloutLoadError(file, null, [{ file, line: null, column: null, pointer: null, expected: 'a readable file', found: 'nothing (missing or not a file)' }]);
  }
  const input: LoadInput = isZip(bytes)
    ? { path: file, text: '', bytes, doc: null, lines: null, parseLine: () => { throw new Error('not a text file'); }, files, issues: [], maxInflatedBytes: options.maxInflatedBytes }
    : makeInput(file, decodeUtf8(file, bytes), files);
  const loader = pickLoader(input);
  const rollouts = await loader.load(input);
  const loaded: LoadedFile = { path: file, format: loader.id, schemaVersion: rollouts[0]?.schemaVersion ?? null, rollouts };
  if (input.issues?.length) loaded.issues = loader.stream ? markCutLastLine(input, input.issues) : input.issues;
  // Values that load but are not what they claim (timestamps that are no times, …): located warnings.
  const odd = rolloutOddities(file, input.text, rollouts);
  if (odd.length) loaded.issues = [...(loaded.issues ?? []), ...odd];
  // What a loader noted in a rollout's `metadata.warnings` (a continuation or trial result.json that
  // could not be read, a trajectory that is a folder) is a located warning of the file, so the CLI,
  // the Rollouts view and the timeline header all say it.
  // (Loaders that already list a warning as an issue and repeat it in the metadata say it once.)
  const said = new Set((loaded.issues ?? []).map(formatIssue));
  const noted = rollouts.flatMap(metadataWarningIssues).filter((i) => !said.has(i.found));
  if (noted.length) loaded.issues = [...(loaded.issues ?? []), ...noted];
  // A coding agent's raw session inside a Harbor trial links to the trial's converted ATIF trajectory.
  if (loader.stream) {
    const link = await convertedLink(file, files);
    if (link) for (const r of rollouts) if (!r.links?.some((l) => l.relation === 'converted')) (r.links ??= []).push(link);
  }
  if (input.job) loaded.job = input.job;
  return loaded;
}

/**
 * The warnings a loader noted in `rollout.metadata.warnings` (strings; a line indented by two spaces
 * continues the one before it) as warning issues located at the rollout's file. Empty when none.
 */
export function metadataWarningIssues(r: Rollout): LocatedIssue[] {
  const w = r.metadata?.warnings;
  if (!Array.isArray(w)) return [];
  const msgs: string[] = [];
  for (const line of w) {
    if (typeof line !== 'string') continue;
    if (line.startsWith('  ') && msgs.length) msgs[msgs.length - 1] += `; ${line.trim()}`;
    else msgs.push(line);
  }
  return msgs.map((found) => ({ file: r.source.path, line: r.source.line, column: null, pointer: null, expected: 'every file of the rollout readable', found, severity: 'warning' as const }));
}

/** File names that are rollouts on their own when found in a folder. */
const ROLLOUT_NAME = /(\.traj|\.traj\.json|(^|[._-])trajectory\.json|output\.jsonl|\.events\.json|\.eval)$/i;
/** Files that are joined into another rollout rather than read on their own. */
const JOINED_NAME = /^trajectory\.cont-\d+\.json$/i;
/** Files of a Cline / Roo Code task folder that the loader joins into `api_conversation_history.json`. */
const CLINE_COMPANIONS = new Set(['ui_messages.json', 'task_metadata.json']);
/** Harbor summarization subagent trajectories; skipped in a folder scan when their main trajectory.json is there. */
const SUBAGENT_NAME = /^trajectory\.summarization-\d+-[a-z]+\.json$/i;
const SKIP_DIRS = new Set(['node_modules', '.git', '.venv', '__pycache__']);
/** The first event file of a persisted OpenHands V1 conversation (`events/event-00000-<id>.json`): the conversation's entry. */
const V1_FIRST_EVENT = /^event-0{5,}-[0-9a-fA-F-]{8,}\.json$/;

/** A file found in a folder scan; `named` when its name marks it as a rollout (else it is only a candidate). */
export interface FoundFile {
  path: string;
  named: boolean;
  /**
   * Set when the entry cannot be read as a rollout file at all and must be reported, not skipped: a
   * folder that cannot be listed (`permission denied (EACCES)`), or a folder where a rollout file is
   * expected (`agent/trajectory.json` that is a directory). Its words are the issue's `found`.
   */
  problem?: { expected: string; found: string };
}

/** Files whose folder (or the folder above) is a trial: a `.cast` there is that trial's recording, not a rollout of its own. */
const TRIAL_FILES = ['results.json', 'result.json', 'trajectory.json'];

/** A Terminal-Bench 1 run folder: the run-level `results.json` beside `run_metadata.json` or `tb.lock`. */
function isTb1RunFolder(names: string[]): boolean {
  return names.includes('results.json') && (names.includes('run_metadata.json') || names.includes('tb.lock'));
}

/** A Terminal-Bench 1 trial folder: `results.json` beside `commands.txt` (or `sessions/`). */
function isTb1TrialFolder(names: string[]): boolean {
  return names.includes('results.json') && (names.includes('commands.txt') || names.includes('sessions'));
}

/**
 * Finds the rollout files under a folder: files whose names mark them as rollouts (`*.traj`,
 * `*.traj.json`, `trajectory.json`, `output.jsonl`, an OpenHands V1 `events/event-00000-….json`,
 * an asciinema `*.cast` that is not a trial's own recording), a Harbor trial's `result.json` when
 * the trial has no trajectory, and other `.json`/`.jsonl` files as unnamed candidates (kept only if
 * a loader accepts them). Depth-limited walk, sorted paths; a folder reached again through a symlink
 * is not walked twice.
 *
 * Terminal-Bench 1: in a run folder (`results.json` + `run_metadata.json`/`tb.lock`) the run-level
 * `results.json` stands for every trial, so the trials' own `results.json` two levels below
 * (`<run>/<task>/<trial>/results.json`) and `run_metadata.json` are skipped; a trial's
 * `agent-logs/` (LLM call logs, joined into the trial) and `sessions/*.cast` are not listed.
 *
 * Harbor (formats/harborLayout.ts): a job folder's `result.json` is listed (the `harbor-job`
 * summary), its `config.json`/`lock.json`/`job.log` are not; in a trial folder only the rollout
 * files directly in `agent/` are listed (its raw agent sessions, `sessions/**` and `*.txt` logs, are
 * linked from the trial's rollout, not rollouts of their own), `verifier/`, `artifacts/` and the
 * trial's `config.json`/`lock.json` are not walked; a trial with `attempts/<NNN>/` is read from its
 * final attempt only (the others are linked from it).
 */
export async function findRolloutFiles(dir: string, files: FileAccess = nodeFiles, maxDepth = 8): Promise<FoundFile[]> {
  const out: FoundFile[] = [];
  const visited = new Set<string>();
  async function walk(d: string, depth: number, tb1Run: string | null, parentNames: string[]): Promise<void> {
    // A symlink back to a folder above (or beside) must not read the same files again.
    const real = files.realpath ? await files.realpath(d) : d;
    if (real === null || visited.has(real)) return;
    visited.add(real);
    const names = (await files.list(d)).sort();
    if (names.length === 0 && files.listError) {
      const why = await files.listError(d);
      if (why) out.push({ path: d, named: true, problem: { expected: 'a readable folder', found: why } });
    }
    // A trajectory.json that is a folder is no trajectory: the trial's result.json is read instead.
    const isFile = async (p: string) => !(await files.isDirectory(p));
    const hasTrajectory =
      (names.includes('trajectory.json') && (await isFile(path.join(d, 'trajectory.json')))) ||
      (names.includes('agent') && (await files.list(path.join(d, 'agent'))).includes('trajectory.json') && (await isFile(path.join(d, 'agent', 'trajectory.json'))));
    const runFolder = isTb1RunFolder(names);
    const tb1Trial = isTb1TrialFolder(names);
    const inTrialOfRun = tb1Run !== null && path.dirname(path.dirname(d)) === tb1Run;
    const trialOwned = TRIAL_FILES.some((n) => names.includes(n) || parentNames.includes(n));
    const attempts = names.includes('attempts') ? await trialAttempts(d, files) : null;
    const harborTrial = attempts !== null || isTrialFolder(names);
    const harborJob = !harborTrial && isJobFolder(names);
    // The agent's own folder of a Harbor trial: its rollout files only (raw sessions are linked from them).
    const harborAgent = path.basename(d) === 'agent' && isTrialFolder(parentNames);
    // `<session id>/subagents/` beside `<session id>.jsonl`: a Claude Code session's subagent transcripts.
    const claudeSubagents = path.basename(d) === 'subagents' && (await files.list(path.dirname(path.dirname(d)))).includes(`${path.basename(path.dirname(d))}.jsonl`);
    for (const name of names) {
      const p = path.join(d, name);
      if (await files.isDirectory(p)) {
        // A folder named like a rollout file (`agent/trajectory.json/`): said, never a silent gap.
        if (ROLLOUT_NAME.test(name)) out.push({ path: p, named: true, problem: { expected: 'a rollout file', found: 'a folder' } });
        if (tb1Trial && name === 'agent-logs') continue; // joined into the trial by the tb1 loader
        if (harborAgent || (harborTrial && TRIAL_OUTPUT_DIRS.has(name))) continue;
        if (attempts && name === 'attempts') {
          // Only the final attempt is read; the others are reachable from it (attempt links).
          if (attempts.final.name !== '.' && depth + 1 < maxDepth) await walk(attempts.final.dir, depth + 2, tb1Run, await files.list(p));
          continue;
        }
        if (depth < maxDepth && !SKIP_DIRS.has(name) && !name.startsWith('.')) await walk(p, depth + 1, runFolder ? d : tb1Run, names);
      } else if ((harborJob && JOB_COMPANIONS.has(name)) || (harborTrial && TRIAL_COMPANIONS.has(name))) {
        continue; // the job's / trial's own configuration and logs
      } else if (harborAgent && !ROLLOUT_NAME.test(name) && !JOINED_NAME.test(name) && !SUBAGENT_NAME.test(name)) {
        continue; // an agent's output log (`claude-code.txt`), linked as its raw session
      } else if (JOINED_NAME.test(name) || (SUBAGENT_NAME.test(name) && names.includes('trajectory.json'))) {
        continue; // reached from the main trajectory.json (continuation / summarization subagent)
      } else if (CLINE_COMPANIONS.has(name) && names.includes('api_conversation_history.json')) {
        continue; // joined into the Cline / Roo Code task history beside it
      } else if (claudeSubagents && /^agent-[^/]+\.(jsonl|meta\.json)$/.test(name)) {
        continue; // a Claude Code subagent transcript (and its meta file): reached from its parent session's step
      } else if (ROLLOUT_NAME.test(name) || (V1_FIRST_EVENT.test(name) && path.basename(d) === 'events')) {
        out.push({ path: p, named: true });
      } else if (name === 'result.json' && hasTrajectory) {
        continue; // joined into the trial's trajectory by the ATIF loader
      } else if ((name === 'results.json' && inTrialOfRun) || (name === 'run_metadata.json' && runFolder)) {
        continue; // a TB1 trial listed by its run's results.json / the run's metadata, joined into it
      } else if (/\.cast$/i.test(name)) {
        if (!trialOwned) out.push({ path: p, named: true });
      } else if (/\.jsonl?$/i.test(name)) {
        out.push({ path: p, named: false });
      }
    }
  }
  await walk(dir, 0, null, []);
  return out;
}

/**
 * True for a load error that says the file could not be read at all (permissions, I/O, over the
 * size limit: loadFile / decodeUtf8), as opposed to content that is no rollout (not JSON, empty,
 * binary): the folder scan reports the former as failures, never as "skipped".
 */
function unreadable(e: RolloutLoadError): boolean {
  return e.issues.some((i) => i.expected === 'a readable file' || i.expected.startsWith('a file of at most'));
}

/**
 * Reads a file or a folder. A folder is scanned with findRolloutFiles; a folder that holds no
 * rollout file gives one failure saying so.
 */
export async function loadPath(target: string, files: FileAccess = nodeFiles, options: LoadOptions = {}): Promise<LoadResult> {
  const abs = path.resolve(target);
  const result: LoadResult = { files: [], failures: [], skipped: [] };
  const list = (await files.isDirectory(abs)) ? await findRolloutFiles(abs, files) : [{ path: abs, named: true }];
  for (const f of list) {
    if (f.problem) {
      result.failures.push({ path: f.path, error: new RolloutLoadError(f.path, null, [{ file: f.path, line: null, column: null, pointer: null, ...f.problem }]) });
      continue;
    }
    try {
      result.files.push(await loadFile(f.path, files, options));
    } catch (e) {
      // An unnamed .json that no loader recognises is just another file in the folder; one that
      // could not be read at all (permissions, I/O, size) may be a rollout and is a failure.
      if (!f.named && (e instanceof UnknownFormatError || (e instanceof RolloutLoadError && e.format === null && !unreadable(e)))) {
        result.skipped.push(f.path);
        continue;
      }
      result.failures.push({ path: f.path, error: e instanceof Error ? e : new Error(String(e)) });
    }
  }
  if (result.files.length === 0 && result.failures.length === 0) {
    result.failures.push({
      path: abs,
      error: new RolloutLoadError(abs, null, [
        { file: abs, line: null, column: null, pointer: null, expected: 'rollout files (*.traj, *.traj.json, trajectory.json, output.jsonl)', found: 'none in this folder' },
      ]),
    });
  }
  return result;
}
