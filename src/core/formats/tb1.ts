/**
 * Terminal-Bench 1.x (`tb run`) output: a trial folder's `results.json` (format id `tb1-trial`) and a
 * run folder's `results.json` (format id `tb1-run`).
 *
 * Source of the format (upstream laude-institute/terminal-bench was not consulted; verbatim copies):
 * `Ogak-AI/parsewave-contributor:terminal_bench/harness/models.py` (TrialResults, BenchmarkResults,
 * RunMetadata), `finyorko/longcli-bench:terminal_bench/terminal/tmux_session.py` (`send_keys` appends
 * `repr(keys)` to `commands.txt` before `_prepare_keys`; blocking keys lose their trailing Enter and
 * get `; tmux wait -S done` + `Enter`; `start` types `asciinema rec --stdin /logs/<session>.cast` and
 * `clear`, `stop` sends `C-d`) and `handlers/trial_handler.py` (trial layout). Real output:
 * laude-institute/terminal-bench-leaderboard. See docs/reference/formats.md §2.
 *
 * Trial folder `<run>/<task_id>/<trial_name>/`: `results.json` (TrialResults), `commands.txt`,
 * `sessions/agent.cast` + `tests.cast` (asciicast v2 with `i` events), `panes/*.txt`, optional
 * `agent-logs/`. Run folder: `results.json` (BenchmarkResults `{id, results: [TrialResults],
 * pass_at_k, n_resolved, n_unresolved, accuracy, …}`), `run_metadata.json`, `tb.lock`.
 *
 * Mapping (one rollout per TrialResults):
 * - `task` = `task_id` / `instruction`; `agent.name`/`model` = `agent_name`/`model_name` of the run's
 *   `run_metadata.json` (two folders above a trial, beside a run `results.json`), the model falling
 *   back to `model` of the first `agent-logs` `debug.json` (the litellm call log); version unknown.
 * - `outcome.resolved` = `is_resolved`; `status` = `failure_mode`; `reward` = null (TB1 has no scalar
 *   reward); `rewards` = one entry per `parser_results` test, 1 for "passed" and 0 for "failed" (other
 *   statuses left out; all kept verbatim in `metadata.parserResults`), null without parser results.
 * - `id` = `id` (or `uuid`, older harnesses), else `<path>#<index>`; `groupId` = `task_id` (the
 *   attempts `k-of-n` at one task share a prompt).
 * - Steps: one per line of `commands.txt` (a Python `repr` of the `send_keys` argument, a list of
 *   strings or one string; parsed with a small Python-literal parser): one `keystrokes` action whose
 *   `command` is the keys joined (literal keys as typed, an Enter key (`Enter`, `C-m`, `KPEnter`,
 *   `C-j`, `^M`, `^J`) as `\n`, other tmux key names such as `C-d` written by name) and whose
 *   `arguments.keys` holds the keys as recorded. `file` = commands.txt, `range` = that line, `sourceId`
 *   = its 1-based line number. Role `system` for the harness's own keys (the `asciinema rec` line,
 *   the `clear` right after it, and every line sent after the tests session's `asciinema rec`, i.e.
 *   the test run and the `C-d`s that stop the recordings); `agent` for the rest.
 * - Recording: `recording` = `sessions/agent.cast`. Each step of the agent session is matched, in
 *   order, to the cast's input: the typed text of its keys (with and without the harness's blocking
 *   suffix `; tmux wait -S done`, `\n` and `\r` treated alike) is searched in the concatenated `i`
 *   data from where the previous match ended. A matched step gets `castTime` = time of the `i` event
 *   where its text starts and one observation with the `o` output (ANSI kept) from that event up to
 *   the next matched step (`exitCode` null: TB1 records none); `durationSec` = until the next matched
 *   step (the last: until the last event). The agent session's `asciinema rec` step gets castTime 0
 *   and the output before the first match (the first prompt). Unmatched steps (keys with no known
 *   bytes like `Up`, lines of the tests session, a cast that lacks them) have castTime null and no
 *   observation. `metadata.castMatch` counts them. A cast with bad lines is read leniently (issues go
 *   to the load's issues). Without `commands.txt`, the steps are the recording's input lines, cut as
 *   for a `.cast` file (harness input included; `metadata.stepsFrom` = the cast; `file` = the cast).
 * - `agent-logs/`: `episode-N/response.json` (Terminus 1: `state_analysis`, `explanation`,
 *   `commands[].keystrokes`), `episode-N/response.txt` (Terminus 2: JSON `analysis`, `plan`,
 *   `commands[].keystrokes`), or one `response.json` (naive agents: `commands[]` strings,
 *   `explanation`). Each response is attached to the first agent step whose command equals (trailing
 *   line breaks ignored) one of the response's commands, searching forward: `message` = `explanation`
 *   (else `plan`), `reasoning` = `state_analysis` (else `analysis`). When nothing matches and there is
 *   a single response whose command count equals the number of agent steps, it goes to the first
 *   agent step (`metadata.agentLogs.matchedBy` = "position"; agents may rewrite commands, e.g. into
 *   `echo <base64> | base64 -d`). Unmatched responses are named in `metadata.agentLogs.unmatched`.
 * - `metadata`: trial name, failure mode, parser results, token totals, timings (`*_at`, ISO as
 *   recorded), `recording_path` as recorded, and the paths of `commands.txt`, `sessions/tests.cast`,
 *   `panes/*.txt`, `agent-logs/`, `run_metadata.json` when present.
 * - Run level: one rollout per `results[i]` (source range = that object); steps come from the trial
 *   folder `<run>/<task_id>/<trial_name>/` (or the folder named by `recording_path`) when it exists,
 *   else the rollout has no steps, only its outcome. A trial folder that cannot be read (bad
 *   commands.txt) leaves that rollout without steps and its issues in the load's issues. Casts are
 *   parsed up to `RUN_CAST_BUDGET_CHARS` per run file; later trials get steps without cast times.
 *   Folder scans (`findRolloutFiles`) list the run-level `results.json` and skip the trials'
 *   `results.json` under it, so each trial is listed once.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { describeValue, RolloutLoadError, type LocatedIssue } from '../errors';
import { JsonDoc } from '../json';
import { makeStep, type Observation, type Outcome, type Rollout, type SourceRange, type Step } from '../model';
import { castSteps, parseAsciicastPositioned, type PositionedEvent } from './asciicast';
import type { FileAccess, FormatLoader, LoadInput } from './types';
import { isObject, str } from './util';

const TRIAL_FORMAT = 'Terminal-Bench 1 trial results.json';
const RUN_FORMAT = 'Terminal-Bench 1 run results.json';

const Iso = z.string().nullable().optional();

/** TrialResults (`terminal_bench/harness/models.py`); fields read are typed, others kept. */
export const TrialResults = z.looseObject({
  id: z.string().nullable().optional(),
  uuid: z.string().nullable().optional(),
  trial_name: z.string(),
  task_id: z.string(),
  instruction: z.string(),
  is_resolved: z.boolean().nullable().optional(),
  failure_mode: z.string().nullable().optional(),
  parser_results: z.record(z.string(), z.string()).nullable().optional(),
  recording_path: z.string().nullable().optional(),
  total_input_tokens: z.number().nullable().optional(),
  total_output_tokens: z.number().nullable().optional(),
  trial_started_at: Iso,
  trial_ended_at: Iso,
  agent_started_at: Iso,
  agent_ended_at: Iso,
  test_started_at: Iso,
  test_ended_at: Iso,
});
export type TrialResults = z.infer<typeof TrialResults>;

/** BenchmarkResults (run-level `results.json`). */
export const BenchmarkResults = z.looseObject({
  id: z.string().nullable().optional(),
  results: z.array(TrialResults),
  pass_at_k: z.record(z.string(), z.number().nullable()).nullable().optional(),
  n_resolved: z.number().nullable().optional(),
  n_unresolved: z.number().nullable().optional(),
  accuracy: z.number().nullable().optional(),
});
export type BenchmarkResults = z.infer<typeof BenchmarkResults>;

// ---------------------------------------------------------------------------------------------
// commands.txt: Python literals
// ---------------------------------------------------------------------------------------------

/** One line of `commands.txt`: the keys as recorded (a list, or one string), with its place in the file. */
export interface CommandLine {
  /** 1-based line number. */
  line: number;
  /** Offsets of the line's text (without the line break) in commands.txt. */
  range: SourceRange;
  /** The keys; a recorded single string is `[string]` with `isList` false. */
  keys: string[];
  isList: boolean;
}

type PyResult = { ok: true; value: string | string[] } | { ok: false; at: number; expected: string };

/**
 * Parses one Python literal as `repr` writes it for `send_keys`: a list of strings (`['ls', 'Enter']`)
 * or one string. Strings in single or double quotes with Python escapes (`\\ \' \" \n \r \t \a \b \f
 * \v`, octal `\ooo`, `\xhh`, `\uhhhh`, `\Uhhhhhhhh`); an unknown escape keeps its backslash, as in
 * Python. Returns the value, or the offset of the first problem and what was expected there.
 */
export function parsePythonKeys(s: string): PyResult {
  let i = 0;
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const err = (expected: string): PyResult => ({ ok: false, at: i, expected });
  const parseStr = (): string | PyResult => {
    const q = s[i];
    if (q !== "'" && q !== '"') return err('a string literal');
    i++;
    let out = '';
    for (;;) {
      if (i >= s.length) return err(`a closing ${q}`);
      const c = s[i];
      if (c === q) {
        i++;
        return out;
      }
      if (c !== '\\') {
        out += c;
        i++;
        continue;
      }
      const n = s[i + 1];
      if (n === undefined) {
        i++;
        return err(`a closing ${q}`);
      }
      const simple: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };
      if (n in simple) {
        out += simple[n];
        i += 2;
        continue;
      }
      if (n >= '0' && n <= '7') {
        const m = /^[0-7]{1,3}/.exec(s.slice(i + 1))![0];
        out += String.fromCharCode(parseInt(m, 8));
        i += 1 + m.length;
        continue;
      }
      const hexLen = n === 'x' ? 2 : n === 'u' ? 4 : n === 'U' ? 8 : 0;
      if (hexLen) {
        const h = s.slice(i + 2, i + 2 + hexLen);
        if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(h)) return err(`${hexLen} hex digits after \\${n}`);
        const cp = parseInt(h, 16);
        if (cp > 0x10ffff) return err('a code point up to \\U0010ffff');
        out += String.fromCodePoint(cp);
        i += 2 + hexLen;
        continue;
      }
      if (n === 'N') return err('an escape other than \\N{…} (repr never writes it)');
      out += '\\' + n; // Python keeps unknown escapes as written
      i += 2;
    }
  };
  ws();
  let value: string | string[];
  if (s[i] === '[') {
    i++;
    const items: string[] = [];
    ws();
    if (s[i] === ']') i++;
    else {
      for (;;) {
        ws();
        if (s[i] === ']' && items.length > 0) {
          i++; // trailing comma
          break;
        }
        const item = parseStr();
        if (typeof item !== 'string') return item;
        items.push(item);
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ']') {
          i++;
          break;
        }
        return err("',' or ']'");
      }
    }
    value = items;
  } else if (s[i] === "'" || s[i] === '"') {
    const v = parseStr();
    if (typeof v !== 'string') return v;
    value = v;
  } else {
    return err("a Python list of strings (['ls', 'Enter']) or a string literal");
  }
  ws();
  if (i < s.length) return err('the end of the line');
  return { ok: true, value };
}

/**
 * Parses `commands.txt` (one Python literal per line; blank lines skipped). Throws RolloutLoadError
 * located at the line and column of the first malformed line.
 */
export function parseCommandsTxt(file: string, text: string): CommandLine[] {
  const out: CommandLine[] = [];
  let start = 0;
  let line = 1;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let t = text.slice(start, end);
    if (t.endsWith('\r')) t = t.slice(0, -1);
    if (t.trim() !== '') {
      const r = parsePythonKeys(t);
      if (!r.ok) {
        const found = r.at >= t.length ? 'end of line' : JSON.stringify(t.slice(r.at, r.at + 12));
        throw new RolloutLoadError(file, TRIAL_FORMAT, [{ file, line, column: r.at + 1, pointer: null, expected: r.expected, found }]);
      }
      out.push({ line, range: { start, end: start + t.length }, keys: Array.isArray(r.value) ? r.value : [r.value], isList: Array.isArray(r.value) });
    }
    if (end === text.length) break;
    start = end + 1;
    line++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// tmux keys
// ---------------------------------------------------------------------------------------------

/** The harness's Enter keys (`TmuxSession._ENTER_KEYS`, case-sensitive there). */
const HARNESS_ENTER = new Set(['Enter', 'C-m', 'KPEnter', 'C-j', '^M', '^J']);
const BLOCK_SUFFIX = '; tmux wait -S done';

/** Bytes of tmux key names (lower-case); null = a key whose bytes depend on the terminal mode. */
const NAMED_KEYS: Record<string, string | null> = {
  enter: '\r',
  kpenter: '\r',
  escape: '\x1b',
  tab: '\t',
  btab: '\x1b[Z',
  bspace: '\x7f',
  space: ' ',
  up: null,
  down: null,
  left: null,
  right: null,
  home: null,
  end: null,
  ppage: null,
  npage: null,
  pageup: null,
  pagedown: null,
  pgup: null,
  pgdn: null,
  ic: null,
  dc: null,
  insert: null,
  delete: null,
};
for (let f = 1; f <= 12; f++) NAMED_KEYS[`f${f}`] = null;

/** Control character for `C-x` / `^x`, or null when tmux would send something mode-dependent. */
function ctrlOf(ch: string): string | null {
  const c = ch.toUpperCase();
  if (c >= 'A' && c <= 'Z') return String.fromCharCode(c.charCodeAt(0) & 0x1f);
  const map: Record<string, string> = { '@': '\0', '[': '\x1b', '\\': '\x1c', ']': '\x1d', '^': '\x1e', _: '\x1f', '?': '\x7f', ' ': '\0' };
  return map[ch] ?? null;
}

/**
 * What tmux types for one `send-keys` argument: undefined when it is not a key name (typed
 * literally), the bytes of a key name, or null when the key's bytes are not known here.
 */
export function keyBytes(k: string): string | null | undefined {
  const lower = k.toLowerCase();
  if (lower in NAMED_KEYS) return NAMED_KEYS[lower];
  let m = /^(?:c-|\^)(.)$/i.exec(k);
  if (m) return ctrlOf(m[1]);
  if (/^c-space$/i.test(k)) return '\0';
  m = /^m-(.)$/i.exec(k);
  if (m) return '\x1b' + m[1];
  m = /^(?:[cms]-)+(.+)$/i.exec(k);
  if (m && (m[1].toLowerCase() in NAMED_KEYS || m[1].length === 1)) return null;
  return undefined;
}

function isEnterKeyName(k: string): boolean {
  return /^(enter|kpenter|c-m|c-j|\^m|\^j)$/i.test(k);
}

/**
 * The keys as one readable command: literal keys as typed, Enter keys as `\n`, other key names by
 * name (set apart by a space from adjacent text).
 */
export function keysText(keys: string[]): string {
  let out = '';
  let afterName = false;
  for (const k of keys) {
    const b = keyBytes(k);
    if (b === undefined) {
      out += (afterName && out !== '' && !/\s$/.test(out) ? ' ' : '') + k;
      afterName = false;
    } else if (isEnterKeyName(k)) {
      out += '\n';
      afterName = false;
    } else {
      out += (out !== '' && !/\s$/.test(out) ? ' ' : '') + k;
      afterName = true;
    }
  }
  return out;
}

/** The bytes the keys type, or null when one of them has unknown bytes. */
function typedText(keys: string[]): string | null {
  let out = '';
  for (const k of keys) {
    const b = keyBytes(k);
    if (b === null) return null;
    out += b === undefined ? k : b;
  }
  return out;
}

/** `TmuxSession._prepare_keys(keys, block=True)` when the last key executes, else null. */
function blockingKeys(keys: string[]): string[] | null {
  const executes = (k: string) => HARNESS_ENTER.has(k) || /[\r\n]$/.test(k);
  if (keys.length === 0 || !executes(keys[keys.length - 1])) return null;
  const ks = keys.slice();
  while (ks.length && executes(ks[ks.length - 1])) {
    const last = ks[ks.length - 1];
    if (HARNESS_ENTER.has(last)) ks.pop();
    else {
      const stripped = last.replace(/[\r\n]+$/, '');
      if (stripped) ks[ks.length - 1] = stripped;
      else ks.pop();
    }
  }
  return [...ks, BLOCK_SUFFIX, 'Enter'];
}

/** `\n` → `\r`: tmux may deliver a literal newline either way, Enter is `\r`. */
function normInput(s: string): string {
  return s.replace(/\n/g, '\r');
}

const REC = /^asciinema\s+rec\b.*?(\S+)\.cast\s*$/;

/** Session name started by an `asciinema rec --stdin /logs/<name>.cast` line, or null. */
function recSession(c: CommandLine): string | null {
  const m = REC.exec(c.keys[0] ?? '');
  return m ? path.posix.basename(m[1]) : null;
}

// ---------------------------------------------------------------------------------------------
// commands ↔ cast
// ---------------------------------------------------------------------------------------------

interface Classified {
  cmd: CommandLine;
  role: 'agent' | 'system';
  /** The `asciinema rec` line that started the recorded session. */
  startsRecording: boolean;
  /** Try to find it in the recording's input. */
  matchable: boolean;
}

/** Roles and recording membership of each command line (see the module docs). */
function classify(cmds: CommandLine[], recording: string): Classified[] {
  let session: string | null = null;
  let prevRec = false;
  let recStarted = false;
  return cmds.map((cmd) => {
    const rec = recSession(cmd);
    if (rec !== null) {
      session = rec;
      prevRec = true;
      const starts = rec === recording && !recStarted;
      if (starts) recStarted = true;
      return { cmd, role: 'system', startsRecording: starts, matchable: false };
    }
    const isClear = prevRec && cmd.keys.length === 2 && cmd.keys[0] === 'clear' && isEnterKeyName(cmd.keys[1]);
    prevRec = false;
    const inRecording = session === null || session === recording;
    const isStop = cmd.keys.length === 1 && /^(c-d|\^d)$/i.test(cmd.keys[0]);
    if (isClear) return { cmd, role: 'system', startsRecording: false, matchable: inRecording };
    if (!inRecording) return { cmd, role: 'system', startsRecording: false, matchable: isStop };
    return { cmd, role: 'agent', startsRecording: false, matchable: true };
  });
}

interface CastMatch {
  /** Index into the events of the `i` event where the command's text starts. */
  event: number;
}

/** Matches commands to the cast's input in order (see the module docs). */
function matchToCast(items: Classified[], events: PositionedEvent[]): (CastMatch | null)[] {
  let stream = '';
  const starts: number[] = [];
  const eventOf: number[] = [];
  events.forEach((e, k) => {
    if (e.code !== 'i') return;
    starts.push(stream.length);
    eventOf.push(k);
    stream += normInput(e.data);
  });
  const eventAt = (pos: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return eventOf[lo];
  };
  let cursor = 0;
  return items.map((it) => {
    if (!it.matchable || starts.length === 0) return null;
    const plain = typedText(it.cmd.keys);
    if (plain === null || plain === '') return null;
    const blk = blockingKeys(it.cmd.keys);
    const candidates = [blk ? typedText(blk) : null, plain].filter((c): c is string => c !== null).map(normInput);
    let best: { pos: number; len: number } | null = null;
    for (const c of candidates) {
      const pos = stream.indexOf(c, cursor);
      if (pos >= 0 && (!best || pos < best.pos)) best = { pos, len: c.length };
    }
    if (!best) return null;
    cursor = best.pos + best.len;
    return { event: eventAt(best.pos) };
  });
}

// ---------------------------------------------------------------------------------------------
// agent-logs
// ---------------------------------------------------------------------------------------------

interface LogRecord {
  /** Path relative to the trial folder. */
  name: string;
  commands: string[];
  message: string | null;
  reasoning: string | null;
}

/** JSON object of a response file (a `.txt` may hold text around the JSON object), or null. */
function responseObject(text: string): Record<string, unknown> | null {
  const tryParse = (t: string) => {
    try {
      const v = JSON.parse(t);
      return isObject(v) ? v : null;
    } catch {
      return null;
    }
  };
  const direct = tryParse(text);
  if (direct) return direct;
  const a = text.indexOf('{');
  const b = text.lastIndexOf('}');
  return a >= 0 && b > a ? tryParse(text.slice(a, b + 1)) : null;
}

/** Reads `agent-logs/` responses in episode order (see the module docs). */
async function readAgentLogs(trialDir: string, files: FileAccess, wantModel: boolean): Promise<{ records: LogRecord[]; model: string | null } | null> {
  const dir = path.join(trialDir, 'agent-logs');
  if (!(await files.isDirectory(dir))) return null;
  const names = await files.list(dir);
  const episodes = names
    .map((n) => ({ n, m: /^episode-(\d+)$/.exec(n) }))
    .filter((e) => e.m)
    .sort((a, b) => Number(a.m![1]) - Number(b.m![1]))
    .map((e) => e.n);
  const folders = episodes.length ? episodes.map((e) => path.join(dir, e)) : [dir];
  const records: LogRecord[] = [];
  for (const f of folders) {
    for (const fname of ['response.json', 'response.txt']) {
      const p = path.join(f, fname);
      const text = await files.readText(p);
      if (text === null) continue;
      const o = responseObject(text);
      const cmds = o && Array.isArray(o.commands) ? o.commands : [];
      records.push({
        name: path.relative(trialDir, p),
        commands: cmds
          .map((c) => (typeof c === 'string' ? c : isObject(c) && typeof c.keystrokes === 'string' ? c.keystrokes : null))
          .filter((c): c is string => c !== null),
        message: o ? (str(o.explanation) ?? str(o.plan)) : null,
        reasoning: o ? (str(o.state_analysis) ?? str(o.analysis)) : null,
      });
      break;
    }
  }
  let model: string | null = null;
  const debug = wantModel ? await files.readText(path.join(folders[0], 'debug.json')) : null;
  if (debug !== null) {
    const o = responseObject(debug);
    model = o ? str(o.model) : null;
  }
  return { records, model };
}

function normCommand(s: string): string {
  return s.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
}

/** Attaches agent-log responses to agent steps; returns what was done, for metadata. */
function attachAgentLogs(records: LogRecord[], agentSteps: { step: Step; text: string }[]): Record<string, unknown> {
  let cursor = 0;
  let matched = 0;
  const unmatched: string[] = [];
  const attach = (r: LogRecord, s: Step) => {
    if (r.message !== null && s.message === '') s.message = r.message;
    if (r.reasoning !== null && s.reasoning === null) s.reasoning = r.reasoning;
  };
  for (const r of records) {
    let first: number | null = null;
    for (const c of r.commands) {
      const want = normCommand(c);
      for (let j = cursor; j < agentSteps.length; j++) {
        if (normCommand(agentSteps[j].text) === want) {
          if (first === null) first = j;
          cursor = j + 1;
          break;
        }
      }
    }
    if (first !== null) {
      attach(r, agentSteps[first].step);
      matched++;
    } else unmatched.push(r.name);
  }
  let matchedBy = 'command';
  if (matched === 0 && records.length === 1 && records[0].commands.length > 0 && records[0].commands.length === agentSteps.length) {
    attach(records[0], agentSteps[0].step);
    matched = 1;
    unmatched.length = 0;
    matchedBy = 'position';
  }
  return { responses: records.length, matched, matchedBy, unmatched };
}

// ---------------------------------------------------------------------------------------------
// Trials
// ---------------------------------------------------------------------------------------------

/** Reads a sibling JSON file leniently: the value, or null (absent / not JSON, with an issue). */
async function readJson(p: string, files: FileAccess, issues: LocatedIssue[]): Promise<unknown> {
  const text = await files.readText(p);
  if (text === null) return null;
  try {
    return JsonDoc.parse(p, text).value;
  } catch (e) {
    if (e instanceof RolloutLoadError) issues.push(...e.issues);
    return null;
  }
}

/** Run information shared by the trials of one run. */
interface RunInfo {
  metadataPath: string | null;
  agentName: string | null;
  model: string | null;
  metadata: Record<string, unknown>;
}

async function readRunMetadata(runDir: string, files: FileAccess, issues: LocatedIssue[]): Promise<RunInfo> {
  const p = path.join(runDir, 'run_metadata.json');
  const v = await readJson(p, files, issues);
  if (!isObject(v)) return { metadataPath: null, agentName: null, model: null, metadata: {} };
  const metadata: Record<string, unknown> = { runMetadata: p };
  for (const [k, key] of [
    ['run_id', 'runId'],
    ['dataset_name', 'datasetName'],
    ['dataset_version', 'datasetVersion'],
  ] as const) {
    if (str(v[k]) !== null) metadata[key] = v[k];
  }
  return { metadataPath: p, agentName: str(v.agent_name), model: str(v.model_name), metadata };
}

/**
 * Most characters of `agent.cast` text one run-level load parses (all trials together). Casts of
 * installed agents reach several MB each (OpenHands: median 2.5 MB), and a run holds hundreds of
 * trials; past this budget a trial's steps come from commands.txt without cast times and outputs
 * (`metadata.castMatch` says so; the trial folder opened alone reads its cast).
 */
export const RUN_CAST_BUDGET_CHARS = 64 * 1024 * 1024;

/** Steps and trial-folder facts of one trial folder. Throws RolloutLoadError on a malformed commands.txt. */
async function trialFolder(
  trialDir: string,
  files: FileAccess,
  issues: LocatedIssue[],
  castBudget: { left: number } | null,
  wantModel: boolean,
): Promise<{ steps: Step[]; recording: string | null; metadata: Record<string, unknown>; model: string | null }> {
  const metadata: Record<string, unknown> = {};
  const commandsPath = path.join(trialDir, 'commands.txt');
  const commandsText = await files.readText(commandsPath);
  const castPath = path.join(trialDir, 'sessions', 'agent.cast');
  const castText = await files.readText(castPath);
  if ((await files.list(path.join(trialDir, 'sessions'))).includes('tests.cast')) metadata.testsRecording = path.join(trialDir, 'sessions', 'tests.cast');
  const panesDir = path.join(trialDir, 'panes');
  const panes = (await files.list(panesDir)).filter((n) => n.endsWith('.txt')).sort();
  if (panes.length) metadata.panes = Object.fromEntries(panes.map((n) => [n.replace(/\.txt$/, ''), path.join(panesDir, n)]));

  let events: PositionedEvent[] | null = null;
  let castSkipped = false;
  if (castText !== null && castBudget && castText.length > castBudget.left) {
    castSkipped = true;
  } else if (castText !== null) {
    if (castBudget) castBudget.left -= castText.length;
    try {
      const cast = parseAsciicastPositioned(castText, { file: castPath, lenient: true });
      events = cast.events;
      issues.push(...cast.issues);
    } catch (e) {
      if (!(e instanceof RolloutLoadError)) throw e;
      issues.push(...e.issues);
    }
  }

  const steps: Step[] = [];
  if (commandsText !== null) {
    metadata.commandsFile = commandsPath;
    const cmds = parseCommandsTxt(commandsPath, commandsText);
    const items = classify(cmds, 'agent');
    const matches = events ? matchToCast(items, events) : items.map(() => null);
    // Step boundaries in the cast: the recording's start (the `asciinema rec` step) and each match.
    const bounds: { item: number; event: number; time: number }[] = [];
    items.forEach((it, k) => {
      if (events && events.length && it.startsRecording) bounds.push({ item: k, event: 0, time: 0 });
      const m = matches[k];
      if (events && m) bounds.push({ item: k, event: m.event, time: events[m.event].time });
    });
    const byItem = new Map<number, { output: string; time: number; duration: number }>();
    if (events) {
      const last = events.length ? events[events.length - 1].time : 0;
      bounds.forEach((b, j) => {
        const to = j + 1 < bounds.length ? bounds[j + 1].event : events!.length;
        let output = '';
        for (let e = b.event; e < to; e++) if (events![e].code === 'o') output += events![e].data;
        const next = j + 1 < bounds.length ? bounds[j + 1].time : last;
        byItem.set(b.item, { output, time: b.time, duration: Math.max(0, Math.round((next - b.time) * 1e6) / 1e6) });
      });
    }
    items.forEach((it, k) => {
      const cast = byItem.get(k);
      const observations: Observation[] = cast ? [{ callId: null, output: cast.output, exitCode: null, truncated: false }] : [];
      steps.push(
        makeStep(k, it.role, {
          sourceId: it.cmd.line,
          actions: [{ kind: 'keystrokes', command: keysText(it.cmd.keys), tool: null, arguments: { keys: it.cmd.isList ? it.cmd.keys : it.cmd.keys[0] }, callId: null }],
          observations,
          castTime: cast ? cast.time : null,
          durationSec: cast ? cast.duration : null,
          range: it.cmd.range,
          file: commandsPath,
        }),
      );
    });
    metadata.castMatch = castSkipped
      ? { skipped: `the run's casts exceed ${RUN_CAST_BUDGET_CHARS / 1024 / 1024} MiB; open the trial folder for cast times and outputs` }
      : { agentSessionCommands: items.filter((it) => it.matchable).length, matched: matches.filter((m) => m !== null).length };

    const logs = await readAgentLogs(trialDir, files, wantModel);
    if (logs) {
      const agentSteps = steps
        .map((s, k) => ({ step: s, text: s.actions[0]?.command ?? '', role: items[k].role }))
        .filter((s) => s.role === 'agent');
      metadata.agentLogs = { dir: path.join(trialDir, 'agent-logs'), ...attachAgentLogs(logs.records, agentSteps) };
      return { steps, recording: castText !== null ? castPath : null, metadata, model: logs.model };
    }
  } else {
    if (events) {
      // No commands.txt: the recording's own input lines are the steps, as for a `.cast` file.
      for (const s of castSteps(events).steps) steps.push({ ...s, file: castPath });
      metadata.stepsFrom = castPath;
    }
    if (await files.isDirectory(path.join(trialDir, 'agent-logs'))) metadata.agentLogs = { dir: path.join(trialDir, 'agent-logs') };
  }
  return { steps, recording: castText !== null ? castPath : null, metadata, model: null };
}

function outcomeOf(tr: TrialResults, where: string): Outcome {
  let rewards: Record<string, number> | null = null;
  if (tr.parser_results) {
    rewards = {};
    for (const [name, status] of Object.entries(tr.parser_results)) {
      if (status === 'passed') rewards[name] = 1;
      else if (status === 'failed') rewards[name] = 0;
    }
  }
  const known = tr.is_resolved !== undefined || tr.failure_mode !== undefined || tr.parser_results !== undefined;
  return {
    reward: null,
    rewards,
    resolved: tr.is_resolved ?? null,
    status: tr.failure_mode ?? null,
    source: known ? `${where} is_resolved / failure_mode / parser_results` : null,
  };
}

/** Builds the rollout of one TrialResults. */
async function trialRollout(
  tr: TrialResults,
  opts: {
    format: 'tb1-trial' | 'tb1-run';
    path: string;
    index: number;
    range: SourceRange | null;
    trialDir: string | null;
    run: RunInfo;
    runLevel?: Record<string, unknown>;
    castBudget?: { left: number };
    files: FileAccess;
    issues: LocatedIssue[];
  },
): Promise<Rollout> {
  const metadata: Record<string, unknown> = { trialName: tr.trial_name };
  if (tr.failure_mode !== undefined) metadata.failureMode = tr.failure_mode;
  if (tr.parser_results !== undefined) metadata.parserResults = tr.parser_results;
  if (tr.total_input_tokens !== undefined) metadata.totalInputTokens = tr.total_input_tokens;
  if (tr.total_output_tokens !== undefined) metadata.totalOutputTokens = tr.total_output_tokens;
  if (tr.recording_path) metadata.recordingPath = tr.recording_path;
  const timings: Record<string, string | null> = {};
  for (const k of ['trial_started_at', 'trial_ended_at', 'agent_started_at', 'agent_ended_at', 'test_started_at', 'test_ended_at'] as const) {
    if (tr[k] !== undefined) timings[k] = tr[k] ?? null;
  }
  if (Object.keys(timings).length) metadata.timings = timings;
  Object.assign(metadata, opts.run.metadata);
  if (opts.runLevel) metadata.run = opts.runLevel;

  let steps: Step[] = [];
  let recording: string | null = null;
  let model: string | null = null;
  if (opts.trialDir) {
    metadata.trialDir = opts.trialDir;
    try {
      const t = await trialFolder(opts.trialDir, opts.files, opts.issues, opts.castBudget ?? null, opts.run.model === null);
      steps = t.steps;
      recording = t.recording;
      model = t.model;
      Object.assign(metadata, t.metadata);
    } catch (e) {
      // A run collection keeps the trial's outcome when its folder cannot be read.
      if (opts.format !== 'tb1-run' || !(e instanceof RolloutLoadError)) throw e;
      opts.issues.push(...e.issues);
      metadata.stepsError = e.message;
    }
  }
  const id = tr.id ?? tr.uuid ?? `${opts.path}#${opts.index}`;
  return {
    id,
    format: opts.format,
    schemaVersion: null,
    source: { path: opts.path, range: opts.range, line: null },
    task: { id: tr.task_id, instruction: tr.instruction },
    agent: { name: opts.run.agentName, version: null, model: opts.run.model ?? model },
    environment: { image: null, workdir: null },
    outcome: outcomeOf(tr, path.basename(opts.path)),
    // Per-test rewards are read from the parser's "passed" / "failed" (1 / 0), not recorded as numbers.
    ...(tr.parser_results && Object.keys(tr.parser_results).length ? { derived: ['outcome.rewards'] } : {}),
    groupId: tr.task_id,
    steps,
    metadata,
    recording: recording ? { path: recording, kind: 'asciicast' } : null,
  };
}

function needDoc(input: LoadInput, label: string): JsonDoc {
  if (!input.doc) {
    throw new RolloutLoadError(input.path, label, [{ file: input.path, line: 1, column: 1, pointer: null, expected: 'one JSON object', found: 'JSON Lines' }]);
  }
  return input.doc;
}

function looksLikeTrial(v: unknown): v is Record<string, unknown> {
  return (
    isObject(v) &&
    typeof v.trial_name === 'string' &&
    typeof v.task_id === 'string' &&
    'instruction' in v &&
    ('is_resolved' in v || 'failure_mode' in v || 'parser_results' in v)
  );
}

/** Loader for a Terminal-Bench 1 trial's `results.json` (format id `tb1-trial`). */
export const tb1TrialLoader: FormatLoader = {
  id: 'tb1-trial',
  label: 'Terminal-Bench 1 trial (results.json + commands.txt + sessions/agent.cast)',
  /** Accepts an object with TrialResults fields `trial_name`, `task_id` (strings), `instruction` and one of `is_resolved`/`failure_mode`/`parser_results` (0.9). */
  detect(input) {
    if (looksLikeTrial(input.doc?.value)) return { accept: true, confidence: 0.9 };
    return { accept: false, reason: 'no TrialResults fields (trial_name, task_id, instruction, is_resolved / failure_mode / parser_results)' };
  },
  /** Reads the trial (steps from the folder's commands.txt and sessions/agent.cast). Throws RolloutLoadError with located issues. */
  async load(input) {
    const doc = needDoc(input, TRIAL_FORMAT);
    const tr = doc.validate(TrialResults, TRIAL_FORMAT);
    const issues = input.issues ?? [];
    const trialDir = path.dirname(input.path);
    const run = await readRunMetadata(path.dirname(path.dirname(trialDir)), input.files, issues);
    return [await trialRollout(tr, { format: 'tb1-trial', path: input.path, index: 0, range: null, trialDir, run, files: input.files, issues })];
  },
};

/** Loader for a Terminal-Bench 1 run's `results.json` (format id `tb1-run`). */
export const tb1RunLoader: FormatLoader = {
  id: 'tb1-run',
  label: 'Terminal-Bench 1 run (results.json with results[] of trials)',
  /** Accepts an object with a `results` array of TrialResults-like objects and `n_resolved`, `accuracy` or `pass_at_k` (0.9). */
  detect(input) {
    const v = input.doc?.value;
    if (!isObject(v)) return { accept: false, reason: 'not a JSON object' };
    if (!Array.isArray(v.results)) return { accept: false, reason: 'no results[] array' };
    if (!('n_resolved' in v || 'accuracy' in v || 'pass_at_k' in v)) return { accept: false, reason: 'no n_resolved / accuracy / pass_at_k' };
    const first = v.results[0];
    if (v.results.length && !(isObject(first) && typeof first.trial_name === 'string' && typeof first.task_id === 'string')) {
      return { accept: false, reason: `results[0] is not a TrialResults (trial_name, task_id): ${describeValue(first)}` };
    }
    return { accept: true, confidence: 0.9 };
  },
  /** Reads one rollout per trial result, with steps from the trial folders beside the file when they exist. */
  async load(input) {
    const doc = needDoc(input, RUN_FORMAT);
    const br = doc.validate(BenchmarkResults, RUN_FORMAT);
    const issues = input.issues ?? [];
    const runDir = path.dirname(input.path);
    const run = await readRunMetadata(runDir, input.files, issues);
    const runLevel: Record<string, unknown> = { results: input.path };
    if (br.id) runLevel.id = br.id;
    for (const k of ['n_resolved', 'n_unresolved', 'accuracy', 'pass_at_k'] as const) if (br[k] !== undefined) runLevel[k] = br[k];
    const out: Rollout[] = [];
    const castBudget = { left: RUN_CAST_BUDGET_CHARS };
    for (let i = 0; i < br.results.length; i++) {
      const tr = br.results[i];
      const trialDir = await findTrialDir(runDir, tr, input.files);
      out.push(
        await trialRollout(tr, {
          format: 'tb1-run',
          path: input.path,
          index: i,
          range: doc.rangeOf(['results', i]),
          trialDir,
          run,
          runLevel,
          castBudget,
          files: input.files,
          issues,
        }),
      );
    }
    return out;
  },
};

/**
 * The trial folder of a run-level result: `<run>/<task_id>/<trial_name>/`, else the folder named by
 * `recording_path` (`<run_id>/<task>/<trial>/sessions/agent.cast`, relative to the runs folder or to
 * the results file's folder), else null.
 */
async function findTrialDir(runDir: string, tr: TrialResults, files: FileAccess): Promise<string | null> {
  const plain = (n: string) => n !== '' && n !== '.' && n !== '..' && !/[\\/]/.test(n);
  const candidates = plain(tr.task_id) && plain(tr.trial_name) ? [path.join(runDir, tr.task_id, tr.trial_name)] : [];
  if (tr.recording_path && !path.isAbsolute(tr.recording_path)) {
    const rel = path.dirname(path.dirname(tr.recording_path));
    if (rel !== '.' && !rel.split(/[\\/]/).includes('..')) {
      candidates.push(path.join(path.dirname(runDir), rel), path.join(runDir, rel));
    }
  }
  for (const c of candidates) if (await files.isDirectory(c)) return c;
  return null;
}

