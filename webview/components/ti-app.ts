/**
 * `<ti-app>`: the timeline, the root of the webview app. It holds the timeline state
 * (timeline/state.ts), hands every host message to `applyHostMessage` (timeline/hostMessages.ts)
 * and every user action to the changes of timeline/update.ts, runs the effects they return
 * (posting through timeline/actions.ts, scrolling through timeline/scrolling.ts, the player), and
 * renders the parts: the header, the dock (Follow toggle, label row, step scores, replay bar,
 * terminal player), the step list and the key overlay. UI intent (selection, expansion, scroll
 * place, player settings) is persisted with `setState`: a hidden webview is torn down.
 *
 * Keys come from one table (src/shared/keymap.ts), which also drives the key overlay, the hint
 * line and the host's labelling commands (the host sends `runLabelAction`). A label key writes at once
 * (the host appends it to the journal), so nothing is pending and nothing can be lost by moving on.
 *
 * Live follow: a file that grows gets `rolloutUpdate` messages (new steps appended, changed last
 * steps replaced; the selection, expanded cards, scroll position and labels stay). Follow keeps the
 * newest step in view: off when a rollout opens; on with the button, the Toggle Follow command,
 * End / G, or scrolling down to the end; off again when the user scrolls up or moves to an earlier
 * step. It is persisted with the view.
 *
 * A rollout with a terminal recording gets a `<ti-player>` docked above the steps. Selection and
 * playback are synced both ways: selecting a step seeks the player to the step's `castTime`; while
 * the recording plays (or is scrubbed) the step running at the player's time gets selected.
 */
import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { customElement } from 'lit/decorators.js';
import { bindingFor } from '../../src/shared/keymap';
import { PLAYER_SPEEDS, type RolloutMessage } from '../../src/shared/protocol';
import { stepAtTime } from '../cast';
import { loadState, onHostMessage, saveState } from '../ipc';
import { StepStore } from '../stepStore';
import { topCard } from '../cardAnchor';
import * as actions from '../timeline/actions';
import { applyHostMessage } from '../timeline/hostMessages';
import { createState, labelIndexOf, marksOf, persistedState, playerStartTime, replayFor, rolloutMsg, type Effect, type TimelineState } from '../timeline/state';
import { keyAction, noteDone, playerTime, select, setFollow, toggleExpand } from '../timeline/update';
import type { PlayerPrefsEvent, PlayerTimeEvent } from './player/types';
import type { TiPlayer } from './ti-player';
import type { TiStepCard } from './ti-step-card';
import { followStyles } from './timeline/ti-follow-toggle';
import { headerStyles } from './timeline/ti-timeline-header';
import { keysStyles } from './timeline/ti-keys-overlay';
import { labelRowStyles } from './timeline/ti-label-row';
import { listStyles, type TiStepList } from './timeline/ti-step-list';
import { loadErrorStyles } from './timeline/ti-load-error';
import { partStyles } from './timeline/lightElement';
import { TimelineScroll } from './timeline/scrolling';
import './ti-player';
import './ti-replay-bar';
import './ti-heatstrip';
import './ti-scrollmarks';
import './timeline/ti-follow-toggle';
import './timeline/ti-timeline-header';
import './timeline/ti-keys-overlay';
import './timeline/ti-label-row';
import './timeline/ti-step-list';
import './timeline/ti-load-error';

/** Whether a key event comes from a place that takes typing (a note editor, the picker). */
function isEditable(e: Event): boolean {
  for (const el of e.composedPath()) {
    if (!(el instanceof HTMLElement)) continue;
    const tag = el.tagName;
    // The player's seek bar handles its own arrows (and marks them handled); letters still count here.
    if (tag === 'INPUT' && (el as HTMLInputElement).type === 'range') continue;
    // xterm's hidden textarea: the player takes no input, so keys typed there are the timeline's.
    if (tag === 'TEXTAREA' && el.classList.contains('xterm-helper-textarea')) continue;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable) return true;
    if (tag.startsWith('VSCODE-') && (tag.includes('SELECT') || tag.includes('TEXT'))) return true;
  }
  return false;
}

/** Whether a key event's target is a button, link or summary (Enter and Space keep their own meaning there). */
function isOnControl(e: Event): boolean {
  return e.composedPath().some((el) => el instanceof HTMLButtonElement || el instanceof HTMLAnchorElement || (el instanceof HTMLElement && (el.tagName === 'SUMMARY' || el.tagName === 'VSCODE-BUTTON')));
}

const appStyles = css`
    :host {
      display: block;
      box-sizing: border-box;
      max-width: 1100px;
      margin: 0 auto;
      padding: 12px 16px 40vh 16px;
      color: var(--vscode-foreground);
      font-family: var(--vscode-font-family, sans-serif);
      font-size: var(--vscode-font-size, 13px);
    }
    kbd {
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: 10px;
      padding: 0 4px;
      border: 1px solid var(--vscode-widget-border, rgba(128, 128, 128, 0.4));
      border-radius: 3px;
    }
    .status {
      padding: 24px 0;
      color: var(--vscode-descriptionForeground);
    }
    .dock {
      position: sticky;
      top: 0;
      z-index: 2;
      margin: 0 -4px 8px -4px;
      padding: 6px 4px 6px 4px;
      background: var(--vscode-editor-background);
      box-shadow: 0 6px 6px -6px var(--vscode-widget-shadow, rgba(0, 0, 0, 0.36));
    }
    .dock ti-player {
      display: block;
      margin-top: 8px;
    }
`;

@customElement('ti-app')
export class TiApp extends LitElement {
  static override styles = [partStyles, appStyles, headerStyles, listStyles, loadErrorStyles, labelRowStyles, keysStyles, followStyles];

  /** Full steps of a sliced (large) rollout, asked for as their cards come into view. */
  readonly stepStore = new StepStore({ post: (m) => actions.stepSlice(m) });
  /** The timeline state: changed only by applyHostMessage and the changes of timeline/update.ts. */
  readonly state: TimelineState = createState(loadState(), this.stepStore);
  private readonly scrolling = new TimelineScroll({
    state: this.state,
    root: () => this.renderRoot,
    rendered: () => this.updateComplete,
    persist: () => this.persist(),
    setFollow: (on) => this.run(setFollow(this.state, on)),
  });
  private unlisten: (() => void) | null = null;
  private dockObserver: ResizeObserver | null = null;
  /** Counts the root's renders, so the step list renders with it (`TiStepList.revision`). */
  private revision = 0;

  override connectedCallback(): void {
    super.connectedCallback();
    this.unlisten = onHostMessage((m) => this.run(applyHostMessage(this.state, m)));
    window.addEventListener('keydown', this.onKeyDown);
    this.scrolling.connect();
    actions.ready(this.state.restored);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unlisten?.();
    window.removeEventListener('keydown', this.onKeyDown);
    this.scrolling.disconnect();
    this.dockObserver?.disconnect();
    this.dockObserver = null;
  }

  /** Runs the effects of a change of the state, in order, and renders the state. */
  private run(effects: readonly Effect[]): void {
    let persist = false;
    for (const e of effects) {
      if (actions.runPostEffect(e)) continue;
      switch (e.kind) {
        case 'persist':
          persist = true;
          break;
        case 'revealEnd':
          this.scrolling.revealEnd();
          break;
        case 'seekPlayer':
          this.seekPlayerTo(e.index);
          break;
        case 'togglePlayer':
          this.player?.toggle();
          break;
        case 'castWindow':
          this.player?.receiveWindow(e.msg);
          break;
        case 'keepInView':
          this.scrolling.cardAnchor.keepInView(this.state.selected);
          break;
        case 'wantRange':
          if (e.afterRender) void this.updateComplete.then(() => this.list?.updateComplete).then(() => this.list?.wantRange());
          else this.list?.wantRange();
          break;
      }
    }
    if (persist) this.persist();
    this.requestUpdate();
  }

  private persist(): void {
    const sliced = !!rolloutMsg(this.state)?.sliced;
    saveState(persistedState(this.state, { scrollY: window.scrollY, top: sliced && window.scrollY > 0 ? topCard(this.renderRoot) : null }));
  }

  private get player(): TiPlayer | null {
    return this.renderRoot.querySelector('ti-player');
  }

  private get list(): TiStepList | null {
    return this.renderRoot.querySelector('ti-step-list');
  }

  /** Seeks the player to step `index`'s time in the recording (when it has one). */
  private seekPlayerTo(index: number): void {
    const r = rolloutMsg(this.state);
    const t = r?.rollout.steps[index]?.castTime;
    const player = this.player;
    if (!r || typeof t !== 'number' || !player || !player.duration) return;
    player.seek(t);
    this.state.playerStep = stepAtTime(marksOf(r.rollout).marks, player.currentTime);
  }

  private readonly onPlayerTime = (e: PlayerTimeEvent): void => this.run(playerTime(this.state, e.detail.time));

  private readonly onPlayerPrefs = (e: PlayerPrefsEvent): void => {
    const p = this.state.player;
    if ((PLAYER_SPEEDS as readonly number[]).includes(e.detail.speed)) p.speed = e.detail.speed;
    p.collapsed = e.detail.collapsed;
    p.height = e.detail.heightShare;
    p.fit = e.detail.fitMode;
    this.persist();
  };

  private readonly onSelectStep = (e: CustomEvent<{ index: number }>): void => this.run(select(this.state, e.detail.index, 'center'));

  private readonly onCardClick = (e: MouseEvent): void => {
    const card = (e.composedPath().find((el) => el instanceof HTMLElement && el.tagName === 'TI-STEP-CARD') ?? null) as TiStepCard | null;
    if (!card) return;
    // Selecting text inside a card should not count as a click that moves the selection.
    const sel = window.getSelection();
    if (sel && !sel.isCollapsed && card.step.index === this.state.selected) return;
    this.run(select(this.state, card.step.index, null));
  };

  private readonly onKeyDown = (e: KeyboardEvent): void => {
    if (isEditable(e) || !rolloutMsg(this.state)) return;
    const hit = bindingFor(e);
    // Undo / redo with Ctrl (Cmd): VS Code's webview frame marks these handled before this listener
    // runs (and gives them to the workbench, whose undo/redo do nothing in this read-only editor).
    const chord = (e.ctrlKey || e.metaKey) && !e.altKey;
    if (!chord) {
      if (e.defaultPrevented || e.altKey) return;
      this.state.flash = null;
    }
    const effects = hit ? keyAction(this.state, hit.binding.action, hit.key, { onControl: isOnControl(e), canPlay: !!this.player?.duration }) : null;
    if (effects) e.preventDefault();
    this.run(effects ?? []);
  };

  protected override updated(): void {
    this.watchDock();
    // The parts render after the root: scroll once the list has.
    void (this.list?.updateComplete ?? Promise.resolve()).then(() => this.scrolling.afterRender());
  }

  /** Keeps `--dock-height` (the sticky dock's height) current, so revealed cards land below it. */
  private watchDock(): void {
    const dock = this.renderRoot.querySelector<HTMLElement>('.dock');
    if (!dock) {
      this.style.removeProperty('--dock-height');
      return;
    }
    if (!this.dockObserver) {
      this.dockObserver = new ResizeObserver((entries) => {
        for (const en of entries) this.style.setProperty('--dock-height', `${Math.ceil((en.target as HTMLElement).offsetHeight)}px`);
      });
    }
    this.dockObserver.disconnect();
    this.dockObserver.observe(dock);
  }

  private renderPlayer(m: RolloutMessage): TemplateResult | typeof nothing {
    const s = this.state;
    const c = s.cast;
    if (!c || c.rolloutId !== m.rollout.id) return nothing;
    const msg = c.msg;
    return html`<ti-player
      .cast=${msg?.cast ?? null}
      .path=${c.path}
      .error=${msg?.error ?? null}
      .note=${c.progress ? c.progress.note : (msg?.note ?? null)}
      .streamDuration=${c.progress?.duration ?? null}
      .marks=${marksOf(m.rollout).view}
      .selectedStep=${s.selected}
      .startTime=${playerStartTime(s, m.rollout)}
      .speed=${s.player.speed}
      .heightShare=${s.player.height}
      .fitMode=${s.player.fit}
      ?collapsed=${s.player.collapsed}
      @player-time=${this.onPlayerTime}
      @player-prefs=${this.onPlayerPrefs}
      @mark-select=${this.onSelectStep}
    ></ti-player>`;
  }

  /** The step scores' heat strip (in the dock) and the scrollbar marks of low-scored steps. */
  private renderScores(m: RolloutMessage): TemplateResult | typeof nothing {
    const sm = this.state.scoresMsg;
    if (!sm || sm.rolloutId !== m.rollout.id) return nothing;
    return html`<ti-heatstrip .steps=${m.rollout.steps} .scores=${sm} .selected=${this.state.selected} @select-step=${this.onSelectStep}></ti-heatstrip>
      <ti-scrollmarks .scores=${sm} .stepCount=${m.rollout.steps.length} .selected=${this.state.selected} .cards=${() => this.renderRoot.querySelectorAll<HTMLElement>('ti-step-card')} @select-step=${this.onSelectStep}></ti-scrollmarks>`;
  }

  private renderDock(m: RolloutMessage): TemplateResult {
    const s = this.state;
    const replay = replayFor(s, m);
    return html`<div class="dock">${m.live
      ? html`<ti-follow-toggle .live=${m.live} .follow=${s.follow} .unseen=${s.unseen} @follow-change=${(e: CustomEvent<{ on: boolean }>) => this.run(setFollow(s, e.detail.on))}></ti-follow-toggle>`
      : nothing}<ti-label-row .rollout=${m.rollout} .labelsMsg=${s.labelsMsg} .sending=${s.sentChanges.length} .index=${labelIndexOf(s)} .selected=${s.selected} .flash=${s.flash} @select-step=${this.onSelectStep}></ti-label-row>${this.renderScores(m)}${replay
      ? html`<ti-replay-bar .state=${replay} .rolloutIndex=${m.rolloutIndex}></ti-replay-bar>`
      : nothing}${this.renderPlayer(m)}</div>`;
  }

  override render(): TemplateResult {
    const s = this.state;
    switch (s.view.kind) {
      case 'waiting':
        return html`<div class="status">Loading…</div>`;
      case 'loading':
        return html`<div class="status">Loading ${s.view.file}…</div>`;
      case 'error':
        return html`<ti-load-error .msg=${s.view.msg}></ti-load-error>`;
      case 'rollout': {
        const m = s.view.msg;
        return html`<ti-timeline-header .msg=${m}></ti-timeline-header>
          ${this.renderDock(m)}
          <ti-step-list .state=${s} .msg=${m} .revision=${++this.revision} @click=${this.onCardClick}
            @note-done=${(e: CustomEvent<{ index: number; note?: string | null }>) => this.run(noteDone(s, e.detail.index, e.detail.note))}
            @toggle-expand=${(e: CustomEvent<{ index: number }>) => this.run(toggleExpand(s, e.detail.index))}></ti-step-list>${s.showKeys ? html`<ti-keys-overlay></ti-keys-overlay>` : nothing}`;
      }
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-app': TiApp;
  }
}
