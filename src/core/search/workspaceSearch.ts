/**
 * Workspace search over rollout files: command, output, message and reasoning text of every step,
 * with regex / case / role / field filters and outcome / reward filters, results grouped as
 * file → rollout → step and streamed file by file.
 *
 * How it runs:
 * 1. ripgrep (`rg --json`, path given by the caller: VS Code ships one) scans the raw files for the
 *    pattern. For a plain-text query the JSON-escaped form of the text is searched too (a command
 *    holding `"` or a newline is stored escaped in JSON). rg reports each match with its byte offset.
 * 2. Each file with a match is loaded with core `loadFile`; each match's byte offset becomes a UTF-16
 *    offset into the decoded text (what `Step.range` holds) and picks the step whose range holds it.
 * 3. Those steps are checked on their decoded fields with the same pattern as a JavaScript RegExp
 *    (so a match inside a JSON key, an id or an escape sequence does not count), with the role,
 *    field, outcome and reward filters applied. Steps that have no range in the file (their text lives
 *    elsewhere: Terminal-Bench 1 `commands.txt`) are checked the same way in every loaded file.
 * 4. Files rg cannot read into (Inspect `.eval` zips, compressed files, Terminal-Bench 1
 *    `results.json` whose steps live in other files; see `needsLoading`) are loaded and checked step
 *    by step without rg. Without an rg path every file is searched that way (slower, same results).
 *
 * A regex is run by both engines: rg (Rust regex syntax) picks the files and JavaScript confirms,
 * so a pattern must mean the same in both (lookaround and backreferences are rejected by rg).
 *
 * Pure Node (child_process, fs); never imports vscode. Tested with the real rg in
 * test/unit/search/workspaceSearch.test.ts.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile, type LoadedFile } from '../load';
import type { Role, Rollout, Step } from '../model';

/** The step text a search looks at. `command` covers shell commands, keystrokes, tool names and tool arguments. */
export type SearchField = 'command' | 'output' | 'message' | 'reasoning';
export const SEARCH_FIELDS: readonly SearchField[] = ['command', 'output', 'message', 'reasoning'];

/** Outcome filter: resolved (or reward 1), failed (or reward 0), or neither known. */
export type SearchOutcome = 'all' | 'passed' | 'failed' | 'unknown';

/** What to search for. */
export interface SearchQuery {
  /** Text, or a regular expression when `regex`. Must not be empty. */
  pattern: string;
  regex?: boolean;
  /** Default false: case is ignored. */
  caseSensitive?: boolean;
  /** Fields to search; empty or absent = all. */
  fields?: readonly SearchField[];
  /** Step roles to search; empty or absent = all. */
  roles?: readonly Role[];
  outcome?: SearchOutcome;
  /** Keep rollouts whose reward is ≥ minReward / ≤ maxReward (a rollout with no reward fails either bound). */
  minReward?: number | null;
  maxReward?: number | null;
  /** Stop after this many matching steps (default 5 000); the summary says `truncated`. */
  maxSteps?: number;
}

/** Where in a step the pattern matched: the field, the first match with some context, and the count in that field. */
export interface FieldMatch {
  field: SearchField;
  /** Index of the action / observation the first match is in (0 for message and reasoning). */
  item: number;
  before: string;
  match: string;
  after: string;
  count: number;
}

/** A step that matched. */
export interface StepHit {
  stepIndex: number;
  role: Role;
  matches: FieldMatch[];
}

/** The matching steps of one rollout. */
export interface RolloutHits {
  rolloutIndex: number;
  rolloutId: string;
  taskId: string | null;
  reward: number | null;
  resolved: boolean | null;
  steps: StepHit[];
}

/** The results of one file, as they stream. */
export interface FileHits {
  file: string;
  /** `rg`: found by ripgrep and mapped to steps; `load`: searched by loading (no rg, or a file rg cannot read into). */
  via: 'rg' | 'load';
  rollouts: RolloutHits[];
}

/** Options of a search run. */
export interface SearchOptions {
  /** Path of the ripgrep executable, or null to search every file by loading it. */
  rgPath: string | null;
  signal?: AbortSignal;
  /** Called as each file's results are ready (only files with at least one matching step). */
  onFile?: (hits: FileHits) => void;
  /** Called as files are searched: files done out of the total, and matching steps so far. */
  onProgress?: (p: { filesDone: number; filesTotal: number; steps: number }) => void;
  /** Reads a file (default core `loadFile`); a cache can be passed. */
  load?: (file: string) => Promise<LoadedFile>;
  /** Files to load and search without rg (default `needsLoading`). */
  loadWithoutRg?: (file: string) => boolean;
}

/** The end of a search. */
export interface SearchSummary {
  files: FileHits[];
  /** Matching steps. */
  steps: number;
  /** Files rg matched or that were loaded, and that were checked. */
  filesChecked: number;
  /** Stopped at `maxSteps`. */
  truncated: boolean;
  cancelled: boolean;
  /** Files that could not be read, and rg's complaints. */
  errors: { file: string | null; message: string }[];
}

/** A query that cannot run (empty pattern, bad regex, rg missing or failing), with the reason. */
export class SearchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchError';
  }
}

/** Files rg cannot see the step text of: zips (Inspect .eval), compressed files, TB1 results.json (steps in other files). */
export function needsLoading(file: string): boolean {
  return /\.(eval|zip|gz|zst|bz2|xz)$/i.test(file) || path.basename(file) === 'results.json';
}

/** A JS RegExp (global) for the query; throws SearchError for an empty pattern or a bad regex. */
export function queryRegExp(q: Pick<SearchQuery, 'pattern' | 'regex' | 'caseSensitive'>): RegExp {
  if (!q.pattern) throw new SearchError('The search pattern is empty.');
  const source = q.regex ? q.pattern : q.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const flags = `g${q.caseSensitive ? '' : 'i'}`;
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (e) {
      throw new SearchError(`Invalid regular expression ${JSON.stringify(q.pattern)}: ${(e as Error).message}`);
    }
  }
}

/** The texts of one field of a step (one per action / observation; one for message and reasoning). */
export function fieldTexts(step: Step, field: SearchField): string[] {
  switch (field) {
    case 'command':
      return step.actions.map((a) => {
        const parts: string[] = [];
        if (a.command) parts.push(a.command);
        if (a.tool) parts.push(a.tool);
        if (a.arguments !== undefined && a.arguments !== null) parts.push(typeof a.arguments === 'string' ? a.arguments : (JSON.stringify(a.arguments) ?? ''));
        if (a.path) parts.push(a.path);
        return parts.join('\n');
      });
    case 'output':
      return step.observations.map((o) => o.output);
    case 'message':
      return step.message ? [step.message] : [];
    case 'reasoning':
      return step.reasoning ? [step.reasoning] : [];
  }
}

const CONTEXT_BEFORE = 40;
const CONTEXT_AFTER = 100;

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ');
}

/** The matches of `re` in one step, field by field (filters on fields applied); empty when none. */
export function matchStep(step: Step, re: RegExp, fields: readonly SearchField[] = SEARCH_FIELDS): FieldMatch[] {
  const out: FieldMatch[] = [];
  for (const field of fields.length ? fields : SEARCH_FIELDS) {
    let first: FieldMatch | null = null;
    let count = 0;
    fieldTexts(step, field).forEach((text, item) => {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        if (m[0] === '') {
          re.lastIndex++;
          continue;
        }
        count++;
        if (!first) {
          const s = m.index;
          const e = s + m[0].length;
          first = {
            field,
            item,
            before: (s > CONTEXT_BEFORE ? '…' : '') + oneLine(text.slice(Math.max(0, s - CONTEXT_BEFORE), s)),
            match: oneLine(m[0]).slice(0, 200),
            after: oneLine(text.slice(e, e + CONTEXT_AFTER)) + (e + CONTEXT_AFTER < text.length ? '…' : ''),
            count: 0,
          };
        }
      }
    });
    if (first) out.push({ ...(first as FieldMatch), count });
  }
  return out;
}

/** True when the rollout passes the outcome and reward filters. */
export function rolloutPasses(r: Pick<Rollout, 'outcome'>, q: Pick<SearchQuery, 'outcome' | 'minReward' | 'maxReward'>): boolean {
  const o = r.outcome;
  const state = o.resolved === true || (o.resolved === null && o.reward === 1) ? 'passed' : o.resolved === false || (o.resolved === null && o.reward === 0) ? 'failed' : 'unknown';
  if (q.outcome && q.outcome !== 'all' && state !== q.outcome) return false;
  if (q.minReward !== undefined && q.minReward !== null && (o.reward === null || o.reward < q.minReward)) return false;
  if (q.maxReward !== undefined && q.maxReward !== null && (o.reward === null || o.reward > q.maxReward)) return false;
  return true;
}

/** Converts sorted byte offsets of a UTF-8 file into UTF-16 offsets of its decoded text (BOM dropped, as `loadFile` does). */
export function byteToUtf16Offsets(bytes: Uint8Array, byteOffsets: readonly number[]): number[] {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const dec = new TextDecoder('utf-8');
  const order = byteOffsets.map((b, i) => ({ b, i })).sort((x, y) => x.b - y.b);
  const out = new Array<number>(byteOffsets.length);
  let pos = bom;
  let units = 0;
  for (const { b, i } of order) {
    const at = Math.max(bom, Math.min(b, bytes.length));
    if (at > pos) {
      units += dec.decode(bytes.subarray(pos, at)).length;
      pos = at;
    }
    out[i] = units;
  }
  return out;
}

/** The JSON-string form of a text (what a rollout file stores): quotes, backslashes, control characters escaped. */
export function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * A regex over decoded text rewritten so that rg, running over the raw JSON, finds at least the
 * same places: `^` / `$` (outside classes) also match at a string's quote or an escaped newline,
 * `\n` `\r` `\t` also match their JSON escapes, `\s` also matches an escaped whitespace, `"`
 * also matches `\"`, and an escaped backslash also matches the doubled one JSON writes. Only a
 * prefilter: every place is confirmed on the decoded text with the original pattern.
 */
export function rawJsonPattern(re: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    if (c === '\\') {
      const n = re[i + 1] ?? '';
      i++;
      if (inClass) out += `\\${n}`;
      else if (n === 'n' || n === 'r' || n === 't') out += `\\\\${n}`; // JSON strings hold no raw control characters
      else if (n === 's') out += '(?:\\s|\\\\[nrt])';
      else if (n === '\\') out += '\\\\{1,2}';
      else if (n === '"') out += '\\\\?"';
      else out += `\\${n}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (re[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (re[i + 1] === ']') {
        out += ']';
        i++;
      }
    } else if (c === '^') out += '(?:^|"|\\\\n)';
    else if (c === '$') out += '(?:$|"|\\\\n)';
    else if (c === '"') out += '\\\\?"';
    else out += c;
  }
  return out;
}

/** rg's arguments for a query over `files`. */
export function rgArgs(q: SearchQuery, files: readonly string[]): string[] {
  const args = ['--json', '--no-config', '--no-ignore', '--hidden', q.caseSensitive ? '--case-sensitive' : '--ignore-case'];
  if (!q.regex) args.push('--fixed-strings');
  args.push('-e', q.regex ? rawJsonPattern(q.pattern) : q.pattern);
  if (!q.regex) {
    const esc = jsonEscaped(q.pattern);
    if (esc !== q.pattern) args.push('-e', esc);
    // The same text with non-ASCII characters written as \uXXXX (Python's json.dumps default).
    const ascii = esc.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    if (ascii !== esc) args.push('-e', ascii);
  }
  args.push('--', ...files);
  return args;
}

/** Splits files into argument lists that stay well below the OS limit on command lines. */
function chunks(files: readonly string[], maxChars = 60_000): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let n = 0;
  for (const f of files) {
    if (cur.length && n + f.length + 1 > maxChars) {
      out.push(cur);
      cur = [];
      n = 0;
    }
    cur.push(f);
    n += f.length + 1;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** rg's JSON path: `{text}` or, for a path that is not UTF-8, `{bytes}` in base64. */
function rgText(v: unknown): string | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as { text?: unknown; bytes?: unknown };
  if (typeof o.text === 'string') return o.text;
  if (typeof o.bytes === 'string') return Buffer.from(o.bytes, 'base64').toString('utf8');
  return null;
}

/**
 * Runs rg over `files`, calling `onFileDone(path, byteOffsets)` when rg has finished a file with
 * matches. Resolves when rg exits; rejects with SearchError when rg cannot run or fails (exit 2
 * with nothing found). Aborting kills rg and resolves.
 */
export function runRipgrep(
  rgPath: string,
  q: SearchQuery,
  files: readonly string[],
  onFileDone: (file: string, byteOffsets: number[]) => void,
  signal?: AbortSignal,
): Promise<{ errors: string[] }> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return resolve({ errors: [] });
    const child = spawn(rgPath, rgArgs(q, files), { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const offsets = new Map<string, number[]>();
    let buf = '';
    let stderr = '';
    let matched = false;
    const onAbort = (): void => {
      child.kill();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const handle = (line: string): void => {
      if (!line) return;
      let ev: { type?: string; data?: any };
      try {
        ev = JSON.parse(line);
      } catch {
        return;
      }
      const file = rgText(ev.data?.path);
      if (file === null) return;
      if (ev.type === 'match') {
        matched = true;
        let list = offsets.get(file);
        if (!list) offsets.set(file, (list = []));
        const base = Number(ev.data.absolute_offset) || 0;
        for (const sm of ev.data.submatches ?? []) list.push(base + (Number(sm.start) || 0));
      } else if (ev.type === 'end') {
        const list = offsets.get(file);
        offsets.delete(file);
        if (list?.length) onFileDone(file, list);
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      buf += d;
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        handle(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        nl = buf.indexOf('\n');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 20_000) stderr += d;
    });
    child.on('error', (e) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new SearchError(`ripgrep could not be started (${rgPath}): ${e.message}`));
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      handle(buf);
      const errors = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
      // rg: 0 found, 1 nothing found, 2 an error (also when some files could not be read but others matched).
      if (code === 2 && !matched && !signal?.aborted) {
        return reject(new SearchError(`ripgrep failed: ${errors.slice(0, 3).join('; ') || 'exit code 2'}`));
      }
      resolve({ errors });
    });
  });
}

/** The steps of a loaded file that match, given the UTF-16 offsets of rg's matches (null: check every step). */
export function stepsHit(loaded: LoadedFile, file: string, offsets: number[] | null, q: SearchQuery, re: RegExp): RolloutHits[] {
  const out: RolloutHits[] = [];
  const fields = q.fields ?? [];
  const roles = q.roles ?? [];
  const sorted = offsets ? [...offsets].sort((a, b) => a - b) : null;
  const hasOffsetIn = (start: number, end: number): boolean => {
    if (!sorted) return true;
    // First offset ≥ start.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < start) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length && sorted[lo] < end;
  };
  const self = path.resolve(file);
  loaded.rollouts.forEach((r, rolloutIndex) => {
    if (!rolloutPasses(r, q)) return;
    const steps: StepHit[] = [];
    for (const s of r.steps) {
      if (roles.length && !roles.includes(s.role)) continue;
      const inThisFile = s.range !== null && (!s.file || path.resolve(s.file) === self);
      if (inThisFile && !hasOffsetIn(s.range!.start, s.range!.end)) continue;
      const matches = matchStep(s, re, fields);
      if (matches.length) steps.push({ stepIndex: s.index, role: s.role, matches });
    }
    if (steps.length) out.push({ rolloutIndex, rolloutId: r.id, taskId: r.task.id, reward: r.outcome.reward, resolved: r.outcome.resolved, steps });
  });
  return out;
}

/**
 * Searches `files` (absolute paths of rollout files) for `q`. Results stream through `onFile` and
 * are all in the returned summary. Throws SearchError for a bad query or when rg fails outright; a
 * file that cannot be loaded is listed in `errors` and the search goes on. Cancel with `signal`
 * (the summary then says `cancelled`, with what was found so far).
 */
export async function searchRollouts(files: readonly string[], q: SearchQuery, opts: SearchOptions): Promise<SearchSummary> {
  const re = queryRegExp(q);
  const load = opts.load ?? ((f: string) => loadFile(f));
  const direct = opts.loadWithoutRg ?? needsLoading;
  const maxSteps = q.maxSteps ?? 5000;
  const summary: SearchSummary = { files: [], steps: 0, filesChecked: 0, truncated: false, cancelled: false, errors: [] };
  const inner = new AbortController();
  const onOuterAbort = (): void => inner.abort();
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (opts.signal?.aborted) inner.abort();

  const unique = [...new Set(files.map((f) => path.resolve(f)))];
  const viaLoad = opts.rgPath ? unique.filter(direct) : unique;
  const viaRg = opts.rgPath ? unique.filter((f) => !direct(f)) : [];
  const total = unique.length;
  let done = 0;
  const progress = (): void => opts.onProgress?.({ filesDone: done, filesTotal: total, steps: summary.steps });

  // Files are checked one after another (a queue), so results stream in order and memory stays at one loaded file.
  let queue: Promise<void> = Promise.resolve();
  const check = (file: string, via: FileHits['via'], byteOffsets: number[] | null): void => {
    queue = queue.then(async () => {
      if (inner.signal.aborted) return;
      let loaded: LoadedFile;
      let offsets: number[] | null = null;
      try {
        loaded = await load(file);
        if (byteOffsets) offsets = byteToUtf16Offsets(await fs.promises.readFile(file), byteOffsets);
      } catch (e) {
        summary.errors.push({ file, message: e instanceof Error ? e.message.split('\n')[0] : String(e) });
        return;
      }
      if (inner.signal.aborted) return;
      summary.filesChecked++;
      let rollouts = stepsHit(loaded, file, offsets, q, re);
      if (!rollouts.length) return;
      // Keep within maxSteps.
      const left = maxSteps - summary.steps;
      let n = 0;
      rollouts = rollouts
        .map((r) => {
          const steps = r.steps.slice(0, Math.max(0, left - n));
          n += steps.length;
          return { ...r, steps };
        })
        .filter((r) => r.steps.length);
      summary.steps += n;
      const hits: FileHits = { file, via, rollouts };
      summary.files.push(hits);
      opts.onFile?.(hits);
      if (summary.steps >= maxSteps) {
        summary.truncated = true;
        inner.abort();
      }
    });
  };

  try {
    for (const f of viaLoad) {
      check(f, 'load', null);
      queue = queue.then(() => {
        done++;
        progress();
      });
    }
    if (viaRg.length && opts.rgPath) {
      for (const part of chunks(viaRg)) {
        if (inner.signal.aborted) break;
        const res = await runRipgrep(opts.rgPath, q, part, (file, offs) => check(path.resolve(file), 'rg', offs), inner.signal);
        for (const e of res.errors.slice(0, 20)) summary.errors.push({ file: null, message: e });
        queue = queue.then(() => {
          done += part.length;
          progress();
        });
      }
    }
    await queue;
  } finally {
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
  summary.cancelled = !!opts.signal?.aborted;
  return summary;
}
