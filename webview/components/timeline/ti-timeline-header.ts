/**
 * `<ti-timeline-header>`: the rollout's header: title, outcome and reward, the meta row (steps,
 * agent, model, format, duration, tokens, cost, image, cwd, reference labels), the rollout's links
 * (a branch's parent link with *Compare with parent*), the file's issues, the rollout picker of a
 * file of several rollouts and the task instruction.
 * Renders into `<ti-app>`'s shadow tree (lightElement.ts).
 */
import { css, html, nothing, svg, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { Rollout } from '../../../src/shared/model';
import { outcomeText, resolvedWord } from '../../../src/shared/outcome';
import { stepTotals } from '../../../src/shared/pagedSteps';
import { PICKER_MAX, pickerPositions, type RolloutMessage, type StepTotals } from '../../../src/shared/protocol';
import { compactCount, formatUsd, rolloutTotals, sparkRuns, stepSeries } from '../../../src/shared/totals';
import { formatBytes, formatCost, formatCount, formatDuration, formatReward } from '../../format';
import { openLink, openLocation, selectRollout } from '../../timeline/actions';
import { rolloutCount } from '../../timeline/state';
import { linkText } from '../step-card/stepText';
import { LightElement } from './lightElement';
import { branchParentOf } from '../../../src/shared/branchProtocol';
import { branch } from '../../timeline/actions';

/** The "derived" mark beside a value the loader derived rather than read (`Rollout.derived`). */
function derivedMark(r: Rollout, field: string): TemplateResult | typeof nothing {
  return r.derived?.includes(field)
    ? html`<span class="derived" title=${`derived by the loader, not recorded in the file (${field})`}>derived</span>`
    : nothing;
}

/**
 * Token, cost and duration totals of the rollout's steps. A paged rollout's placeholders carry none:
 * its column's totals stand for the steps below its count, summed with those of the steps a live
 * update brought after them.
 */
function totals(m: RolloutMessage): StepTotals {
  const paged = m.sliced?.paged;
  if (!paged) return stepTotals(m.rollout.steps).totals;
  const tail = stepTotals(m.rollout.steps.slice(paged.count));
  const a = paged.totals;
  const b = tail.totals;
  return {
    prompt: a.prompt + b.prompt,
    completion: a.completion + b.completion,
    cost: a.cost + b.cost,
    hasTokens: a.hasTokens || b.hasTokens,
    hasCost: a.hasCost || b.hasCost,
    durationSec: a.durationSec !== null && b.durationSec !== null ? a.durationSec + b.durationSec : (a.durationSec ?? b.durationSec),
  };
}

/**
 * The summaries the rollout picker offers: all, or for a large dump the first, the last and those
 * around `current`. Summaries the host already cut to that window (`rolloutCount` set) come back as they are.
 */
export function pickerWindow<T extends { index: number }>(summaries: readonly T[], current: number): readonly T[] {
  if (summaries.length <= PICKER_MAX) return summaries;
  return pickerPositions(summaries.length, current).map((i) => summaries[i]);
}

/** Reference labels of a rollout's steps, counted. */
interface RefCounts {
  good: number;
  neutral: number;
  bad: number;
  firstError: number | null;
  sources: string[];
}

function refCounts(r: Rollout): RefCounts | null {
  const c: RefCounts = { good: 0, neutral: 0, bad: 0, firstError: null, sources: [] };
  let any = false;
  for (const s of r.steps) {
    const l = s.referenceLabel;
    if (!l) continue;
    any = true;
    if (l.value === 1) c.good++;
    else if (l.value === -1) c.bad++;
    else c.neutral++;
    if (l.firstError && c.firstError === null) c.firstError = s.index;
    if (!c.sources.includes(l.source)) c.sources.push(l.source);
  }
  return any ? c : null;
}

export const headerStyles = css`
    .context-chart svg.spark {
      vertical-align: middle;
      overflow: visible;
    }
    .spark polyline {
      fill: none;
      stroke-width: 1.5;
      stroke-linejoin: round;
    }
    .spark polyline.ctx {
      stroke: var(--vscode-charts-blue, #3794ff);
    }
    .spark polyline.cost {
      stroke: var(--vscode-charts-orange, #d18616);
      stroke-dasharray: 2 2;
    }
    .failed-commands.some .value {
      color: var(--vscode-errorForeground, #f14c4c);
    }
    header {
      margin-bottom: 12px;
      padding-bottom: 10px;
      border-bottom: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, rgba(128, 128, 128, 0.25)));
    }
    .title-row {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 8px 12px;
    }
    .task-id {
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
      font-family: var(--vscode-editor-font-family, monospace);
    }
    .derived {
      margin-left: 4px;
      font-size: 9px;
      font-weight: 400;
      font-style: italic;
      text-transform: uppercase;
      letter-spacing: 0.04em;
      opacity: 0.75;
    }
    .rollout-links {
      display: flex;
      flex-wrap: wrap;
      gap: 4px 12px;
      font-size: 12px;
      margin-top: 4px;
    }
    .rollout-links button.link {
      font: inherit;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0;
      cursor: pointer;
    }
    .rollout-links button.link:hover {
      text-decoration: underline;
    }
    .file-issues {
      margin-top: 4px;
      font-size: 12px;
      color: var(--vscode-editorWarning-foreground, #cca700);
    }
    .file-issues.has-errors {
      color: var(--vscode-errorForeground, #f48771);
    }
    .file-issues summary {
      cursor: pointer;
    }
    .file-issues ul {
      margin: 4px 0 0 0;
      padding-left: 18px;
      color: var(--vscode-foreground);
    }
    .file-issues li.warning::marker {
      color: var(--vscode-editorWarning-foreground, #cca700);
    }
    .file-issues button.link {
      font: inherit;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0;
      cursor: pointer;
    }
    .rollout-links .missing {
      color: var(--vscode-descriptionForeground);
      font-style: italic;
    }
    h1 {
      margin: 0;
      font-size: 16px;
      font-weight: 600;
      overflow-wrap: anywhere;
    }
    .outcome {
      display: inline-flex;
      gap: 6px;
      align-items: center;
    }
    .pill {
      display: inline-block;
      font-size: 11px;
      font-weight: 600;
      line-height: 18px;
      padding: 0 8px;
      border-radius: 9px;
      border: 1px solid currentColor;
      font-variant-numeric: tabular-nums;
    }
    .pill.resolved {
      color: var(--vscode-testing-iconPassed, #73c991);
    }
    .pill.failed {
      color: var(--vscode-errorForeground, #f48771);
    }
    .pill.neutral {
      color: var(--vscode-descriptionForeground);
    }
    .meta-row {
      display: flex;
      flex-wrap: wrap;
      gap: 2px 14px;
      margin-top: 6px;
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
    }
    .meta-row .value {
      font-weight: 600;
      color: var(--vscode-foreground);
    }
    /* A 2.5 KB agent or model name (untrusted input) is cut with an ellipsis, the whole text in its title:
       it never widens the header or the cards. */
    .meta-row > span,
    .title-row .task-id,
    .title-row .outcome-status {
      max-width: min(48em, 100%);
      min-width: 0;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    #step-count {
      font-weight: 600;
      color: var(--vscode-foreground);
    }
    .instruction {
      margin-top: 8px;
      font-size: 12px;
    }
    .instruction summary {
      cursor: pointer;
      color: var(--vscode-descriptionForeground);
      user-select: none;
    }
    .instruction .text {
      margin-top: 4px;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      max-height: 40vh;
      overflow: auto;
      padding: 6px 8px;
      background: var(--vscode-textBlockQuote-background, rgba(128, 128, 128, 0.1));
      border-left: 3px solid var(--vscode-textBlockQuote-border, rgba(128, 128, 128, 0.4));
    }
    .picker {
      display: flex;
      align-items: center;
      gap: 8px;
      margin-top: 8px;
      font-size: 12px;
    }
    .picker vscode-single-select {
      min-width: 320px;
      max-width: 100%;
    }
    .ref-summary {
      display: inline-flex;
      align-items: center;
      gap: 6px;
    }
    .ref-summary .ref-tag {
      font-size: 9px;
      font-weight: 700;
      letter-spacing: 0.06em;
      text-transform: uppercase;
      padding: 0 4px;
      line-height: 15px;
      border-radius: 2px;
      color: var(--vscode-badge-foreground, #fff);
      background: var(--vscode-badge-background, #616161);
    }
    .ref-summary .good {
      color: var(--vscode-testing-iconPassed, #73c991);
    }
    .ref-summary .bad {
      color: var(--vscode-errorForeground, #f48771);
    }
`;

@customElement('ti-timeline-header')
export class TiTimelineHeader extends LightElement {
  @property({ attribute: false }) msg!: RolloutMessage;

  private onPickRollout(e: Event): void {
    const value = Number((e.target as HTMLElement & { value: string }).value);
    if (!Number.isInteger(value) || value === this.msg.rolloutIndex) return;
    selectRollout(value);
  }

  override render(): TemplateResult {
    const m = this.msg;
    const r = m.rollout;
    const o = r.outcome;
    const t = totals(m);
    const agent = [r.agent.name, r.agent.version].filter(Boolean).join(' ');
    // A file with several rollouts is named by the rollout's task; a single rollout by its file's label.
    const title = rolloutCount(m) > 1 ? (r.task.id ?? `${m.file.label} #${m.rolloutIndex + 1}`) : m.file.label;
    const rewardTitle = [o.source ? `from ${o.source}` : '', o.rewards ? Object.entries(o.rewards).map(([k, v]) => `${k}: ${v}`).join(', ') : '']
      .filter(Boolean)
      .join(' — ');
    return html`<header>
      <div class="title-row">
        <h1 class="title" title=${`${m.file.path}\nrollout ${r.id}`}>${title}</h1>
        ${r.task.id && r.task.id !== title ? html`<span class="task-id" title=${`task id ${r.task.id}`}>${r.task.id}${derivedMark(r, 'task.id')}</span>` : nothing}
        <span class="outcome">
          ${o.resolved !== null
            ? html`<span class="pill ${o.resolved ? 'resolved' : 'failed'} outcome-badge">${resolvedWord(o.resolved)}${derivedMark(r, 'outcome.resolved')}</span>`
            : nothing}
          ${o.reward !== null ? html`<span class="pill neutral reward" title=${rewardTitle}>reward ${formatReward(o.reward)}${derivedMark(r, 'outcome.reward')}</span>` : nothing}
          ${o.status && outcomeText(o) !== resolvedWord(o.resolved) ? html`<span class="pill neutral outcome-status" title=${`exit status ${o.status}`}>${o.status}</span>` : nothing}
        </span>
      </div>
      <div class="meta-row">
        <span id="step-count">${r.steps.length} ${r.steps.length === 1 ? 'step' : 'steps'}</span>
        ${agent ? html`<span class="agent" title=${agent}>agent <span class="value">${agent}</span></span>` : nothing}
        ${r.agent.model ? html`<span class="model" title=${r.agent.model}>model <span class="value">${r.agent.model}</span></span>` : nothing}
        <span class="format" title="file format">format <span class="value">${m.file.formatLabel}${m.file.schemaVersion ? ` · ${m.file.schemaVersion}` : ''}</span></span>
        ${t.durationSec !== null ? html`<span class="duration" title="wall-clock time of the rollout (first to last step time, else the sum of the step durations)">duration <span class="value">${formatDuration(t.durationSec)}</span></span>` : nothing}
        ${t.hasTokens ? html`<span class="tokens" title="prompt → completion tokens, all steps">tokens <span class="value">${formatCount(t.prompt)} → ${formatCount(t.completion)}</span></span>` : nothing}
        ${t.hasCost ? html`<span class="cost" title="cost, all steps">cost <span class="value">${formatCost(t.cost)}</span></span>` : nothing}
        ${this.renderStepTotals(r)}
        ${r.environment.image ? html`<span class="image" title=${`environment image ${r.environment.image}`}>image <span class="value">${r.environment.image}</span></span>` : nothing}
        ${r.environment.workdir ? html`<span class="workdir" title=${`working directory ${r.environment.workdir}`}>cwd <span class="value">${r.environment.workdir}</span>${derivedMark(r, 'environment.workdir')}</span>` : nothing}
        ${this.renderRefSummary(r)}
        ${m.sliced
          ? html`<span class="sliced" title=${`The rollout is ${formatBytes(m.sliced.fullChars)} of text: each step's full content is fetched when its card comes into view (${formatBytes(m.sliced.headChars)} sent up front).`}>large rollout · steps load as you scroll</span>`
          : nothing}
      </div>
      ${r.links?.length
        ? html`<div class="rollout-links">
            ${r.links.map((l, i) =>
              l.missing
                ? html`<span class="missing" title=${l.missing}>${linkText(l)} (${l.missing})</span>`
                : html`<button class="link" data-relation=${l.relation} title=${l.path ?? 'in this file'} @click=${() => openLink(m.rolloutIndex, null, i)}>${linkText(l)}</button>${l === branchParentOf(r)
                    ? html` <button class="link compare-parent" title="Open the aligned compare of this rollout and its parent, at the step they part" @click=${() => branch('compareParent', m.rolloutIndex)}>Compare with parent</button>`
                    : nothing}`,
            )}
          </div>`
        : nothing}
      ${this.renderFileIssues(m)}
      ${rolloutCount(m) > 1 ? this.renderPicker(m) : nothing}
      ${r.task.instruction
        ? html`<details class="instruction">
            <summary>Task instruction</summary>
            <div class="text">${r.task.instruction}</div>
          </details>`
        : nothing}
    </header>`;
  }

  /** The file's located issues that did not stop it loading: "⚠ 2 warnings", each opening its line. */
  private renderFileIssues(m: RolloutMessage): TemplateResult | typeof nothing {
    const issues = m.fileIssues ?? [];
    if (!issues.length) return nothing;
    const total = m.fileIssueCount ?? issues.length;
    const errors = issues.filter((i) => i.severity === 'error').length;
    const words = [errors ? `${errors} left out` : '', issues.length - errors ? `${issues.length - errors} ${issues.length - errors === 1 ? 'warning' : 'warnings'}` : '']
      .filter(Boolean)
      .join(', ');
    return html`<details class="file-issues ${errors ? 'has-errors' : ''}">
      <summary>⚠ ${words}${total > issues.length ? ` (first ${issues.length} of ${total})` : ''} in this file</summary>
      <ul>
        ${issues.map(
          (i) => html`<li class=${i.severity}>
            <button class="link" title="Open this line of the file" @click=${() => openLocation(i.file, i.line, i.column)}>${i.line !== null ? `line ${i.line}` : 'file'}</button>
            expected ${i.expected}, found ${i.found}
          </li>`,
        )}
      </ul>
    </details>`;
  }

  private renderPicker(m: RolloutMessage): TemplateResult {
    return html`<div class="picker">
      <span>Rollout</span>
      <vscode-single-select class="rollout-picker" combobox .value=${String(m.rolloutIndex)} @change=${this.onPickRollout}>
        ${pickerWindow(m.summaries, m.rolloutIndex).map(
          (s) => html`<vscode-option value=${String(s.index)} ?selected=${s.index === m.rolloutIndex}
            >${s.index + 1}. ${s.taskId ?? s.id} — ${s.steps} steps${s.reward !== null ? ` · reward ${formatReward(s.reward)}` : ''}${s.resolved === true
              ? ' · resolved'
              : s.resolved === false
                ? ' · failed'
                : ''}</vscode-option
          >`,
        )}
      </vscode-single-select>
      <span>of ${rolloutCount(m)}</span>
    </div>`;
  }

  /**
   * Time per step, failed commands, and a sparkline of the context (prompt tokens) and the cost of
   * each step: drawn from the numbers alone (SVG attributes Lit sets; no rollout text in it).
   */
  private renderStepTotals(r: Rollout): TemplateResult {
    const t = rolloutTotals(r.steps);
    const series = stepSeries(r.steps);
    const W = 120;
    const H = 18;
    const ctx = sparkRuns(series.context, W, H);
    const cost = sparkRuns(series.cost, W, H);
    const knownCtx = series.context.filter((v) => v !== null).length;
    const first = series.context.find((v) => v !== null) ?? null;
    const chartTitle = [
      knownCtx ? `context (prompt tokens) per step: ${compactCount(first!)} at the first step with tokens → ${compactCount(t.peakContext!)} at its peak` : '',
      cost.length ? `cost per step (dashed): ${formatUsd(t.costUsd!)} in all` : '',
    ]
      .filter(Boolean)
      .join('\n');
    return html`${t.timedSteps
        ? html`<span class="step-time" title=${`mean recorded duration of ${t.timedSteps} ${t.timedSteps === 1 ? 'step' : 'steps'}`}>per step <span class="value">${formatDuration(t.durationSec! / t.timedSteps)}</span></span>`
        : nothing}
      ${t.commands
        ? html`<span class="failed-commands ${t.failedCommands ? 'some' : ''}" title=${`commands whose exit code was not 0 or that the tool marked as an error, of ${t.commands} command results`}>failed commands <span class="value">${t.failedCommands} of ${t.commands}</span></span>`
        : nothing}
      ${knownCtx > 1 || cost.length
        ? html`<span class="context-chart" title=${chartTitle}
            >context <svg class="spark" viewBox=${`0 0 ${W} ${H}`} width=${W} height=${H} role="img" aria-label=${chartTitle}>${ctx.map((p) => svg`<polyline class="ctx" points=${p}></polyline>`)}${cost.map((p) => svg`<polyline class="cost" points=${p}></polyline>`)}</svg
            >${t.peakContext !== null ? html`<span class="value">peak ${compactCount(t.peakContext)}</span>` : nothing}</span
          >`
        : nothing}`;
  }

  private renderRefSummary(r: Rollout): TemplateResult | typeof nothing {
    const c = refCounts(r);
    if (!c) return nothing;
    const parts: TemplateResult[] = [];
    if (c.good) parts.push(html`<span class="good">${c.good} good</span>`);
    if (c.neutral) parts.push(html`<span class="neutral">${c.neutral} neutral</span>`);
    if (c.bad) parts.push(html`<span class="bad">${c.bad} bad</span>`);
    const title = `Step labels that came with the data (${c.sources.join(', ')}): +1 good, 0 neutral, −1 bad`;
    return html`<span class="ref-summary" title=${title}>
      <span class="ref-tag">ref</span>
      <span>reference labels: ${parts.map((p, i) => html`${i ? ', ' : ''}${p}`)}</span>
      ${c.firstError !== null ? html`<span>· first error at <span class="value">#${c.firstError + 1}</span></span>` : nothing}
    </span>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-timeline-header': TiTimelineHeader;
  }
}
