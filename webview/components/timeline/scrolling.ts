/**
 * The timeline's scrolling, for `<ti-app>`: revealing the selected step once it is rendered
 * (through the virtualizer when its card is not in the DOM), restoring a re-created webview's
 * scroll place, keeping the newest step in view while Follow is on (like `tail -f` / `less +F`),
 * and telling the user's scrolls (wheel, scrollbar drag) from the list's own height changes:
 * scrolling up stops Follow, scrolling down to the end starts it.
 */
import { virtualizerRef } from '@lit-labs/virtualizer/virtualize.js';
import { CardAnchor } from '../../cardAnchor';
import { rolloutMsg, type TimelineState } from '../../timeline/state';

/** What the scrolling needs of the root. */
export interface ScrollHost {
  readonly state: TimelineState;
  /** The root's shadow root (the cards are in it). */
  root(): ParentNode;
  /** Resolves once the root has rendered. */
  rendered(): Promise<unknown>;
  /** Saves the UI state (the scroll place is part of it). */
  persist(): void;
  setFollow(on: boolean): void;
}

type VirtualList = HTMLElement & { [virtualizerRef]?: { element(i: number): { scrollIntoView(o?: ScrollIntoViewOptions): void } | undefined } };

export class TimelineScroll {
  /** When the user last turned the wheel down (a scroll down to the end then starts Follow). */
  private userInputAt = -Infinity;
  private lastScrollY = 0;
  /** The running reveal of the end (a newer one replaces it). */
  private endReveal = 0;
  /** A drag of the page's scrollbar is running. */
  private dragging = false;
  private scrollTimer: ReturnType<typeof setTimeout> | undefined;
  /** Holds a card in place while a sliced rollout's cards change height (cardAnchor.ts). */
  readonly cardAnchor: CardAnchor;

  constructor(private readonly host: ScrollHost) {
    const s = (): TimelineState => host.state;
    this.cardAnchor = new CardAnchor(() => host.root(), () => s().pendingReveal !== null || rolloutMsg(s()) === null || s().follow);
  }

  private readonly onScroll = (): void => {
    clearTimeout(this.scrollTimer);
    this.scrollTimer = setTimeout(() => this.host.persist(), 150);
    // Only the user's scrolls count (the wheel, a drag of the scrollbar): the list's own height
    // changes also move the page.
    const y = window.scrollY;
    const up = y < this.lastScrollY - 2;
    const down = y > this.lastScrollY + 2;
    this.lastScrollY = y;
    const s = this.host.state;
    if (!rolloutMsg(s)?.live) return;
    const byUser = this.dragging || performance.now() - this.userInputAt < 400;
    if (!byUser) return;
    if (s.follow && up && this.dragging) this.host.setFollow(false);
    else if (!s.follow && down && this.atEnd()) this.host.setFollow(true);
  };

  private readonly onWheel = (e: WheelEvent): void => {
    if (e.deltaY > 0) this.userInputAt = performance.now();
    else if (e.deltaY < 0) {
      this.userInputAt = -Infinity;
      const s = this.host.state;
      if (s.follow && rolloutMsg(s)?.live) this.host.setFollow(false);
    }
  };

  private readonly onPointer = (e: PointerEvent): void => {
    this.dragging = e.type === 'pointerdown' && e.clientX >= document.documentElement.clientWidth;
  };

  connect(): void {
    window.addEventListener('scroll', this.onScroll, { passive: true });
    window.addEventListener('wheel', this.onWheel, { passive: true, capture: true });
    for (const ev of ['pointerdown', 'pointerup', 'pointercancel'] as const) window.addEventListener(ev, this.onPointer, { passive: true, capture: true });
  }

  disconnect(): void {
    window.removeEventListener('scroll', this.onScroll);
    window.removeEventListener('wheel', this.onWheel, { capture: true });
    for (const ev of ['pointerdown', 'pointerup', 'pointercancel'] as const) window.removeEventListener(ev, this.onPointer, { capture: true });
    clearTimeout(this.scrollTimer);
  }

  private card(index: number): HTMLElement | null {
    return this.host.root().querySelector<HTMLElement>(`ti-step-card[data-index="${index}"]`);
  }

  /** The end of the list is in view (the page scrolled to its bottom, or the list ends on screen). */
  private atEnd(): boolean {
    const doc = document.documentElement;
    if (window.scrollY + window.innerHeight >= doc.scrollHeight - 4) return true;
    const count = rolloutMsg(this.host.state)?.rollout.steps.length ?? 0;
    const last = count ? this.card(count - 1) : null;
    return !!last && last.getBoundingClientRect().bottom <= window.innerHeight;
  }

  /**
   * Scrolls to the end of the page, so the newest step is in view, and again on the next frames
   * while the virtualizer measures the cards it renders there (its height is an estimate until
   * then), until the end holds still for a few frames.
   */
  revealEnd(): void {
    const token = ++this.endReveal;
    const run = (tries: number, still: number): void => {
      if (token !== this.endReveal || !this.host.state.follow) return;
      // The newest card's bottom just above the window's (the page's end, below the list, is padding).
      const end = Math.max(0, document.documentElement.scrollHeight - window.innerHeight);
      const count = rolloutMsg(this.host.state)?.rollout.steps.length ?? 0;
      const last = count ? this.card(count - 1) : null;
      const target = last ? Math.max(0, Math.min(end, Math.round(window.scrollY + last.getBoundingClientRect().bottom - window.innerHeight + 24))) : end;
      if (Math.abs(window.scrollY - target) > 1) {
        window.scrollTo(0, target);
        still = 0;
      } else still++;
      this.lastScrollY = window.scrollY;
      if (tries > 0 && still < 4) requestAnimationFrame(() => run(tries - 1, still));
    };
    void this.host.rendered().then(() => requestAnimationFrame(() => run(90, 0)));
  }

  /** After a render: puts back a restored scroll place, then scrolls the step to reveal into view. */
  afterRender(): void {
    const s = this.host.state;
    if (s.pendingAnchor) {
      const a = s.pendingAnchor;
      s.pendingAnchor = null;
      this.cardAnchor.keep(a, 180, 20);
    }
    if (s.pendingScrollY !== null) {
      const y = s.pendingScrollY;
      s.pendingScrollY = null;
      // The virtualizer sizes the list from the cards it has measured: scroll again until the page is tall enough.
      const restore = (tries: number): void => {
        window.scrollTo(0, y);
        if (Math.abs(window.scrollY - y) > 2 && tries > 0) requestAnimationFrame(() => restore(tries - 1));
      };
      requestAnimationFrame(() => restore(60));
    }
    const reveal = s.pendingReveal;
    if (!reveal) return;
    s.pendingReveal = null;
    const card = this.card(reveal.index) as (HTMLElement & { updateComplete: Promise<unknown> }) | null;
    if (card) {
      card.scrollIntoView({ block: reveal.block });
      // On a first render the cards (child elements) lay out after this: scroll again once they have,
      // or a step opened from Compare / Search would be selected but left out of view.
      void card.updateComplete.then(() =>
        requestAnimationFrame(() => {
          if (card.isConnected && this.host.state.selected === reveal.index) card.scrollIntoView({ block: reveal.block });
        }),
      );
      return;
    }
    // Not rendered (virtualized away): the virtualizer scrolls to it and renders it. On a first
    // render the virtualizer may not exist or have no layout yet: try again on later frames (up to
    // ~2 s), then scroll the card itself once it is rendered (the virtualizer's place is an estimate).
    const scroll = (tries: number): void => {
      if (this.host.state.pendingReveal) return; // a newer reveal takes over
      if (this.host.state.selected !== reveal.index && tries < 120) return; // the user moved on meanwhile
      const card = this.card(reveal.index);
      if (card) {
        card.scrollIntoView({ block: reveal.block });
        return;
      }
      const list = this.host.root().querySelector<VirtualList>('main.timeline');
      try {
        list?.[virtualizerRef]?.element(reveal.index)?.scrollIntoView({ block: reveal.block });
      } catch {
        // no layout yet
      }
      if (tries > 0) requestAnimationFrame(() => scroll(tries - 1));
    };
    scroll(120);
  }
}
