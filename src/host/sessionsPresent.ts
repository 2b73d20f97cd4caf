/**
 * Pure presentation of the Sessions view (no vscode import; unit-tested in plain mocha): a session
 * row's label, description and tooltip text.
 */
import { sessionTitle } from '../core/sessions/list';
import { compactCount, localTime } from '../core/sessions/text';
import type { SessionEntry, SessionFormat } from '../core/sessions/types';
import { fileSizeText } from './fileSize';

/** The agent's name as the tooltip shows it. */
export const AGENT_NAMES: Record<SessionFormat, string> = { 'claude-code': 'Claude Code', 'codex-cli': 'Codex CLI' };

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The row's label: the session's title, or a placeholder when the file records no request. */
export function sessionLabel(e: Pick<SessionEntry, 'head' | 'counts'>): string {
  return sessionTitle(e).title ?? '(no request recorded)';
}

/**
 * The row's description: `<start> · <n> turns · <n> tool calls · <n> failed · <n> tokens`
 * (failed only when some failed, tokens only when recorded); `<start> · counting…` until counted,
 * `<start> · <size> (not counted)` for files over the counting limit.
 */
export function sessionDescription(e: Pick<SessionEntry, 'head' | 'counts' | 'size'>, state: 'pending' | 'counted' | 'skipped' | 'error' = e.counts ? 'counted' : 'pending'): string {
  const start = localTime(e.head.startedAt);
  const c = e.counts;
  if (!c) {
    if (state === 'skipped') return `${start} · ${(e.size / 1024 / 1024).toFixed(0)} MB (not counted)`;
    if (state === 'error') return `${start} · could not be read`;
    return `${start} · counting…`;
  }
  const parts = [start, plural(c.turns, 'turn'), plural(c.toolCalls, 'tool call')];
  if (c.failedCommands > 0) parts.push(`${c.failedCommands} failed`);
  if (c.tokens) parts.push(`${compactCount(c.tokens.total)} tokens`);
  return parts.join(' · ');
}

/** The row's tooltip as Markdown-free lines (the view wraps them in a MarkdownString as plain text). */
export function sessionTooltipLines(e: SessionEntry): string[] {
  const h = e.head;
  const c = e.counts;
  const t = sessionTitle(e);
  const lines = [
    t.title ?? '(no request recorded)',
    '',
    `${AGENT_NAMES[h.format]}${h.cliVersion ? ` ${h.cliVersion}` : ''}${h.origin ? ` (${h.origin})` : ''}`,
    `started ${localTime(h.startedAt)}${c?.lastActivityAt ? `, last record ${localTime(c.lastActivityAt)}` : ''}`,
    `cwd ${h.cwd ?? '—'}${h.gitBranch ? ` on ${h.gitBranch}` : ''}`,
  ];
  if (c) {
    lines.push(`${plural(c.turns, 'turn')}, ${plural(c.toolCalls, 'tool call')}, ${c.failedCommands} failed`);
    if (c.tokens) lines.push(`tokens: ${c.tokens.input} in (${c.tokens.cached} cached), ${c.tokens.output} out`);
    if (c.badLines) lines.push(`${plural(c.badLines, 'line')} that are not JSON records`);
  }
  lines.push(`${e.path} (${fileSizeText(e.size)})`);
  if (t.from === 'summary' || t.from === 'custom-title') lines.push(`title from the session's ${t.from === 'summary' ? 'summary' : 'custom title'} record`);
  return lines;
}
