/**
 * `<ti-player>`: plays a rollout's terminal recording (asciicast) in xterm.js, as the terminal
 * showed it. Play/pause, speed, a seek bar with a mark per step (at `Step.castTime`), current time.
 *
 * The player owns the clock. `seek(t)` (the timeline calls it when a step is selected) renders the
 * terminal state at `t`: forward by writing the events in between, backward by resetting the
 * terminal and replaying the events it holds from their start (the recording's start, or the
 * screen snapshot they follow) in one write.
 *
 * A streamed recording (`cast.stream`, src/host/castStream.ts) comes a window at a time: the player
 * holds one run of events (`Run`), asks the host for the next window while it plays towards the
 * run's end, and for a time outside the run asks for a seek window: the snapshot of the screen
 * nearest before that time and the events from there, which replace the run. While playing, and while the
 * user scrubs, it fires `player-time` so the timeline can select the step running at that time;
 * it never fires for `seek()` calls, so a selection does not bounce back.
 *
 * It is a player, not a terminal: nothing typed reaches anything (stdin is disabled and xterm
 * ignores every key), so the timeline's keys keep working while the terminal has focus.
 *
 * CSP: xterm.css is adopted as a constructed stylesheet; the `<style>` elements xterm creates at
 * runtime carry the page nonce and its inline colours go through CSSOM (esbuild.mjs patches both).
 */
import { Terminal } from '@xterm/xterm';
import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { guard } from 'lit/directives/guard.js';
import { PLAYER_SPEEDS, isOpenableUrl } from '../../src/shared/protocol';
import { MAX_TERM_COLS, MAX_TERM_ROWS, type CastEventView, type CastView, type CastWindowMessage } from '../../src/shared/castProtocol';
import { castWindow, openUrl } from '../timeline/actions';
import { eventsUpTo, formatClock, termOps } from '../cast';
import { cssProps } from '../cssProps';
import { playerStyles } from './player/styles';
import { LINE_RATIO, MAX_FONT, MIN_FONT, PAUSE_ICON, PLAY_ICON, RESTART_ICON, monoCharRatio, vscodeTheme } from './player/theme';
import { MAX_HEIGHT_SHARE, MIN_HEIGHT_SHARE, type PlayerFit, type PlayerMark } from './player/types';

/**
 * The events the player holds: from `startTime` (the screen `base`, or a reset terminal of the
 * recording's size) on; `next` is the host's segment after them (null: they reach the end).
 */
interface Run {
  stream: string | null;
  base: { screen: string; cols: number; rows: number } | null;
  startTime: number;
  events: CastEventView[];
  chars: number;
  next: number | null;
  /** False once events before the shown time were dropped (a seek back then asks the host). */
  replayable: boolean;
}

/** A run holds at most about this many characters of event data (older events written are dropped). */
const MAX_RUN_CHARS = 32 * 1024 * 1024;
/** A time at most this far past the run's end is reached by asking for the next window, not by a seek. */
const FORWARD_SECONDS = 30;

function charsOf(events: readonly CastEventView[]): number {
  let n = 0;
  for (const e of events) n += e[2].length;
  return n;
}

@customElement('ti-player')
export class TiPlayer extends LitElement {
  static override styles = playerStyles;

  /** The recording (null while loading or when it cannot be shown). */
  @property({ attribute: false }) cast: CastView | null = null;
  /** Absolute path of the recording (shown in the bar). */
  @property() path = '';
  @property({ attribute: false }) error: string | null = null;
  @property({ attribute: false }) note: string | null = null;
  /** Duration of a streamed recording as far as the host has read it (null: `cast.duration`). */
  @property({ attribute: false }) streamDuration: number | null = null;
  @property({ attribute: false }) marks: PlayerMark[] = [];
  /** Where a newly given recording starts (the selected step's time); later moves go through `seek()`. */
  @property({ attribute: false }) startTime = 0;
  /** Step selected in the timeline (its mark is highlighted). */
  @property({ attribute: false }) selectedStep: number | null = null;
  /** Terminal hidden, controls kept. */
  @property({ type: Boolean, reflect: true }) collapsed = false;
  @property({ type: Number }) speed = 1;
  /** Share of the window height the terminal may take; its font is fitted to this and the width. */
  @property({ type: Number }) heightShare = 0.5;
  @property() fitMode: PlayerFit = 'width';

  /** Current time, seconds (reflected as `data-time`, milliseconds rounded, for tests and tooling). */
  @state() private time = 0;
  @state() private playing = false;
  /** Terminal size now (the header's, then `r` events). */
  @state() private size = { cols: 80, rows: 24 };

  @query('.term') private termEl!: HTMLElement | null;
  @query('.screen') private screenEl!: HTMLElement | null;

  private term: Terminal | null = null;
  private termCast: CastView | null = null;
  private run: Run | null = null;
  /** The window asked for and not answered yet. */
  private pending: { seq: number; seek: boolean } | null = null;
  private seq = 0;
  /** The terminal must be reset to the run's start before the next write. */
  private needReset = false;
  /** The last drain stopped for a window not here yet. */
  private waiting = false;
  /** Events [0, written) of the run are in the terminal; the terminal shows time `shownTime`. */
  private written = 0;
  private shownTime = 0;
  private targetTime = 0;
  private busy = false;
  private raf = 0;
  private playFrom = { wall: 0, time: 0 };
  private resizeObserver: ResizeObserver | null = null;
  private themeObserver: MutationObserver | null = null;

  /** Current time in seconds. */
  get currentTime(): number {
    return this.time;
  }

  get duration(): number {
    return this.streamDuration ?? this.cast?.duration ?? 0;
  }

  /**
   * A window of the streamed recording the player asked for (the timeline hands the host's
   * `castWindow` answers here); any other is dropped.
   */
  receiveWindow(m: CastWindowMessage): void {
    const run = this.run;
    const want = this.pending;
    if (!run || !want || run.stream !== m.stream || want.seq !== m.seq) return;
    this.pending = null;
    if (want.seek) {
      this.run = { stream: run.stream, base: m.base, startTime: m.startTime, events: m.events, chars: charsOf(m.events), next: m.next, replayable: true };
      this.needReset = true;
      this.written = 0;
      this.shownTime = Number.NaN;
    } else if (m.from === run.next) {
      for (const e of m.events) run.events.push(e);
      run.chars += charsOf(m.events);
      run.next = m.next;
      if (run.chars > MAX_RUN_CHARS && this.written > 0) {
        // Drop what is written already; going back before it is a seek the host answers.
        const kept = run.events.slice(this.written);
        run.events = kept;
        run.chars = charsOf(kept);
        run.startTime = this.shownTime;
        run.replayable = false;
        this.written = 0;
      }
    }
    this.sync();
  }

  private ask(from: number | null, time: number | null): void {
    const run = this.run;
    if (!run?.stream || this.pending) return;
    const seq = ++this.seq;
    this.pending = { seq, seek: time !== null };
    castWindow({ type: 'castWindow', stream: run.stream, seq, from, time });
  }

  /** Renders the terminal at time `t` (clamped to the recording) without firing `player-time`. Playback continues from there. */
  seek(t: number): void {
    if (!this.cast) return;
    const time = Math.max(0, Math.min(this.duration, t));
    this.setTime(time);
    if (this.playing) this.playFrom = { wall: performance.now(), time };
  }

  play(): void {
    if (!this.cast || this.playing) return;
    // At the end, play starts over.
    if (this.time >= this.duration - 1e-6) this.setTime(0);
    this.playing = true;
    this.playFrom = { wall: performance.now(), time: this.time };
    this.raf = requestAnimationFrame(this.tick);
  }

  pause(): void {
    this.playing = false;
    cancelAnimationFrame(this.raf);
  }

  toggle(): void {
    if (this.playing) this.pause();
    else this.play();
  }

  /** True once the terminal shows the current time (every write for it parsed); for tests. */
  get synced(): boolean {
    return !this.busy && this.term !== null && this.shownTime === this.targetTime;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Follow theme changes: VS Code rewrites the variables on <html> and the theme class on <body>.
    this.themeObserver = new MutationObserver(() => {
      if (this.term) this.term.options.theme = vscodeTheme(this);
    });
    this.themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
    if (document.body) this.themeObserver.observe(document.body, { attributes: true, attributeFilter: ['class'] });
    window.addEventListener('resize', this.onWindowResize);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.pause();
    this.themeObserver?.disconnect();
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
    window.removeEventListener('resize', this.onWindowResize);
    this.disposeTerminal();
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('cast') && this.cast !== this.termCast) this.createTerminal();
    if ((changed.has('collapsed') && !this.collapsed) || changed.has('heightShare') || changed.has('fitMode')) {
      this.fit();
      this.followCursor();
    }
    this.setAttribute('data-time', String(Math.round(this.time * 1000)));
    this.setAttribute('data-state', this.playing ? 'playing' : 'paused');
  }

  private disposeTerminal(): void {
    this.term?.dispose();
    this.term = null;
    this.termCast = null;
    this.run = null;
    this.pending = null;
    this.needReset = false;
    this.written = 0;
    this.shownTime = 0;
    this.targetTime = 0;
  }

  private createTerminal(): void {
    this.pause();
    this.disposeTerminal();
    const cast = this.cast;
    this.termCast = cast;
    this.time = cast ? Math.max(0, Math.min(cast.duration, this.startTime)) : 0;
    this.targetTime = this.time;
    if (!cast || !this.termEl) return;
    this.run = { stream: cast.stream?.id ?? null, base: null, startTime: 0, events: cast.events, chars: charsOf(cast.events), next: cast.stream?.next ?? null, replayable: true };
    // The host clamps sizes already (castView); a recording never makes a bigger terminal here.
    this.size = { cols: Math.min(cast.cols, MAX_TERM_COLS), rows: Math.min(cast.rows, MAX_TERM_ROWS) };
    const fontFamily = getComputedStyle(this).getPropertyValue('--vscode-editor-font-family').trim() || 'monospace';
    const term = new Terminal({
      cols: this.size.cols,
      rows: this.size.rows,
      fontFamily,
      fontSize: this.fontSizeFor(fontFamily),
      lineHeight: 1,
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'outline',
      scrollback: 5000,
      theme: vscodeTheme(this),
      allowProposedApi: false,
      // OSC 8 hyperlinks of the recording: not xterm's confirm() + window.open, but the host's
      // vscode.env.openExternal (VS Code's own prompt for untrusted domains). Other schemes do nothing.
      linkHandler: {
        activate: (event: MouseEvent, uri: string) => {
          event.preventDefault();
          if (isOpenableUrl(uri)) openUrl(uri);
        },
        allowNonHttpProtocols: true,
      },
    });
    // A player: no key reaches xterm (it neither handles nor cancels them), so they bubble to the timeline.
    term.attachCustomKeyEventHandler(() => false);
    term.open(this.termEl);
    this.term = term;
    this.measuredCell = null;
    this.lastFit = '';
    // Once drawn, measure the cell size as rendered (once) and fit again with it rather than the estimate.
    requestAnimationFrame(() => {
      if (this.term !== term) return;
      this.measureCell();
      this.fit(true);
    });
    if (!this.resizeObserver && this.screenEl) {
      this.resizeObserver = new ResizeObserver(() => this.fit());
      this.resizeObserver.observe(this.screenEl);
    }
    this.sync();
  }

  private readonly onWindowResize = (): void => this.fit();

  /** Cell width and height per px of font size, as rendered (null until the terminal has been drawn). */
  private measuredCell: { w: number; h: number } | null = null;

  private measureCell(): void {
    const term = this.term;
    const screen = this.renderRoot.querySelector<HTMLElement>('.xterm-screen');
    const fontSize = term?.options.fontSize;
    if (!term || !screen || !fontSize || !screen.offsetWidth || !screen.offsetHeight) return;
    this.measuredCell = { w: screen.offsetWidth / term.cols / fontSize, h: screen.offsetHeight / term.rows / fontSize };
  }

  /** Font size at which the recorded terminal fits the panel's width and a share of the window height. */
  private fontSizeFor(fontFamily: string): number {
    const width = (this.screenEl?.clientWidth ?? 800) - 16;
    const cellW = this.measuredCell?.w ?? monoCharRatio(fontFamily);
    const cellH = this.measuredCell?.h ?? LINE_RATIO;
    const byWidth = width / (this.size.cols * cellW);
    const byHeight = this.fitMode === 'width' ? Infinity : (window.innerHeight * this.heightShare) / (this.size.rows * cellH);
    const size = Math.floor(Math.min(byWidth, byHeight, MAX_FONT) * 2) / 2;
    return Math.max(MIN_FONT, size);
  }

  /** What the last fit was computed from: fitting again from the same inputs is skipped. */
  private lastFit = '';

  /**
   * Sets the font size from the panel width, window height, height share and terminal size. Only
   * those inputs count (not the terminal's own rendered size, which the font changes), so a resize
   * observed because of a new font size does not fit again: no feedback loop between the two.
   */
  private fit(force = false): void {
    const term = this.term;
    if (!term || this.collapsed) return;
    const key = `${this.screenEl?.clientWidth ?? 0}|${window.innerHeight}|${this.heightShare}|${this.fitMode}|${this.size.cols}x${this.size.rows}`;
    if (!force && key === this.lastFit) return;
    this.lastFit = key;
    const size = this.fontSizeFor(term.options.fontFamily ?? 'monospace');
    if (size !== term.options.fontSize) term.options.fontSize = size;
  }

  private setTime(t: number): void {
    this.time = t;
    this.targetTime = t;
    this.sync();
  }

  /**
   * Brings the terminal to `targetTime`, one batch at a time (writes are asynchronous; a seek that
   * arrives meanwhile is picked up by the loop, and only the latest target is rendered).
   */
  private sync(): void {
    if (this.busy || !this.term || !this.termCast) return;
    this.busy = true;
    this.waiting = false;
    void this.drain().finally(() => {
      this.busy = false;
      // Waiting for a window: its answer (receiveWindow) syncs again.
      if (this.term && this.shownTime !== this.targetTime && !this.waiting) this.sync();
      else this.followCursor();
    });
  }

  private async drain(): Promise<void> {
    const term = this.term;
    const cast = this.termCast;
    if (!term || !cast) return;
    while (this.term === term && this.run && this.shownTime !== this.targetTime) {
      const t = this.targetTime;
      const run = this.run;
      const events = run.events;
      const last = events.length ? events[events.length - 1][0] : run.startTime;
      const back = this.needReset || (this.written > 0 && events[this.written - 1][0] > t);
      // The run tells the screen at `t` when `t` is in it (and, going back, when it can be replayed).
      const inRun = t >= run.startTime && (run.next === null || t < last) && (!back || run.replayable || this.needReset);
      if (!inRun) {
        // (A recording given whole always holds `t`; never spin on one that would not.)
        this.waiting = true;
        if (run.stream === null) return;
        const ahead = !back && t >= run.startTime && t - last <= FORWARD_SECONDS;
        // With a window asked for already, its answer syncs again (and asks for what `t` then needs).
        if (!this.pending) this.ask(ahead ? run.next : null, ahead ? null : t);
        return;
      }
      if (back) {
        // Start over from the run's start: a fresh terminal, then its snapshot when it has one.
        term.reset();
        const cols = Math.min(run.base?.cols ?? cast.cols, MAX_TERM_COLS);
        const rows = Math.min(run.base?.rows ?? cast.rows, MAX_TERM_ROWS);
        if (term.cols !== cols || term.rows !== rows) term.resize(cols, rows);
        this.size = { cols, rows };
        this.fit();
        this.written = 0;
        this.needReset = false;
        if (run.base) await new Promise<void>((resolve) => term.write(run.base!.screen, resolve));
        if (this.term !== term || this.run !== run) continue;
      }
      const upTo = eventsUpTo(events, t);
      for (const op of termOps(events, this.written, upTo)) {
        if (op.kind === 'write') {
          await new Promise<void>((resolve) => term.write(op.data, resolve));
        } else {
          term.resize(op.cols, op.rows);
          this.size = { cols: op.cols, rows: op.rows };
          this.fit();
        }
        if (this.term !== term) return;
      }
      if (this.run !== run) continue;
      this.written = upTo;
      this.shownTime = t;
      // Playing towards the run's end: the next window is asked for before it is needed.
      if (run.next !== null && !this.pending && events.length - upTo < events.length / 2) this.ask(run.next, null);
    }
  }

  /** In `width` fit, scrolls the terminal box so the cursor's row is in view (where the action is). */
  private followCursor(): void {
    const term = this.term;
    const box = this.screenEl;
    const screen = this.renderRoot.querySelector<HTMLElement>('.xterm-screen');
    if (!term || !box || !screen || this.fitMode !== 'width' || this.collapsed) return;
    const rowH = screen.offsetHeight / term.rows;
    if (!rowH) return;
    // Layout boxes, not offsetTop: the box may be the screen's offset parent or not (it depends on what the dock holds).
    const top = screen.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop + term.buffer.active.cursorY * rowH;
    const margin = 2 * rowH;
    if (top + rowH + margin > box.scrollTop + box.clientHeight) box.scrollTop = top + rowH + margin - box.clientHeight;
    else if (top - margin < box.scrollTop) box.scrollTop = Math.max(0, top - margin);
  }

  private toggleFit(): void {
    this.fitMode = this.fitMode === 'screen' ? 'width' : 'screen';
    this.emitPrefs();
  }

  private readonly tick = (): void => {
    if (!this.playing) return;
    const t = this.playFrom.time + ((performance.now() - this.playFrom.wall) / 1000) * this.speed;
    if (t >= this.duration) {
      this.setTime(this.duration);
      this.pause();
    } else {
      this.setTime(t);
      this.raf = requestAnimationFrame(this.tick);
    }
    this.emitTime('play');
  };

  private emitTime(cause: 'play' | 'scrub'): void {
    this.dispatchEvent(new CustomEvent('player-time', { detail: { time: this.time, cause }, bubbles: true, composed: true }));
  }

  private emitPrefs(): void {
    const detail = { speed: this.speed, collapsed: this.collapsed, heightShare: this.heightShare, fitMode: this.fitMode };
    this.dispatchEvent(new CustomEvent('player-prefs', { detail, bubbles: true, composed: true }));
  }

  /** Dragging the bar under the terminal sizes it (the font follows). */
  private onResizeStart(e: PointerEvent): void {
    const handle = e.currentTarget as HTMLElement;
    const screen = this.screenEl;
    if (!screen || e.button !== 0) return;
    e.preventDefault();
    handle.setPointerCapture(e.pointerId);
    handle.classList.add('dragging');
    const top = screen.getBoundingClientRect().top;
    const move = (ev: PointerEvent): void => {
      const share = (ev.clientY - top) / window.innerHeight;
      this.heightShare = Math.round(Math.max(MIN_HEIGHT_SHARE, Math.min(MAX_HEIGHT_SHARE, share)) * 1000) / 1000;
    };
    const up = (): void => {
      handle.classList.remove('dragging');
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
      this.emitPrefs();
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  }

  private onScrub(e: Event): void {
    const t = Number((e.target as HTMLInputElement).value);
    if (!Number.isFinite(t)) return;
    this.seek(t);
    this.emitTime('scrub');
  }

  private onSeekKey(e: KeyboardEvent): void {
    const big = e.shiftKey || e.key === 'PageUp' || e.key === 'PageDown' ? 10 : 1;
    let t: number | null = null;
    switch (e.key) {
      case 'ArrowLeft':
      case 'ArrowDown':
      case 'PageDown':
        t = this.time - big;
        break;
      case 'ArrowRight':
      case 'ArrowUp':
      case 'PageUp':
        t = this.time + big;
        break;
      case 'Home':
        t = 0;
        break;
      case 'End':
        t = this.duration;
        break;
    }
    if (t === null) return;
    e.preventDefault();
    this.seek(t);
    this.emitTime('scrub');
  }

  private onSpeed(e: Event): void {
    const v = Number((e.target as HTMLSelectElement).value);
    if (!(PLAYER_SPEEDS as readonly number[]).includes(v)) return;
    if (this.playing) this.playFrom = { wall: performance.now(), time: this.time };
    this.speed = v;
    this.emitPrefs();
  }

  private onMarkClick(e: Event, index: number): void {
    e.stopPropagation();
    this.dispatchEvent(new CustomEvent('mark-select', { detail: { index }, bubbles: true, composed: true }));
  }

  private toggleCollapsed(): void {
    this.collapsed = !this.collapsed;
    this.emitPrefs();
  }

  private fileName(): string {
    const parts = this.path.split(/[\\/]/);
    return parts.slice(-2).join('/');
  }

  private renderControls(cast: CastView): TemplateResult {
    const d = cast.duration;
    const pct = (t: number): string => `${d > 0 ? Math.min(100, Math.max(0, (t / d) * 100)) : 0}%`;
    const atEnd = !this.playing && d > 0 && this.time >= d - 1e-6;
    return html`<div class="bar controls">
      <button class="icon play" title=${this.playing ? 'Pause (p)' : atEnd ? 'Play again (p)' : 'Play (p)'} aria-label=${this.playing ? 'Pause' : 'Play'}
        @click=${() => this.toggle()}>${this.playing ? PAUSE_ICON : atEnd ? RESTART_ICON : PLAY_ICON}</button>
      <span class="clock"><span class="now">${formatClock(this.time)}</span><span class="total"> / ${formatClock(d)}</span></span>
      <div class="seek">
        <div class="marks">
          ${guard([this.marks, this.selectedStep, d], () => this.marks.map(
            (m) => html`<button
              class="mark ${m.index === this.selectedStep ? 'selected' : ''} ${m.ref === 1 ? 'ref-good' : m.ref === -1 ? 'ref-bad' : ''}"
              data-step=${m.index}
              tabindex="-1"
              title=${`${m.label}\nat ${formatClock(m.time)}`}
              style=${cssProps({ left: pct(m.time) })}
              @click=${(e: Event) => this.onMarkClick(e, m.index)}
            ></button>`,
          ))}
        </div>
        <input
          class="seek-input"
          type="range"
          min="0"
          max=${String(d)}
          step="any"
          aria-label="Recording time"
          aria-valuetext=${`${formatClock(this.time)} of ${formatClock(d)}`}
          .value=${String(this.time)}
          style=${cssProps({ '--progress': pct(this.time) })}
          @input=${this.onScrub}
          @keydown=${this.onSeekKey}
        />
      </div>
      <select class="speed" title="Playback speed" aria-label="Playback speed" @change=${this.onSpeed}>
        ${PLAYER_SPEEDS.map((s) => html`<option value=${String(s)} ?selected=${s === this.speed}>${s}×</option>`)}
      </select>
    </div>`;
  }

  override render(): TemplateResult {
    const cast = this.cast;
    const size = cast && this.term ? `${this.size.cols}×${this.size.rows}` : '';
    return html`<div class="bar top">
        <span class="heading">Terminal</span>
        <span class="file" title=${this.path}>${this.fileName()}</span>
        ${cast?.title ? html`<span class="title">${cast.title}</span>` : nothing}
        ${size ? html`<span class="size" title="terminal size (columns × rows)">${size}</span>` : nothing}
        <span class="spacer"></span>
        ${cast && !this.collapsed
          ? html`<button class="link fit" title=${this.fitMode === 'screen'
                ? 'Bigger text: fit the terminal to the width and scroll it, following the cursor'
                : 'Show the whole terminal: fit it to the width and the height'}
              @click=${this.toggleFit}>${this.fitMode === 'screen' ? 'fit width' : 'fit screen'}</button>`
          : nothing}
        ${cast
          ? html`<button class="link collapse" title=${this.collapsed ? 'Show the terminal' : 'Hide the terminal (the controls stay)'}
              @click=${this.toggleCollapsed}>${this.collapsed ? 'show terminal' : 'hide terminal'}</button>`
          : nothing}
      </div>
      ${this.note ? html`<p class="note">${this.note}</p>` : nothing}
      ${this.error
        ? html`<div class="error" role="alert">Cannot play the recording: ${this.error}</div>`
        : cast
          ? nothing
          : html`<div class="loading">Loading the recording…</div>`}
      <div class="screen ${this.fitMode === 'width' ? 'fit-width' : ''}" ?hidden=${!cast}
        style=${cssProps({ 'max-height': this.fitMode === 'width' ? `${Math.round(this.heightShare * 1000) / 10}vh` : null })}>
        <div class="term"></div>
      </div>
      ${cast
        ? html`<div class="resizer" role="separator" aria-orientation="horizontal" title="Drag to size the terminal" @pointerdown=${this.onResizeStart}></div>
            ${this.renderControls(cast)}`
        : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-player': TiPlayer;
  }
}
