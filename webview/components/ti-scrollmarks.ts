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
import type { ScoresMessage } from '../../src/shared/protocol';
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
  @state() private marks: Mark[] = [];
  private readonly ro = new ResizeObserver(() => this.measure());
  private frame = 0;

  override connectedCallback(): void {
    super.connectedCallback();
    this.ro.observe(document.documentElement);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.ro.disconnect();
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
    const byIndex = new Map(m.steps.map((s) => [s.index, s]));
    const height = Math.max(1, document.documentElement.scrollHeight);
    const marks: Mark[] = [];
    let sel: Mark | null = null;
    for (const card of this.cards()) {
      const index = Number(card.dataset.index);
      if (!Number.isInteger(index)) continue;
      const at = (card.getBoundingClientRect().top + window.scrollY) / height;
      const s = byIndex.get(index);
      if (s && scoreWord(s.value, m.range) === 'bad') marks.push({ index, at, cls: `heat-${heatBucket(s.value, m.range)}`, title: `#${index + 1} · ${scoreTitle(s, m.range, m.scorer)}` });
      if (index === this.selected) sel = { index, at, cls: 'sel', title: '' };
    }
    if (sel) marks.push(sel);
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
