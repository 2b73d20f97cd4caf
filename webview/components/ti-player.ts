/**
 * `<ti-player>`: plays a rollout's terminal recording (asciicast) in xterm.js, as the terminal
 * showed it. Play/pause, speed, a seek bar with a mark per step (at `Step.castTime`), current time.
 *
 * The player owns the clock. `seek(t)` (the timeline calls it when a step is selected) renders the
 * terminal state at `t`: forward by writing the events in between, backward by resetting the
 * terminal and replaying every event from the start in one write. While playing, and while the
 * user scrubs, it fires `player-time` so the timeline can select the step running at that time;
 * it never fires for `seek()` calls, so a selection does not bounce back.
 *
 * It is a player, not a terminal: nothing typed reaches anything (stdin is disabled and xterm
 * ignores every key), so the timeline's keys keep working while the terminal has focus.
 *
 * CSP: xterm.css is adopted as a constructed stylesheet; the `<style>` elements xterm creates at
 * runtime carry the page nonce and its inline colours go through CSSOM (esbuild.mjs patches both).
 */
import { Terminal, type ITheme } from '@xterm/xterm';
import xtermCss from '@xterm/xterm/css/xterm.css';
import { LitElement, css, html, nothing, unsafeCSS, type PropertyValues, type TemplateResult } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { guard } from 'lit/directives/guard.js';
import { PLAYER_SPEEDS, isOpenableUrl } from '../../src/shared/protocol';
import { MAX_TERM_COLS, MAX_TERM_ROWS, type CastView } from '../../src/shared/castProtocol';
import { post } from '../ipc';
import { eventsUpTo, formatClock, termOps } from '../cast';
import { cssProps } from '../cssProps';

/** A step's mark on the seek bar. */
export interface PlayerMark {
  index: number;
  time: number;
  /** Tooltip: step number and what it did. */
  label: string;
  /** Reference label of the step (+1 / 0 / −1), to colour its mark; null when none. */
  ref: 1 | 0 | -1 | null;
}

/** `player-time`: the clock moved by playback or by the user (never by `seek()`). */
export type PlayerTimeEvent = CustomEvent<{ time: number; cause: 'play' | 'scrub' }>;
/** `player-prefs`: speed, collapsed or height changed by the user (the timeline persists them). */
export type PlayerPrefsEvent = CustomEvent<{ speed: number; collapsed: boolean; heightShare: number; fitMode: PlayerFit }>;

/**
 * How the recorded terminal is sized: `width` (the default) fits the font to the width only and
 * scrolls the terminal within the height share, following the cursor (readable text for the tall
 * 160×40 tmux sessions of Terminal-Bench); `screen` shows all of it at once (font fitted to the
 * width and the height share).
 */
export type PlayerFit = 'screen' | 'width';

/** Font size bounds (px) when fitting the recorded terminal into the panel. */
const MIN_FONT = 7;
const MAX_FONT = 15;
/** Bounds of the share of the window height the terminal may take (the user drags between them). */
export const MIN_HEIGHT_SHARE = 0.15;
export const MAX_HEIGHT_SHARE = 0.85;
/** Row height / font size of xterm's DOM renderer with lineHeight 1 (measured for DejaVu Sans Mono). */
const LINE_RATIO = 1.2;

const ANSI_KEYS: [keyof ITheme, string][] = [
  ['black', 'ansiBlack'],
  ['red', 'ansiRed'],
  ['green', 'ansiGreen'],
  ['yellow', 'ansiYellow'],
  ['blue', 'ansiBlue'],
  ['magenta', 'ansiMagenta'],
  ['cyan', 'ansiCyan'],
  ['white', 'ansiWhite'],
  ['brightBlack', 'ansiBrightBlack'],
  ['brightRed', 'ansiBrightRed'],
  ['brightGreen', 'ansiBrightGreen'],
  ['brightYellow', 'ansiBrightYellow'],
  ['brightBlue', 'ansiBrightBlue'],
  ['brightMagenta', 'ansiBrightMagenta'],
  ['brightCyan', 'ansiBrightCyan'],
  ['brightWhite', 'ansiBrightWhite'],
];

/** The terminal colours of the VS Code theme (the CSS variables a webview gets), as an xterm theme. */
function vscodeTheme(el: Element): ITheme {
  const cs = getComputedStyle(el);
  const v = (name: string): string | undefined => cs.getPropertyValue(`--vscode-${name}`).trim() || undefined;
  const theme: ITheme = {
    background: v('terminal-background') ?? v('panel-background') ?? v('editor-background') ?? '#1e1e1e',
    foreground: v('terminal-foreground') ?? v('editor-foreground') ?? '#cccccc',
    cursor: v('terminalCursor-foreground') ?? v('editorCursor-foreground'),
    selectionBackground: v('terminal-selectionBackground') ?? v('editor-selectionBackground'),
    scrollbarSliderBackground: v('scrollbarSlider-background'),
    scrollbarSliderHoverBackground: v('scrollbarSlider-hoverBackground'),
    scrollbarSliderActiveBackground: v('scrollbarSlider-activeBackground'),
  };
  for (const [key, name] of ANSI_KEYS) {
    const c = v(`terminal-${name}`);
    if (c) (theme as Record<string, string>)[key] = c;
  }
  return theme;
}

let charRatio: number | null = null;
/** Cell width / font size of the monospace font (measured once on a canvas). */
function monoCharRatio(fontFamily: string): number {
  if (charRatio === null) {
    const ctx = document.createElement('canvas').getContext('2d');
    if (ctx) {
      ctx.font = `100px ${fontFamily}`;
      charRatio = ctx.measureText('W'.repeat(10)).width / 1000 || 0.6;
    } else {
      charRatio = 0.6;
    }
  }
  return charRatio;
}

const PLAY_ICON = html`<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2.5v11l9-5.5z" fill="currentColor"></path></svg>`;
const PAUSE_ICON = html`<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2.5h3v11H4zM9 2.5h3v11H9z" fill="currentColor"></path></svg>`;
const RESTART_ICON = html`<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M8 3a5 5 0 1 1-4.9 6h1.55A3.5 3.5 0 1 0 8 4.5V7L4.5 3.75 8 .5z" fill="currentColor"></path></svg>`;

@customElement('ti-player')
export class TiPlayer extends LitElement {
  static override styles = [
    unsafeCSS(xtermCss),
    css`
      :host {
        display: block;
        border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, rgba(128, 128, 128, 0.35)));
        border-radius: 4px;
        background: var(--vscode-editorWidget-background, var(--vscode-editor-background));
        overflow: hidden;
        font-size: 12px;
      }
      .bar {
        display: flex;
        align-items: center;
        gap: 6px 10px;
        padding: 4px 8px;
        min-height: 24px;
        color: var(--vscode-descriptionForeground);
        user-select: none;
      }
      .bar.top {
        border-bottom: 1px solid var(--vscode-widget-border, rgba(128, 128, 128, 0.25));
        font-size: 11px;
      }
      :host([collapsed]) .bar.top {
        border-bottom: none;
      }
      .heading {
        font-weight: 600;
        text-transform: uppercase;
        letter-spacing: 0.06em;
        font-size: 10px;
        color: var(--vscode-foreground);
      }
      .file {
        font-family: var(--vscode-editor-font-family, monospace);
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
        min-width: 0;
      }
      .spacer {
        flex: 1;
      }
      .note {
        margin: 0;
        padding: 4px 8px;
        font-size: 11px;
        color: var(--vscode-editorWarning-foreground, #cca700);
        border-bottom: 1px solid var(--vscode-widget-border, rgba(128, 128, 128, 0.25));
      }
      .error {
        padding: 10px 12px;
        color: var(--vscode-errorForeground, #f48771);
        overflow-wrap: anywhere;
      }
      .loading {
        padding: 10px 12px;
      }
      .screen {
        background: var(--vscode-terminal-background, var(--vscode-panel-background, var(--vscode-editor-background)));
        padding: 6px 8px;
        overflow-x: auto;
        overflow-y: hidden;
        text-align: left;
      }
      .screen.fit-width {
        overflow-y: auto;
      }
      :host([collapsed]) .screen {
        display: none;
      }
      .term {
        display: inline-block;
        vertical-align: top;
        /* xterm's scrollbar and helper textarea keep their old size for a while after a font change:
           clip them, or they stretch the scrolling box below the terminal. */
        overflow: hidden;
      }
      .resizer {
        position: relative;
        height: 5px;
        cursor: ns-resize;
        touch-action: none;
        border-top: 1px solid var(--vscode-widget-border, rgba(128, 128, 128, 0.25));
      }
      .resizer::after {
        content: '';
        position: absolute;
        left: 50%;
        top: 1px;
        width: 28px;
        height: 2px;
        margin-left: -14px;
        border-radius: 1px;
        background: var(--vscode-descriptionForeground, #999);
        opacity: 0.5;
      }
      .resizer:hover,
      .resizer.dragging {
        background: var(--vscode-sash-hoverBorder, var(--vscode-focusBorder, #007fd4));
      }
      :host([collapsed]) .resizer {
        display: none;
      }
      :host([collapsed]) .controls {
        border-top: none;
      }
      button.icon {
        display: inline-flex;
        align-items: center;
        justify-content: center;
        width: 26px;
        height: 22px;
        padding: 0;
        border: 1px solid var(--vscode-button-border, transparent);
        border-radius: 3px;
        color: var(--vscode-button-foreground, #fff);
        background: var(--vscode-button-background, #0e639c);
        cursor: pointer;
      }
      button.icon:hover {
        background: var(--vscode-button-hoverBackground, #1177bb);
      }
      button.icon:focus-visible,
      button.link:focus-visible,
      select:focus-visible {
        outline: 1px solid var(--vscode-focusBorder, #007fd4);
        outline-offset: 1px;
      }
      button.icon svg {
        width: 14px;
        height: 14px;
      }
      button.link {
        font: inherit;
        color: var(--vscode-textLink-foreground);
        background: none;
        border: none;
        padding: 0 2px;
        cursor: pointer;
      }
      button.link:hover {
        text-decoration: underline;
      }
      .clock {
        font-family: var(--vscode-editor-font-family, monospace);
        font-variant-numeric: tabular-nums;
        white-space: nowrap;
        color: var(--vscode-foreground);
      }
      .clock .total {
        color: var(--vscode-descriptionForeground);
      }
      .seek {
        position: relative;
        flex: 1;
        min-width: 120px;
        height: 28px;
      }
      .marks {
        position: absolute;
        left: 7px;
        right: 7px;
        top: 0;
        height: 11px;
      }
      .mark {
        position: absolute;
        top: 0;
        width: 9px;
        height: 11px;
        margin-left: -4.5px;
        padding: 0;
        border: none;
        background: none;
        cursor: pointer;
      }
      .mark::before {
        content: '';
        position: absolute;
        left: 3.5px;
        top: 3px;
        width: 2px;
        height: 8px;
        border-radius: 1px;
        background: var(--vscode-descriptionForeground, #999);
        opacity: 0.75;
      }
      .mark.ref-good::before {
        background: var(--vscode-testing-iconPassed, #73c991);
        opacity: 1;
      }
      .mark.ref-bad::before {
        background: var(--vscode-errorForeground, #f48771);
        opacity: 1;
      }
      .mark:hover::before {
        opacity: 1;
        top: 0;
        height: 11px;
      }
      .mark.selected::before {
        background: var(--vscode-focusBorder, #007fd4);
        opacity: 1;
        top: 0;
        left: 2.5px;
        width: 4px;
        height: 11px;
      }
      input.seek-input {
        position: absolute;
        left: 0;
        right: 0;
        bottom: 1px;
        width: 100%;
        height: 14px;
        margin: 0;
        background: transparent;
        -webkit-appearance: none;
        appearance: none;
        cursor: pointer;
      }
      input.seek-input:focus {
        outline: none;
      }
      input.seek-input::-webkit-slider-runnable-track {
        height: 4px;
        border-radius: 2px;
        background: linear-gradient(
          to right,
          var(--vscode-progressBar-background, var(--vscode-focusBorder, #0078d4)) var(--progress, 0%),
          var(--vscode-scrollbarSlider-background, rgba(128, 128, 128, 0.4)) var(--progress, 0%)
        );
      }
      input.seek-input::-webkit-slider-thumb {
        -webkit-appearance: none;
        appearance: none;
        width: 12px;
        height: 12px;
        margin-top: -4px;
        border-radius: 50%;
        background: var(--vscode-foreground, #ccc);
        border: 1px solid var(--vscode-editor-background, #1e1e1e);
      }
      input.seek-input:focus-visible::-webkit-slider-thumb {
        box-shadow: 0 0 0 2px var(--vscode-focusBorder, #007fd4);
      }
      select.speed {
        font: inherit;
        font-size: 11px;
        height: 22px;
        padding: 0 2px;
        color: var(--vscode-dropdown-foreground, var(--vscode-foreground));
        background: var(--vscode-dropdown-background, transparent);
        border: 1px solid var(--vscode-dropdown-border, rgba(128, 128, 128, 0.4));
        border-radius: 3px;
        cursor: pointer;
      }
    `,
  ];

  /** The recording (null while loading or when it cannot be shown). */
  @property({ attribute: false }) cast: CastView | null = null;
  /** Absolute path of the recording (shown in the bar). */
  @property() path = '';
  @property({ attribute: false }) error: string | null = null;
  @property({ attribute: false }) note: string | null = null;
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
  /** Events [0, written) are in the terminal; the terminal shows time `shownTime`. */
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
    return this.cast?.duration ?? 0;
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
          if (isOpenableUrl(uri)) post({ type: 'openUrl', url: uri });
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
    void this.drain().finally(() => {
      this.busy = false;
      if (this.term && this.shownTime !== this.targetTime) this.sync();
      else this.followCursor();
    });
  }

  private async drain(): Promise<void> {
    const term = this.term;
    const cast = this.termCast;
    if (!term || !cast) return;
    while (this.term === term && this.shownTime !== this.targetTime) {
      const t = this.targetTime;
      const events = cast.events;
      // Going back past an event already written: start over from a fresh terminal.
      if (this.written > 0 && events[this.written - 1][0] > t) {
        term.reset();
        const cols = Math.min(cast.cols, MAX_TERM_COLS);
        const rows = Math.min(cast.rows, MAX_TERM_ROWS);
        if (term.cols !== cols || term.rows !== rows) term.resize(cols, rows);
        this.size = { cols, rows };
        this.written = 0;
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
      this.written = upTo;
      this.shownTime = t;
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
