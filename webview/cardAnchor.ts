/**
 * Keeps a step card where it is on screen while the cards around it change height (a sliced
 * rollout's cards grow when their full steps arrive): what the browser's scroll anchoring
 * does for a plain list, done by hand for the virtualized timeline (window scrolling, cards placed
 * by the virtualizer). Also puts a card back in its place when a re-created webview restores a view.
 */
import { virtualizerRef } from '@lit-labs/virtualizer/virtualize.js';

/** A step card and its top, in CSS px from the viewport's top. */
export interface CardPlace {
  index: number;
  top: number;
}

type VirtualList = HTMLElement & { [virtualizerRef]?: { element(i: number): { scrollIntoView(o?: ScrollIntoViewOptions): void } | undefined } };

/** The first step card in view (its bottom below the viewport's top) under `root`, or null. */
export function topCard(root: ParentNode): CardPlace | null {
  let best: CardPlace | null = null;
  for (const c of root.querySelectorAll<HTMLElement>('ti-step-card')) {
    const r = c.getBoundingClientRect();
    const index = Number(c.dataset.index);
    if (r.bottom > 0 && Number.isInteger(index) && (!best || index < best.index)) best = { index, top: Math.round(r.top) };
  }
  return best;
}

/** The hold running for one timeline (at most one at a time). */
export class CardAnchor {
  private hold: (CardPlace & { frames: number; still: number; stillFrames: number }) | null = null;

  /**
   * @param root the timeline's render root (holds `main.timeline` and the cards)
   * @param interrupted true when something else now decides the scroll (a reveal, no rollout shown)
   */
  constructor(
    private readonly root: () => ParentNode,
    private readonly interrupted: () => boolean,
  ) {}

  /** A hold is running. */
  get active(): boolean {
    return this.hold !== null;
  }

  /**
   * Keeps card `a.index` at `a.top`: asks the virtualizer to render it when it is not, then corrects
   * the scroll every frame until the card has held still for `stillFrames` frames, `frames` frames
   * pass, `interrupted()`, or the user scrolls, clicks or types. A hold already running keeps its
   * card and runs on.
   */
  keep(a: CardPlace, frames: number, stillFrames: number): void {
    if (this.hold) {
      this.hold.frames = Math.max(this.hold.frames, frames);
      this.hold.still = 0;
      return;
    }
    const hold = (this.hold = { ...a, frames, still: 0, stillFrames });
    const events = ['wheel', 'pointerdown', 'keydown', 'touchstart'] as const;
    const stop = (): void => {
      events.forEach((e) => window.removeEventListener(e, stop));
      if (this.hold === hold) this.hold = null;
    };
    events.forEach((e) => window.addEventListener(e, stop, { passive: true }));
    const step = (): void => {
      if (this.hold !== hold) return;
      if (this.interrupted()) return stop();
      const root = this.root();
      const card = root.querySelector<HTMLElement>(`ti-step-card[data-index="${hold.index}"]`);
      if (card) {
        const d = card.getBoundingClientRect().top - hold.top;
        if (Math.abs(d) > 1) {
          window.scrollBy(0, d);
          hold.still = 0;
        } else hold.still++;
      } else {
        try {
          root.querySelector<VirtualList>('main.timeline')?.[virtualizerRef]?.element(hold.index)?.scrollIntoView({ block: 'start' });
        } catch {
          // no layout yet
        }
      }
      if (--hold.frames > 0 && hold.still < hold.stillFrames) requestAnimationFrame(step);
      else stop();
    };
    requestAnimationFrame(step);
  }

  /** Content is about to change height: keep the card of step `selected` (when in view), else the top card, where it is. */
  keepInView(selected: number | null): void {
    if (this.hold || this.interrupted()) return;
    const root = this.root();
    let a: CardPlace | null = null;
    const sel = selected !== null ? root.querySelector<HTMLElement>(`ti-step-card[data-index="${selected}"]`) : null;
    if (sel) {
      const r = sel.getBoundingClientRect();
      if (r.bottom > 0 && r.top < window.innerHeight) a = { index: selected!, top: Math.round(r.top) };
    }
    a ??= topCard(root);
    if (a) this.keep(a, 60, 6);
  }
}
