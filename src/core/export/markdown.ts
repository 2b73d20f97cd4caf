/**
 * A rollout as a Markdown transcript, for issues and pull requests: a header (task, agent, model,
 * outcome, source), then one section per step — role, tokens, time, exit codes, the step's score
 * and label when given — with its message, its reasoning folded, each command in a fenced block, and
 * outputs in fenced blocks, folded (`<details>`) when long.
 *
 * Rollout text is untrusted and goes out as text: prose has `&`, `<` and `>` escaped (no HTML from
 * the rollout reaches a renderer), code and outputs go in fences longer than any backtick run inside
 * them, ANSI escapes are removed. Redaction (redact.ts) runs over the finished document. This module
 * never imports `vscode`.
 */
import type { Rollout, Step } from '../model';
import { fileTitle } from '../naming';

/** What a transcript shows beside the rollout. */
export interface MarkdownOptions {
  /** Steps to export: 0-based, `to` exclusive (default: all). */
  from?: number;
  to?: number;
  /** Per-step score (0–1) by step index, when scored. */
  scores?: ReadonlyMap<number, number>;
  /** Per-step label (+1 / 0 / −1) by step index, when labelled. */
  labels?: ReadonlyMap<number, 1 | 0 | -1>;
  /** Outputs longer than this many lines are folded (default 20). */
  foldLines?: number;
  /** Longest text kept of one output / message (characters; default 20,000: the rest is cut with a note). */
  maxChars?: number;
  /** The file's name as the reader should see it (default: the rollout's source path). */
  sourceName?: string;
}

const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Text with ANSI escape sequences and other control characters removed. */
export function plainText(s: string): string {
  return s.replace(ANSI, '').replace(CONTROL, '');
}

/** Prose escaped for Markdown: no HTML tags or entities from the rollout. */
function prose(s: string): string {
  return plainText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A fenced block of `s` (fence longer than any backtick run in it), with an info string. */
export function fence(s: string, info = ''): string {
  const longest = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}${info}\n${s.replace(/\n$/, '')}\n${f}`;
}

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}\n… (${s.length - max} more characters not exported)` : s;
}

function lines(s: string): number {
  let n = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** `<details>` around `body` with a plain summary (already escaped). */
function folded(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

function heading(step: Step, o: MarkdownOptions): string {
  const parts = [`#${step.index + 1}`, step.role];
  if (step.event) parts.push(prose(step.event.label));
  const t = step.tokens;
  if (t && (t.prompt !== null || t.completion !== null)) parts.push(`${t.prompt ?? '?'} → ${t.completion ?? '?'} tok`);
  if (step.durationSec !== null) parts.push(`${step.durationSec < 10 ? step.durationSec.toFixed(1) : Math.round(step.durationSec)} s`);
  if (step.costUsd !== null) parts.push(`$${step.costUsd.toFixed(4)}`);
  const codes = step.observations.map((x) => x.exitCode).filter((c): c is number => c !== null);
  if (codes.length) parts.push(`exit ${codes.join(', ')}`);
  const score = o.scores?.get(step.index);
  if (score !== undefined) parts.push(`score ${score.toFixed(2)}`);
  const label = o.labels?.get(step.index);
  if (label !== undefined) parts.push(`label ${label > 0 ? '+1 good' : label < 0 ? '−1 bad' : '0 neutral'}`);
  return `### ${parts.join(' · ')}`;
}

function stepMarkdown(step: Step, o: Required<Pick<MarkdownOptions, 'foldLines' | 'maxChars'>> & MarkdownOptions): string {
  const out: string[] = [heading(step, o)];
  if (step.message.trim()) out.push(prose(cut(step.message.trim(), o.maxChars)));
  if (step.reasoning?.trim()) out.push(folded('Reasoning', prose(cut(step.reasoning.trim(), o.maxChars))));
  for (const a of step.actions) {
    if (a.command !== null && (a.kind === 'shell' || a.kind === 'keystrokes')) {
      out.push(`**${a.kind === 'shell' ? 'Command' : 'Keys'}**${a.tool ? ` (${prose(a.tool)})` : ''}\n\n${fence(plainText(cut(a.command, o.maxChars)), a.kind === 'shell' ? 'bash' : '')}`);
    } else {
      const name = a.tool ?? a.kind;
      const args = a.arguments === undefined ? '' : typeof a.arguments === 'string' ? a.arguments : JSON.stringify(a.arguments, null, 2);
      const what = a.kind === 'file_edit' ? `Edit${a.path ? ` \`${a.path.replace(/`/g, '')}\`` : ''}` : a.kind === 'finish' ? 'Finish' : 'Tool';
      out.push(`**${what}**: ${prose(name)}${args ? `\n\n${fence(plainText(cut(args, o.maxChars)), a.arguments !== undefined && typeof a.arguments !== 'string' ? 'json' : '')}` : ''}`);
    }
  }
  for (const obs of step.observations) {
    const text = plainText(cut(obs.output, o.maxChars));
    if (!text.trim()) continue;
    const tags = [obs.exitCode !== null ? `exit ${obs.exitCode}` : null, obs.isError ? 'error' : null, obs.truncated ? 'cut by the source' : null].filter(Boolean).join(', ');
    const title = `Output${tags ? ` (${tags})` : ''}`;
    const n = lines(text);
    out.push(n > o.foldLines ? folded(`${title}, ${n} lines`, fence(text)) : `**${title}**\n\n${fence(text)}`);
  }
  return out.join('\n\n');
}

/**
 * The Markdown transcript of `rollout` (see the module docs). Steps outside `[from, to)` are left out
 * and the header says which were exported.
 */
export function rolloutMarkdown(rollout: Rollout, options: MarkdownOptions = {}): string {
  const o = { foldLines: 20, maxChars: 20_000, ...options };
  const n = rollout.steps.length;
  const from = Math.max(0, Math.min(n, o.from ?? 0));
  const to = Math.max(from, Math.min(n, o.to ?? n));
  const title = rollout.task.id ?? fileTitle(rollout.source.path, null);
  const head: string[] = [`# ${prose(title)}`, ''];
  const row = (k: string, v: string | null) => v !== null && v !== '' && head.push(`- **${k}**: ${v}`);
  row('Rollout', prose(rollout.id));
  row('Agent', prose([rollout.agent.name, rollout.agent.version].filter(Boolean).join(' ')));
  row('Model', rollout.agent.model ? prose(rollout.agent.model) : null);
  const out = rollout.outcome;
  const outcome = [out.reward !== null ? `reward ${out.reward}` : null, out.resolved === null ? null : out.resolved ? 'resolved' : 'not resolved', out.status ? prose(out.status) : null].filter(Boolean).join(', ');
  row('Outcome', outcome || null);
  row('Source', `${prose(o.sourceName ?? rollout.source.path)} (${rollout.format})`);
  row('Steps', from === 0 && to === n ? String(n) : `#${from + 1}–#${to} of ${n}`);
  if (rollout.task.instruction?.trim()) head.push('', folded('Task', prose(cut(rollout.task.instruction.trim(), o.maxChars))));
  const body = rollout.steps.slice(from, to).map((s) => stepMarkdown(s, o));
  return `${head.join('\n')}\n\n${body.join('\n\n---\n\n')}\n`;
}

/** One step as Markdown (its section of the transcript), for *Copy Step*. */
export function stepMarkdownOf(step: Step, options: MarkdownOptions = {}): string {
  return `${stepMarkdown(step, { foldLines: 20, maxChars: 20_000, ...options })}\n`;
}
