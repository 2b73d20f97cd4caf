/**
 * `<ti-scrollmarks>`: marks beside the webview's scrollbar at the height of every low-scored step
 * (and the selected one), like the editor's overview ruler; click a mark to jump to its step.
 * Positions are measured from the step cards (`cards()` gives them) relative to the page height,
 * and re-measured when the page resizes.
 *
 * Emits `select-step` ({ index }) on a click.
 */
import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { ScoresMessage } from '../../src/shared/scoresProtocol';
import { HEAT_CSS, heatBucket, scoreTitle, scoreWord } from '../scores';

interface Mark {
  index: number;
  /** Fraction of the page height, 0–1. */
  at: number;
  cls: string;
  title: string;
}

@customElement('ti-scrollmarks')
export class TiScrollmarks extends LitElement {
  static override styles = [
    HEAT_CSS,
    css`
      :host {
        position: fixed;
        top: 0;
        bottom: 0;
        right: 14px;
        width: 8px;
        z-index: 3;
        pointer-events: none;
      }
      .mark {
        position: absolute;
        left: 0;
        width: 8px;
        height: 4px;
        margin-top: -2px;
        border-radius: 1px;
        background: var(--heat);
        pointer-events: auto;
        cursor: pointer;
        border: 0;
        padding: 0;
      }
      .mark.sel {
        background: var(--vscode-focusBorder, #007fd4);
        height: 2px;
        margin-top: -1px;
        pointer-events: none;
      }
    `,
  ];

  @property({ attribute: false }) scores: ScoresMessage | null = null;
  @property({ attribute: false }) selected: number | null = null;
  /** The step cards to measure (index from `data-index`). */
  @property({ attribute: false }) cards: () => Iterable<HTMLElement> = () => [];
  /** Steps in the rollout (the list is virtualized: steps without a rendered card are placed by estimate). */
  @property({ type: Number }) stepCount = 0;
  @state() private marks: Mark[] = [];
  private readonly ro = new ResizeObserver(() => this.measure());
  private frame = 0;
  private readonly onScroll = (): void => {
    // Scrolling renders other cards: their measured places refine the estimates.
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.measure());
  };

  override connectedCallback(): void {
    super.connectedCallback();
    this.ro.observe(document.documentElement);
    window.addEventListener('scroll', this.onScroll, { passive: true });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.ro.disconnect();
    window.removeEventListener('scroll', this.onScroll);
    cancelAnimationFrame(this.frame);
  }

  protected override updated(changed: Map<string, unknown>): void {
    if (changed.has('scores') || changed.has('selected')) {
      cancelAnimationFrame(this.frame);
      this.frame = requestAnimationFrame(() => this.measure());
    }
  }

  /** Recomputes the mark positions from where the cards are now. */
  measure(): void {
    const m = this.scores;
    if (!m || m.state === 'error') {
      if (this.marks.length) this.marks = [];
      return;
    }
    const height = Math.max(1, document.documentElement.scrollHeight);
    const measured = new Map<number, number>();
    for (const card of this.cards()) {
      const index = Number(card.dataset.index);
      if (Number.isInteger(index)) measured.set(index, card.getBoundingClientRect().top + window.scrollY);
    }
    let count = this.stepCount;
    for (const i of measured.keys()) count = Math.max(count, i + 1);
    for (const s of m.steps) count = Math.max(count, s.index + 1);
    const top = placeSteps(measured, count, height);
    const marks: Mark[] = [];
    for (const s of m.steps) {
      if (scoreWord(s.value, m.range) === 'bad') marks.push({ index: s.index, at: top(s.index) / height, cls: `heat-${heatBucket(s.value, m.range)}`, title: `#${s.index + 1} · ${scoreTitle(s, m.range, m.scorer)}` });
    }
    if (this.selected !== null && this.selected !== undefined) marks.push({ index: this.selected, at: top(this.selected) / height, cls: 'sel', title: '' });
    this.marks = marks;
  }

  private onClick(e: MouseEvent): void {
    const i = Number((e.target as HTMLElement).dataset.index);
    if (Number.isInteger(i)) this.dispatchEvent(new CustomEvent('select-step', { detail: { index: i }, bubbles: true, composed: true }));
  }

  override render(): TemplateResult | typeof nothing {
    if (!this.marks.length) return nothing;
    // Positions are set through CSSOM in `updated` below (the CSP allows no inline style attributes).
    return html`${this.marks.map((k) => html`<button class="mark ${k.cls}" data-index=${k.index} data-at=${String(k.at)} title=${k.title} aria-label=${k.title || 'selected step'} @click=${this.onClick}></button>`)}`;
  }

  protected override firstUpdated(): void {
    this.place();
  }

  protected override update(changed: Map<string, unknown>): void {
    super.update(changed);
    this.place();
  }

  private place(): void {
    for (const el of this.renderRoot.querySelectorAll<HTMLElement>('.mark')) el.style.top = `${Number(el.dataset.at) * 100}%`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-scrollmarks': TiScrollmarks;
  }
}

/**
 * Page offsets (px from the top of the document) of every step of a virtualized list: measured
 * where a card is rendered (`measured`: step index → top), else estimated — interpolated between
 * the nearest measured cards, or spread evenly over the space above the first / below the last one.
 * `count` steps; `height` is the document's scroll height. Returns a lookup by step index.
 */
export function placeSteps(measured: ReadonlyMap<number, number>, count: number, height: number): (index: number) => number {
  const known = [...measured.entries()].sort((a, b) => a[0] - b[0]);
  return (i) => {
    const exact = measured.get(i);
    if (exact !== undefined) return exact;
    if (!known.length) return (height * i) / Math.max(1, count);
    const first = known[0];
    const last = known[known.length - 1];
    if (i < first[0]) return (first[1] * i) / Math.max(1, first[0]);
    if (i > last[0]) return last[1] + ((height - last[1]) * (i - last[0])) / Math.max(1, count - last[0]);
    let lo = 0;
    let hi = known.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (known[mid][0] < i) lo = mid;
      else hi = mid;
    }
    const [ia, ta] = known[lo];
    const [ib, tb] = known[hi];
    return ta + ((tb - ta) * (i - ia)) / Math.max(1, ib - ia);
  };
}
