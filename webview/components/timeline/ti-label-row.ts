/**
 * `<ti-label-row>`: the labelling progress in the dock ("YOU alice · 12/40 labelled · 3 bad · first
 * error #7 · verdict"), the label strip (one cell per step, coloured by the user's label; a click
 * selects), and the journal's write errors and warnings. Fires `select-step` ({ index }) to select
 * a step. Renders into `<ti-app>`'s shadow tree (lightElement.ts).
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { Rollout, Step } from '../../../src/shared/model';
import type { LabelsMessage } from '../../../src/shared/protocol';
import { labelProgress, labelTitle, valueText, type LabelIndex } from '../../labels';
import { stripRanges } from '../../scores';
import { labelableOf } from '../../timeline/state';
import { LightElement } from './lightElement';

export const labelRowStyles = css`
    .label-row {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 2px 8px;
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
      font-variant-numeric: tabular-nums;
    }
    .label-row .you-tag {
      font-size: 9px;
      font-weight: 700;
      letter-spacing: 0.06em;
      text-transform: uppercase;
      padding: 0 4px;
      line-height: 15px;
      border-radius: 3px;
      color: var(--vscode-editor-background, #1e1e1e);
      background: var(--vscode-textLink-foreground, #3794ff);
    }
    .label-row .strong {
      font-weight: 600;
      color: var(--vscode-foreground);
    }
    .label-row .bad {
      color: var(--vscode-errorForeground, #f48771);
    }
    .label-row .good {
      color: var(--vscode-testing-iconPassed, #73c991);
    }
    .label-row .warn {
      color: var(--vscode-editorWarning-foreground, #cca700);
    }
    .label-row .flash {
      color: var(--vscode-foreground);
      font-style: italic;
    }
    .verdict {
      display: inline-block;
      font-size: 10px;
      font-weight: 700;
      line-height: 16px;
      padding: 0 6px;
      border-radius: 3px;
      color: var(--vscode-editor-background, #1e1e1e);
      background: var(--lab-color);
    }
    .verdict.v-good { --lab-color: var(--vscode-testing-iconPassed, #73c991); }
    .verdict.v-neutral { --lab-color: var(--vscode-editorLineNumber-foreground, #858585); }
    .verdict.v-bad { --lab-color: var(--vscode-errorForeground, #f48771); }
    .verdict.v-none {
      color: var(--vscode-descriptionForeground);
      background: none;
      border: 1px dashed var(--vscode-descriptionForeground);
      font-weight: 400;
    }
    /* One cell per step, coloured by the user's label: the rollout at a glance, click to jump. */
    .label-strip {
      display: flex;
      gap: 1px;
      height: 8px;
      margin-top: 6px;
      cursor: pointer;
    }
    .label-strip .cell {
      flex: 1 1 0;
      min-width: 1px;
      max-width: 28px;
      border-radius: 1px;
      background: var(--vscode-widget-border, rgba(128, 128, 128, 0.25));
    }
    .label-strip .cell.good { background: var(--vscode-testing-iconPassed, #73c991); }
    .label-strip .cell.neutral { background: var(--vscode-editorLineNumber-foreground, #858585); }
    .label-strip .cell.bad { background: var(--vscode-errorForeground, #f48771); }
    .label-strip .cell.propagated {
      background: repeating-linear-gradient(135deg, var(--vscode-errorForeground, #f48771) 0 2px, transparent 2px 4px);
    }
    .label-strip .cell.other-role {
      opacity: 0.35;
    }
    .label-strip .cell.sel {
      outline: 1px solid var(--vscode-focusBorder, #007fd4);
      outline-offset: 1px;
    }
    .label-alert {
      margin-top: 8px;
      padding: 6px 10px;
      font-size: 12px;
      border-radius: 3px;
      border: 1px solid var(--vscode-inputValidation-errorBorder, #be1100);
      background: var(--vscode-inputValidation-errorBackground, rgba(190, 17, 0, 0.1));
      overflow-wrap: anywhere;
    }
    .label-alert.warning {
      border-color: var(--vscode-inputValidation-warningBorder, #b89500);
      background: var(--vscode-inputValidation-warningBackground, rgba(184, 149, 0, 0.1));
    }
`;

@customElement('ti-label-row')
export class TiLabelRow extends LightElement {
  @property({ attribute: false }) rollout!: Rollout;
  /** The labels as the host last sent them (null until they come). */
  @property({ attribute: false }) labelsMsg: LabelsMessage | null = null;
  /** Label changes sent and not answered yet. */
  @property({ attribute: false }) sending = 0;
  @property({ attribute: false }) index!: LabelIndex;
  @property({ attribute: false }) selected: number | null = null;
  @property({ attribute: false }) flash: string | null = null;

  private select(index: number): void {
    this.dispatchEvent(new CustomEvent('select-step', { detail: { index }, bubbles: true, composed: true }));
  }

  override render(): TemplateResult {
    const lm = this.labelsMsg;
    const steps = this.rollout.steps;
    if (!lm && !this.sending) {
      return html`<div class="label-row" id="label-progress" data-sending="0"><span class="you-tag">you</span><span>labels loading…</span></div>`;
    }
    const idx = this.index;
    const labelable = labelableOf(this.rollout);
    const p = labelProgress(idx, labelable);
    const which = labelable.length === steps.length ? 'steps' : 'agent steps';
    const v = idx.verdict?.value ?? null;
    const others = new Map<string, number>();
    for (const list of idx.others.values()) for (const o of list) if (o.value !== null) others.set(o.annotator, (others.get(o.annotator) ?? 0) + 1);
    const unsaved = [...idx.mine.values()].filter((l) => l.pending === 'unsaved').length + (idx.verdict?.pending === 'unsaved' ? 1 : 0);
    const verdictTitle = idx.verdict ? labelTitle(idx.verdict, null, true).replace('Your label', 'Your verdict on the rollout') : 'No verdict on the rollout yet (v sets it)';
    return html`<div class="label-row" id="label-progress" data-sending=${String(this.sending)} title=${lm ? `Your labels are kept in ${lm.journal}` : 'Labels are loading…'}>
        <span class="you-tag">you</span>
        <span class="annotator strong">${idx.annotator || '…'}</span>
        <span>·</span>
        <span class="progress" title=${`${p.labelled} of the ${p.total} ${which} have your label (Enter goes to the next one without)`}><span class="strong">${p.labelled}/${p.total}</span> ${which === 'agent steps' ? 'agent steps ' : ''}labelled</span>
        ${p.outside ? html`<span class="outside-labels" title="Only agent steps count towards the progress; these labels are kept and exported all the same">(+${p.outside} ${p.outside === 1 ? 'other step' : 'other steps'}, not counted)</span>` : nothing}
        ${p.bad ? html`<span>·</span><span class="bad">${p.bad} bad</span>` : nothing}
        ${p.propagated ? html`<span title="propagated from the first error">(${p.propagated} propagated)</span>` : nothing}
        ${p.firstError !== null
          ? html`<span>·</span><span class="first-error-summary">first error <a class="strong" href="#" @click=${(e: Event) => {
                e.preventDefault();
                this.select(p.firstError!);
              }}>#${p.firstError + 1}</a></span>`
          : nothing}
        <span>·</span>
         <span class="verdict v-${v === null ? 'none' : valueText(v).word}" title=${verdictTitle}>verdict ${v === null ? '—' : `${valueText(v).sign} ${valueText(v).word}`}</span>
        ${p.stale ? html`<span>·</span><span class="warn" title="steps that changed since they were labelled">${p.stale} stale</span>` : nothing}
        ${unsaved ? html`<span>·</span><span class="warn">${unsaved} unsaved</span>` : nothing}
        ${others.size
          ? html`<span>·</span><span class="others" title="other annotators' labels in the journal">also ${[...others].map(([a, n]) => `${a} (${n})`).join(', ')}</span>`
          : nothing}
        ${this.flash ? html`<span>·</span><span class="flash">${this.flash}</span>` : nothing}
      </div>
      ${steps.length ? this.renderLabelStrip(idx) : nothing}
      ${lm?.error
        ? html`<div class="label-alert error" role="alert">
            Could not write the labels to ${lm.journal}: ${lm.error}. What you labelled is kept in this window (marked “unsaved”) and written with your next change.
          </div>`
        : nothing}
      ${lm?.warnings.length
        ? html`<div class="label-alert warning">${lm.warnings.length === 1 ? 'The label journal has a problem' : `The label journal has ${lm.warnings.length} problems`}: ${lm.warnings.slice(0, 3).join(' · ')}${lm.warnings.length > 3 ? ' …' : ''}</div>`
        : nothing}`;
  }

  private renderLabelStrip(idx: LabelIndex): TemplateResult {
    const labelable = new Set(labelableOf(this.rollout));
    const onClick = (e: MouseEvent): void => {
      const cell = (e.target as HTMLElement).closest?.('.cell') as HTMLElement | null;
      const i = cell ? Number(cell.dataset.index) : NaN;
      if (Number.isInteger(i)) this.select(i);
    };
    const steps = this.rollout.steps;
    return html`<div class="label-strip" role="presentation" @click=${onClick}>
      ${stripRanges(steps.length).map(([from, to]) => {
        if (to - from > 1) return this.renderLabelCell(steps, from, to, idx, labelable);
        const s = steps[from];
        const l = idx.mine.get(s.index);
        const word = l && l.value !== null ? valueText(l.value).word : 'none';
        const title = `#${s.index + 1} ${s.role}${l && l.value !== null ? ` · ${valueText(l.value).sign} ${word}${l.origin === 'propagated' ? ' (propagated)' : ''}` : ' · unlabelled'}`;
        const other = labelable.has(s.index) ? '' : 'other-role';
        return html`<span class="cell ${word} ${other} ${l?.origin === 'propagated' ? 'propagated' : ''} ${s.index === this.selected ? 'sel' : ''}" data-index=${s.index} title=${title}></span>`;
      })}
    </div>`;
  }

  /**
   * A label-strip cell standing for steps `from` … `to - 1` (a long rollout): the worst of their
   * labels (bad, then neutral, then good); a click selects the first step with that label, or the
   * first step of the range.
   */
  private renderLabelCell(steps: readonly Step[], from: number, to: number, idx: LabelIndex, labelable: ReadonlySet<number>): TemplateResult {
    const rank: Record<string, number> = { bad: 3, neutral: 2, good: 1 };
    let word = 'none';
    let at = steps[from].index;
    let propagated = false;
    let labelled = 0;
    let anyLabelable = false;
    for (let i = from; i < to; i++) {
      const s = steps[i];
      if (labelable.has(s.index)) anyLabelable = true;
      const l = idx.mine.get(s.index);
      if (!l || l.value === null) continue;
      labelled++;
      const w = valueText(l.value).word;
      if ((rank[w] ?? 0) > (rank[word] ?? 0)) {
        word = w;
        at = s.index;
        propagated = l.origin === 'propagated';
      }
    }
    const first = steps[from].index;
    const last = steps[to - 1].index;
    const sel = this.selected !== null && this.selected >= first && this.selected <= last;
    const title = `#${first + 1}–#${last + 1} · ${labelled ? `${labelled} labelled${word !== 'none' ? `, worst ${word}` : ''}` : 'unlabelled'}`;
    return html`<span class="cell multi ${word} ${anyLabelable ? '' : 'other-role'} ${propagated ? 'propagated' : ''} ${sel ? 'sel' : ''}" data-index=${at} data-from=${first} data-to=${last} title=${title}></span>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-label-row': TiLabelRow;
  }
}
