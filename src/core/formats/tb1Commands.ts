/**
 * Terminal-Bench 1 `commands.txt` (the `repr(keys)` of every tmux `send_keys`, one per line) read
 * back into commands: the Python literals, the tmux key names, and the match of each command to the
 * input events of the session's asciicast recording. Sources and mapping: module docs of tb1Results.ts.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { RolloutLoadError } from '../errors';
import type { SourceRange } from '../model';
import type { PositionedEvent } from './asciicast';

/** The format a trial's load errors name (its results.json and commands.txt). */
export const TRIAL_FORMAT = 'Terminal-Bench 1 trial results.json';

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
export function classify(cmds: CommandLine[], recording: string): Classified[] {
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
export function matchToCast(items: Classified[], events: PositionedEvent[]): (CastMatch | null)[] {
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
