/**
 * Normalisation of recorded and replayed output before comparing (reference §3.1):
 *  1. render as a terminal would (@xterm/headless): carriage returns overwrite, cursor moves and
 *     clears apply, escape sequences (ANSI colours, OSC titles) leave no trace;
 *  2. drop harness framing (Terminus "New Terminal Output:" headers) and environment noise
 *     (bash job-control warnings);
 *  3. replace volatile tokens by placeholders with regex rules (ids, timestamps, durations, temp
 *     paths, hostnames in prompts, pids, addresses); users add their own rules (settings / CLI);
 *  4. whitespace: trailing spaces, leading / trailing blank lines, runs of blank lines, a trailing
 *     bare prompt line, a prompt at the very start (recordings disagree on which step owns it);
 *  5. cut the text the way the recording's harness cut long outputs (plan.truncation).
 */
import { Terminal } from '@xterm/headless';
import { clampEscapes } from '../escapes';
import type { TruncationPolicy } from './plan';

/** A regex replacement applied to normalised text. `pattern` is a JavaScript regex source. */
export interface NormalizationRule {
  name: string;
  pattern: string;
  /** Regex flags; `g` is always added. Default `gm`. */
  flags?: string;
  replacement: string;
}

/**
 * The built-in rules, applied in order after rendering. Each was written against real samples
 * (test/unit/replay/normalize.test.ts shows where each fires).
 */
export const DEFAULT_RULES: readonly NormalizationRule[] = [
  // Codex CLI's header on a command's output (unified exec: "Chunk ID … Wall time … Process exited
  // with code N … Output:"; the older shell tool: "Exit code: N\nWall time: …\nOutput:"), when a
  // loader left it in the recorded text: the replay prints none.
  {
    name: 'codex-exec-header',
    pattern: '^(?=Command: |Chunk ID: |Exit code: |Wall time: |Process )(?:Command: [^\\n]*\\n)?(?:Chunk ID: [^\\n]*\\n)?(?:Exit code: -?\\d+\\n)?(?:Wall time: [\\d.]+ seconds\\n)?(?:Process (?:exited with code -?\\d+|running with session ID \\d+)\\n)?(?:Original token count: \\d+\\n)?(?:Total output lines: \\d+\\n)?Output:\\n',
    flags: '',
    replacement: '',
  },
  { name: 'terminus-header', pattern: '^(?:Current terminal state:\\n)?New Terminal Output:\\n', flags: '', replacement: '' },
  { name: 'tb-blocking-wait', pattern: '; tmux wait -S done$', replacement: '' },
  { name: 'job-control-noise', pattern: '^bash: (?:cannot set terminal process group.*|no job control in this shell)\\n?', replacement: '' },
  { name: 'uuid', pattern: '\\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\b', flags: 'gmi', replacement: '[UUID]' },
  { name: 'prompt-host', pattern: '\\b([a-z_][\\w-]*)@[\\w.-]+:', replacement: '$1@[HOST]:' },
  { name: 'container-id', pattern: '\\b[0-9a-f]{64}\\b|\\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\\d)[0-9a-f]{12}\\b', replacement: '[ID]' },
  { name: 'iso-time', pattern: '\\b\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d+)?(?:Z|[+-]\\d{2}:?\\d{2})?', replacement: '[TIME]' },
  { name: 'ls-date', pattern: '\\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \\d]\\d (?:\\d{2}:\\d{2}|\\s?\\d{4})\\b', replacement: '[DATE]' },
  { name: 'clock', pattern: '\\b\\d{1,2}:\\d{2}:\\d{2}(?:\\.\\d+)?\\b', replacement: '[TIME]' },
  { name: 'duration', pattern: '\\b\\d+(?:\\.\\d+)?\\s?(?:ms|µs|us|ns|s|sec|secs|seconds)\\b|\\b\\d+m\\d+(?:\\.\\d+)?s\\b', replacement: '[DURATION]' },
  { name: 'tmp-path', pattern: '/tmp/tmp[\\w.-]{4,}|/tmp/[\\w.-]*\\.[A-Za-z0-9]{6,}\\b', replacement: '/tmp/[TMP]' },
  { name: 'job-pid', pattern: '^\\[\\d+\\]\\s+\\d+$', replacement: '[JOB] [PID]' },
  { name: 'address', pattern: '\\b0x[0-9a-f]{6,}\\b', flags: 'gmi', replacement: '[ADDR]' },
];

/** A rule that failed to compile, with why (shown to the user; the rule is skipped). */
export interface RuleError {
  name: string;
  message: string;
}

/** Compiles rules; bad ones are reported, not thrown. */
export function compileRules(rules: readonly NormalizationRule[]): { compiled: Array<{ rule: NormalizationRule; re: RegExp }>; errors: RuleError[] } {
  const compiled: Array<{ rule: NormalizationRule; re: RegExp }> = [];
  const errors: RuleError[] = [];
  for (const rule of rules) {
    try {
      const flags = rule.flags ?? 'gm';
      compiled.push({ rule, re: new RegExp(rule.pattern, flags.includes('g') ? flags : flags + 'g') });
    } catch (e) {
      errors.push({ name: rule.name, message: (e as Error).message });
    }
  }
  return { compiled, errors };
}

/**
 * Renders text as a terminal would show it, scrollback included: the final screen contents, one
 * string per logical line (wrapped rows joined). `\n` is treated as CR+LF, as a TTY would print it.
 * @param cols terminal width (wide by default so nothing wraps)
 */
export async function renderTerminal(text: string, cols = 400): Promise<string> {
  if (!/[\r\x1b\x08\x07]/.test(text)) return text; // nothing a terminal would do differently
  const lineCount = text.split('\n').length;
  // xterm keeps every row of its scrollback (~5 KB a row at 400 columns): a flood of lines would
  // take gigabytes. Past these sizes lines are rendered one by one (renderLines).
  if (lineCount > XTERM_MAX_LINES || text.length > XTERM_MAX_CHARS) return renderLines(text);
  const rows = 50;
  const term = new Terminal({ cols, rows, scrollback: lineCount + 100, convertEol: true, allowProposedApi: true });
  try {
    // Counts past the screen's size (ESC[2147483647S scrolls two billion lines, one at a time) are
    // lowered to it first: xterm's work per byte of input stays bounded (core/escapes.ts).
    const safe = clampEscapes(text, { rows, cols }).text;
    await new Promise<void>((resolve) => term.write(safe, resolve));
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++) {
      const line = buf.getLine(i);
      if (!line) continue;
      const s = line.translateToString(true);
      if (line.isWrapped && lines.length) lines[lines.length - 1] += s;
      else lines.push(s);
    }
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  } finally {
    term.dispose();
  }
}

/** Outputs longer than this (lines or characters) skip xterm for the line-by-line renderer. */
export const XTERM_MAX_LINES = 20_000;
export const XTERM_MAX_CHARS = 2 * 1024 * 1024;

const ESCAPE = /\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]/g;

/**
 * A line-by-line terminal rendering for large outputs, linear in the text: escape sequences
 * dropped, a carriage return writes the rest of the line over its start (as a progress bar
 * repaints), a backspace removes the character before it, a bell is dropped. Cursor movement
 * between lines is not emulated (xterm does that for outputs under the XTERM_MAX_* sizes).
 */
export function renderLines(text: string): string {
  const out: string[] = [];
  for (const raw of text.replace(ESCAPE, '').replace(/\x07/g, '').split('\n')) {
    let line = raw;
    if (line.includes('\r')) {
      // Each segment writes over the start of the ones before: a character shows from the last
      // segment long enough to reach it. Walked from the last segment back, so the work is linear
      // (writing each segment over a copy of the line was quadratic: 1 MB then "\ra" × 300,000).
      const segs = line.split('\r');
      const parts: string[] = [];
      let covered = 0;
      for (let k = segs.length - 1; k >= 0; k--) {
        if (segs[k].length > covered) {
          parts.push(segs[k].slice(covered));
          covered = segs[k].length;
        }
      }
      line = parts.join('');
    }
    if (line.includes('\b')) {
      const chars: string[] = [];
      for (const ch of line) {
        if (ch === '\b') chars.pop();
        else chars.push(ch);
      }
      line = chars.join('');
    }
    out.push(line);
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/** Cuts `text` as the harness did: whole up to `limit`, else `head` chars + a marker + `tail` chars. */
export function truncateLike(text: string, p: TruncationPolicy): string {
  if (p.kind === 'none' || text.length <= p.limit) return text;
  return text.slice(0, p.head) + (p.tail > 0 ? '\n[…]\n' + text.slice(text.length - p.tail) : '');
}

/** Which rules changed the text, for "why equal" hints. */
export interface Normalized {
  text: string;
  fired: string[];
}

/** A shell prompt as the whole last line (tested on that line only: a regex over the whole text backtracks quadratically on long lines). */
const TRAILING_PROMPT = /^[\w.-]+@[^\s:]+:[^\n]*[#$]\s*$/;
/** A prompt the text starts with: recordings put the prompt a command was typed at in this step or the one before. */
const LEADING_PROMPT = /^[\w.-]+@[^\s:]+:\S*[#$] ?/;

/**
 * Full pipeline for one output: render, rules, whitespace, truncation.
 * @param rules the rules to apply (DEFAULT_RULES plus the user's); bad regexes are skipped
 */
export async function normalizeOutput(raw: string, o: { rules?: readonly NormalizationRule[]; truncation?: TruncationPolicy; cols?: number } = {}): Promise<Normalized> {
  let text = await renderTerminal(raw.replace(/\r\n/g, '\n'), o.cols);
  const fired: string[] = [];
  for (const { rule, re } of compileRules(o.rules ?? DEFAULT_RULES).compiled) {
    const next = text.replace(re, rule.replacement);
    if (next !== text) fired.push(rule.name);
    text = next;
  }
  text = text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
  const lastBreak = text.lastIndexOf('\n');
  const lastLine = text.slice(lastBreak + 1);
  if (lastLine.length <= 4096 && TRAILING_PROMPT.test(lastLine)) {
    fired.push('trailing-prompt');
    text = text.slice(0, Math.max(0, lastBreak)).replace(/\n+$/, '');
  }
  const noLead = text.replace(LEADING_PROMPT, '');
  if (noLead !== text) {
    fired.push('leading-prompt');
    text = noLead;
  }
  if (o.truncation) text = truncateLike(text, o.truncation);
  return { text, fired };
}
