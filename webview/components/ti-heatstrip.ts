/**
 * `<ti-heatstrip>`: the step scores of the rollout shown, one cell per step coloured from red
 * (low) to green (high) by the scorer's value — the rollout at a glance; click a cell to select
 * its step. Above MAX_STRIP_CELLS steps a cell stands for a range of steps and shows its lowest
 * score (a click selects that step). Above it a line names the scorer and says where scoring is (scoring…, cached, failed
 * with the reason). Steps the scorer left unscored (non-agent steps) are faint; a step with no
 * score yet is empty. Step scores are a scorer's opinion per step: the tag reads "step scores",
 * never "reward" (the rollout's outcome reward is shown in the header).
 *
 * Emits `select-step` ({ index }) on a click.
 */
import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { Step } from '../../src/shared/model';
import type { ScoresMessage, StepScoreView } from '../../src/shared/scoresProtocol';
import { formatScore, HEAT_CSS, heatBucket, scoreTitle, scoreWord, stripRanges } from '../scores';

@customElement('ti-heatstrip')
export class TiHeatstrip extends LitElement {
  static override styles = [
    HEAT_CSS,
    css`
      :host {
        display: block;
        margin-top: 6px;
        font-size: 11px;
      }
      .line {
        display: flex;
        align-items: center;
        gap: 6px;
        color: var(--vscode-descriptionForeground);
        flex-wrap: wrap;
      }
      .tag {
        font-size: 9px;
        font-weight: 700;
        letter-spacing: 0.06em;
        text-transform: uppercase;
        padding: 0 4px;
        line-height: 15px;
        border-radius: 7px;
        border: 1px solid var(--vscode-charts-purple, #b180d7);
        color: var(--vscode-charts-purple, #b180d7);
      }
      .value {
        color: var(--vscode-foreground);
      }
      .bad {
        color: var(--vscode-errorForeground, #f48771);
      }
      .error {
        color: var(--vscode-errorForeground, #f48771);
        overflow-wrap: anywhere;
      }
      .strip {
        display: flex;
        gap: 1px;
        height: 10px;
        margin-top: 4px;
        cursor: pointer;
      }
      .cell {
        flex: 1 1 0;
        min-width: 1px;
        max-width: 28px;
        border-radius: 2px;
        background: var(--heat, var(--vscode-widget-border, rgba(128, 128, 128, 0.25)));
      }
      .cell.unscored {
        opacity: 0.25;
      }
      .cell.pending {
        background: none;
        border: 1px dashed var(--vscode-widget-border, rgba(128, 128, 128, 0.4));
      }
      .cell.sel {
        outline: 1px solid var(--vscode-focusBorder, #007fd4);
        outline-offset: 1px;
      }
    `,
  ];

  @property({ attribute: false }) steps: readonly Step[] = [];
  @property({ attribute: false }) scores: ScoresMessage | null = null;
  @property({ attribute: false }) selected: number | null = null;

  private onClick(e: MouseEvent): void {
    const cell = (e.target as HTMLElement).closest?.('.cell') as HTMLElement | null;
    const i = cell ? Number(cell.dataset.index) : NaN;
    if (Number.isInteger(i)) this.dispatchEvent(new CustomEvent('select-step', { detail: { index: i }, bubbles: true, composed: true }));
  }

  private renderLine(m: ScoresMessage, byIndex: Map<number, StepScoreView>): TemplateResult {
    const sc = m.scorer;
    const low = m.steps.filter((s) => scoreWord(s.value, m.range) === 'bad').length;
    const mean = m.steps.length ? m.steps.reduce((a, s) => a + s.value, 0) / m.steps.length : null;
    const state =
      m.state === 'scoring'
        ? html`<span class="state">scoring… ${byIndex.size}/${this.steps.length} steps</span>`
        : m.state === 'cancelled'
          ? html`<span class="state">scoring cancelled</span>`
          : m.state === 'error'
            ? html`<span class="error" role="alert">scoring failed: ${m.error}</span>`
            : m.state === 'idle'
              ? html`<span class="state">not scored (Trajectory Inspector: Score Rollout)</span>`
              : m.notScorable
                ? html`<span class="state" role="status">not scorable: ${m.notScorable.replace(/^not scored: /, '')}</span>`
                : m.unscored?.length
                  ? html`<span class="state">· ${m.unscored.length} step(s) ${m.unscored[0].reason}</span>`
                  : nothing;
    return html`<div class="line">
      <span class="tag" title="Per-step scores from a process reward model or the built-in rules — not the outcome reward">step scores</span>
      ${sc ? html`<span class="scorer" title=${`scorer ${sc.name} ${sc.version}${sc.model ? `, model ${sc.model}` : ''}`}>${sc.name}${sc.model ? html` · <span class="value">${sc.model}</span>` : nothing}</span>` : nothing}
      ${m.steps.length && m.state !== 'error'
        ? html`<span>${m.steps.length} scored</span>${mean !== null ? html`<span>· mean <span class="value">${formatScore(mean, m.range)}</span></span>` : nothing}${low
            ? html`<span>· <span class="bad">${low} low</span></span>`
            : nothing}`
        : nothing}
      ${m.cached && m.state === 'done' ? html`<span title="from the score cache">· cached</span>` : nothing} ${state}
    </div>`;
  }

  override render(): TemplateResult | typeof nothing {
    const m = this.scores;
    if (!m) return nothing;
    const byIndex = new Map(m.steps.map((s) => [s.index, s]));
    const done = m.state === 'done';
    const why = new Map((m.unscored ?? []).map((u) => [u.index, u.reason]));
    return html`${this.renderLine(m, byIndex)}
      ${m.state !== 'error' && m.state !== 'idle'
        ? html`<div class="strip" role="presentation" @click=${this.onClick}>
            ${stripRanges(this.steps.length).map(([from, to]) => {
              if (to - from === 1) {
                const st = this.steps[from];
                const s = byIndex.get(st.index);
                const cls = s ? `heat-${heatBucket(s.value, m.range)} ${scoreWord(s.value, m.range)}` : done ? 'unscored' : 'pending';
                const title = s ? `#${st.index + 1} ${st.role} · ${scoreTitle(s, m.range, m.scorer)}` : `#${st.index + 1} ${st.role} · ${done ? (why.get(st.index) ?? 'not scored') : 'waiting for its score'}`;
                return html`<span class="cell ${cls} ${st.index === this.selected ? 'sel' : ''}" data-index=${st.index} data-score=${s ? String(s.value) : ''} title=${title}></span>`;
              }
              // A cell for several steps shows the lowest score among them; a click selects that step.
              let worst: StepScoreView | null = null;
              for (let i = from; i < to; i++) {
                const s = byIndex.get(this.steps[i].index);
                if (s && (!worst || s.value < worst.value)) worst = s;
              }
              const first = this.steps[from].index;
              const last = this.steps[to - 1].index;
              const cls = worst ? `heat-${heatBucket(worst.value, m.range)} ${scoreWord(worst.value, m.range)}` : done ? 'unscored' : 'pending';
              const title = `#${first + 1}–#${last + 1}${worst ? ` · lowest: #${worst.index + 1} ${scoreTitle(worst, m.range, m.scorer)}` : done ? ' · not scored' : ' · waiting for scores'}`;
              const sel = this.selected !== null && this.selected >= first && this.selected <= last;
              return html`<span class="cell multi ${cls} ${sel ? 'sel' : ''}" data-index=${worst ? worst.index : first} data-from=${first} data-to=${last} data-score=${worst ? String(worst.value) : ''} title=${title}></span>`;
            })}
          </div>`
        : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-heatstrip': TiHeatstrip;
  }
}
