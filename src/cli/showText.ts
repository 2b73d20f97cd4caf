/**
 * The text of `show` for one rollout: its head (title, format, id, task, agent, step count, outcome)
 * and one line per step. Shared by the full-load path (main.ts) and the streamed one (showStream.ts),
 * so both print the same lines.
 */
import type { Rollout, Step } from '../core/model';
import { stepNumber } from '../core/naming';
import { outcomeText } from '../shared/outcome';
import { printable } from './common';

function actionSummary(step: Step): string {
  return step.actions
    .map((a) => (a.command !== null ? a.command.replace(/\s+$/, '') : a.tool ?? a.kind))
    .join(' ; ')
    .replace(/\n/g, '⏎');
}

/**
 * The head lines of a rollout (each ending in a line break), its steps not read: `counted` steps
 * counted (countedSteps), `copied` copied from an earlier context.
 */
export function rolloutHeadText(r: Rollout, title: string, counted: number, copied: number): string {
  const o = r.outcome;
  // The same outcome words as the Rollouts view and the timeline header (src/shared/outcome.ts).
  const outcome = [o.reward !== null ? `reward ${o.reward}` : null, outcomeText(o, o.reward !== null ? '' : 'outcome unknown')].filter(Boolean).join(', ');
  return (
    printable(`${title}  [${r.format}${r.schemaVersion ? ` ${r.schemaVersion}` : ''}]  id ${r.id}`) +
    '\n' +
    printable(`  task: ${r.task.id ?? '—'}   agent: ${[r.agent.name, r.agent.model].filter(Boolean).join(' / ') || '—'}`) +
    '\n' +
    `  ${counted} steps${copied ? ` (+${copied} copied from an earlier context, not counted)` : ''}, ${outcome}\n`
  );
}

/** The line of one step (ending in a line break): number, role, actions or message (100 characters), exit codes. */
export function stepText(s: Step): string {
  const exits = s.observations.map((ob) => ob.exitCode).filter((c) => c !== null);
  const exit = exits.length ? ` exit ${exits.join(',')}` : '';
  const act = actionSummary(s);
  const text = act || s.message.replace(/\s+/g, ' ');
  const copiedMark = s.copiedContext ? ' (copied context)' : '';
  return printable(`  ${stepNumber(s.index).padStart(5)} ${s.role.padEnd(11)} ${text.slice(0, 100)}${text.length > 100 ? '…' : ''}${exit}${copiedMark}`) + '\n';
}
