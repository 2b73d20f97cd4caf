/**
 * `<ti-step-list>`: the key hint line and the steps, one `<ti-step-card>` each. The list is
 * virtualized (`@lit-labs/virtualizer`, window scrolling): only the cards near the viewport are in
 * the DOM, so a rollout of 10,000 steps renders as fast as one of 20; for a sliced rollout it asks
 * the step store for the full steps of the cards it renders (`wantRange`). Show in Source and the
 * cards' links post from here; a click on a card, `toggle-expand` and `note-done` bubble to the root.
 * Renders into `<ti-app>`'s shadow tree (lightElement.ts), whenever the root renders (`revision`:
 * the state is changed in place).
 */
import { css, html, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { virtualize } from '@lit-labs/virtualizer/virtualize.js';
import type { Step } from '../../../src/shared/model';
import type { HighlightNotification, RolloutMessage } from '../../../src/shared/protocol';
import { parseTime } from '../../format';
import { propagatedFrom, type LabelIndex } from '../../labels';
import { openLink, openStepFile, showInSource } from '../../timeline/actions';
import { labelIndexOf, NO_LABELS, scoreOf, stepFilesOf, stepReplayOf, type TimelineState } from '../../timeline/state';
import '../ti-step-card';
import { keyHint } from './ti-keys-overlay';
import { LightElement } from './lightElement';

export const listStyles = css`
    .hint {
      margin: 6px 0 10px;
      font-size: 11px;
      color: var(--vscode-descriptionForeground);
    }
    .empty {
      padding: 16px 0;
      color: var(--vscode-descriptionForeground);
    }
    /* Sticky under the scroll: the label progress and strip, and the terminal player when there is one. */
    ti-step-card {
      scroll-margin-top: calc(var(--dock-height, 0px) + 8px);
      /* The virtualizer positions cards absolutely: keep them as wide as the list. */
      width: 100%;
      box-sizing: border-box;
    }
`;

@customElement('ti-step-list')
export class TiStepList extends LightElement {
  @property({ attribute: false }) state!: TimelineState;
  @property({ attribute: false }) msg!: RolloutMessage;
  /** Changes with every render of the root, so the list renders with it. */
  @property({ attribute: false }) revision = 0;

  /** Cards the virtualizer renders now (its last `rangeChanged`), and the timer that asks for their steps. */
  private range: { first: number; last: number } | null = null;
  private rangeTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly onRange = (e: Event): void => {
    const r = e as Event & { first: number; last: number };
    this.range = { first: r.first, last: r.last };
    // Coalesces the events of a fast scroll into one look at the range.
    clearTimeout(this.rangeTimer);
    this.rangeTimer = setTimeout(() => this.wantRange(), 30);
  };

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.rangeTimer);
  }

  /** Asks for the full steps of the cards rendered now and a margin around them (a sliced rollout). */
  wantRange(): void {
    const r = this.range;
    if (r && r.last >= r.first) this.state.stepStore.want(r.first - 10, r.last + 11);
  }

  override render(): TemplateResult {
    const m = this.msg;
    const steps = m.rollout.steps;
    if (steps.length === 0) return html`<div class="empty">This rollout has no steps.</div>`;
    // A paged rollout's placeholders have no times: the column brings the earliest (a live update's newer steps come as heads).
    const paged = m.sliced?.paged;
    const start = steps.slice(paged?.count ?? 0).reduce<number | null>((min, s) => {
      const t = parseTime(s.timestamp);
      return t !== null && (min === null || t < min) ? t : min;
    }, paged?.startMs ?? null);
    const lines = this.state.config.collapseOutputLines;
    const idx = labelIndexOf(this.state);
    return html`<div class="hint">${keyHint(!!m.rollout.recording)}</div>
      <main class="timeline" role="list" data-sliced=${m.sliced ? 'true' : 'false'} @rangeChanged=${this.onRange}
        @show-source=${(e: CustomEvent<{ index: number }>) => showInSource(m.rolloutIndex, e.detail.index)}
        @open-link=${(e: CustomEvent<{ index: number; link: number }>) => openLink(m.rolloutIndex, e.detail.index, e.detail.link)}
        @open-file=${(e: CustomEvent<{ index: number; file: number }>) => openStepFile(m.rolloutIndex, e.detail.index, e.detail.file)}>
        ${virtualize({ items: steps, keyFunction: (s) => s.index, renderItem: (s) => this.renderCard(s, lines, start, idx) })}
      </main>`;
  }

  /** The search query whose matches step `index` of the rollout shown marks; null for every other step. */
  private highlightOf(index: number): HighlightNotification['query'] | null {
    const h = this.state.highlight;
    return h && h.rolloutIndex === this.msg.rolloutIndex && h.index === index ? h.query : null;
  }

  /** One step card: the only place a `<ti-step-card>` is rendered (the virtualizer calls it for the visible steps). */
  private renderCard(head: Step, lines: number, start: number | null, idx: LabelIndex): TemplateResult {
    const st = this.state;
    const m = this.msg;
    // A sliced rollout's cards show the full step once it is here, "loading" until then (never the head's preview).
    const full = st.stepStore.full(head.index, head);
    const s = full ?? head;
    return html`<ti-step-card
      role="listitem"
      class="step-card ${s.index === st.selected ? 'selected' : ''} ${st.expanded.has(s.index) ? 'expanded' : ''} ${full ? '' : 'loading'}"
      data-index=${s.index}
      aria-selected=${s.index === st.selected ? 'true' : 'false'}
      .step=${s}
      .cutFields=${full ? null : st.stepStore.cutOf(s.index)}
      .bodyHeight=${full ? null : st.stepStore.heightOf(s.index)}
      .expanded=${st.expanded.has(s.index) || this.highlightOf(s.index) !== null}
      .highlight=${this.highlightOf(s.index)}
      .collapseLines=${lines}
      .startTime=${start}
      .label=${idx.mine.get(s.index) ?? null}
      .otherLabels=${idx.others.get(s.index) ?? NO_LABELS}
      .propagatedFrom=${idx.mine.get(s.index)?.origin === 'propagated' ? propagatedFrom(idx, s.index) : null}
      .editingNote=${st.editingNote === s.index}
      .replay=${stepReplayOf(st, m, s.index)}
      .score=${scoreOf(st, s.index)}
      .scoreRange=${st.scoresMsg?.range ?? null}
      .scorer=${st.scoresMsg?.scorer ?? null}
      .files=${stepFilesOf(st, s.index)}
    ></ti-step-card>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-step-list': TiStepList;
  }
}
