/**
 * Replay controls in the timeline:
 * - `<ti-replay-bar>`: Start / Step / Continue / Stop / Step back / Restart / Close, the image and
 *   mode, the next step and the first divergence; or why replay is unavailable (untrusted workspace).
 * - `<ti-replay-status>`: one step's verdict in its card (same / differs / not replayable, "state
 *   may differ"), with "Run to here", "Branch from here" (a new model continues from this step,
 *   src/host/branch) and "Show diff".
 * Both post `replay` messages; the host answers with `replayState`. All text is rendered through
 * Lit text bindings (never as HTML).
 */
import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { ReplayAction, ReplayStateMessage, ReplayStepView } from '../../src/shared/replayProtocol';
import { branch, replay } from '../timeline/actions';

function send(action: ReplayAction, rolloutIndex: number, stepIndex?: number): void {
  replay(action, rolloutIndex, stepIndex);
}

const shared = css`
  button {
    font: inherit;
    font-size: 12px;
    padding: 1px 8px;
    border-radius: 2px;
    border: 1px solid var(--vscode-button-border, transparent);
    color: var(--vscode-button-secondaryForeground, var(--vscode-foreground));
    background: var(--vscode-button-secondaryBackground, rgba(128, 128, 128, 0.2));
    cursor: pointer;
  }
  button:hover:not([disabled]) {
    background: var(--vscode-button-secondaryHoverBackground, rgba(128, 128, 128, 0.3));
  }
  button.primary {
    color: var(--vscode-button-foreground, #fff);
    background: var(--vscode-button-background, #0e639c);
  }
  /* A hovered primary button stays primary (the secondary hover grey under white text read as disabled). */
  button.primary:hover:not([disabled]) {
    background: var(--vscode-button-hoverBackground, #1177bb);
  }
  button[disabled] {
    opacity: 0.5;
    cursor: default;
  }
  .st {
    font-size: 10px;
    font-weight: 600;
    line-height: 16px;
    padding: 0 6px;
    border-radius: 8px;
    border: 1px solid currentColor;
  }
  .st-same {
    color: var(--vscode-testing-iconPassed, #73c991);
  }
  .st-differs {
    color: var(--vscode-testing-iconFailed, #f14c4c);
  }
  .st-not-replayable,
  .st-pending {
    color: var(--vscode-descriptionForeground);
  }
  .st-running {
    color: var(--vscode-progressBar-background, #0e70c0);
  }
`;

/** The replay control bar above the steps. */
@customElement('ti-replay-bar')
export class TiReplayBar extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: block;
      }
      .bar {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 6px;
        padding: 4px 0;
        font-size: 12px;
      }
      .label {
        font-weight: 600;
      }
      .meta {
        color: var(--vscode-descriptionForeground);
      }
      .diverged {
        color: var(--vscode-testing-iconFailed, #f14c4c);
      }
      .message {
        color: var(--vscode-errorForeground, #f48771);
      }
    `,
  ];

  @property({ attribute: false }) state: ReplayStateMessage | null = null;
  @property({ type: Number }) rolloutIndex = 0;

  override render(): TemplateResult | typeof nothing {
    const s = this.state;
    if (!s) return nothing;
    if (!s.available) {
      return html`<div class="bar replay-bar unavailable"><span class="label">Replay</span><span class="meta reason">${s.reason}</span></div>`;
    }
    const i = this.rolloutIndex;
    const started = s.phase !== 'idle' && s.phase !== 'starting';
    const busy = s.phase === 'running' || s.phase === 'starting';
    const done = s.phase === 'done';
    const b = (action: ReplayAction, text: string, title: string, disabled: boolean, primary = false) =>
      html`<button class="replay-${action} ${primary ? 'primary' : ''}" title=${title} ?disabled=${disabled} @click=${() => send(action, i)}>${text}</button>`;
    return html`<div class="bar replay-bar" role="toolbar" aria-label="Replay">
      <span class="label">Replay</span>
      ${started
        ? nothing
        : b('start', '▶ Start', 'Start a fresh container for this rollout (asks first)', busy, true)}
      ${b('step', 'Step', 'Run the next command', busy || done, started)}
      ${b('continue', 'Continue', 'Run the remaining commands', busy || done)}
      ${b('stop', 'Stop', 'Stop after the current command', !busy)}
      ${b('stepBack', 'Step back', 'Restore the snapshot taken before the last command', busy || !s.canStepBack)}
      ${b('restart', 'Restart', 'Start over from the image', busy || !started)}
      ${started ? b('close', 'Close', 'Remove the container and its snapshots', busy) : nothing}
      <span class="meta replay-info">${s.image ? `${s.image} · ` : ''}${s.mode ?? ''} mode${s.phase !== 'idle' ? ` · ${s.phase}` : ''}${s.next !== null && started ? ` · next #${s.next + 1}` : ''}</span>
      ${s.firstDivergence !== null ? html`<span class="diverged first-divergence">first divergence at #${s.firstDivergence + 1}</span>` : nothing}
      ${s.message ? html`<span class="message">${s.message}</span>` : nothing}
    </div>`;
  }
}

/** One step's replay verdict in its card. */
@customElement('ti-replay-status')
export class TiReplayStatus extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: inline-flex;
        align-items: center;
        gap: 4px;
      }
      .warn {
        font-size: 10px;
        color: var(--vscode-editorWarning-foreground, #cca700);
      }
      button {
        font-size: 11px;
        padding: 0 6px;
      }
    `,
  ];

  @property({ attribute: false }) view: ReplayStepView | null = null;
  @property({ type: Number }) rolloutIndex = 0;
  @property({ type: Number }) stepIndex = 0;
  /** The step has a replayable command ("Run to here" shown). */
  @property({ type: Boolean }) replayable = false;
  @property({ type: Boolean }) busy = false;

  override render(): TemplateResult {
    const v = this.view;
    const word = v ? (v.status === 'not-replayable' ? 'not replayable' : v.status) : '';
    const stop = (f: () => void) => (e: Event) => {
      e.stopPropagation();
      f();
    };
    return html`${v && v.status !== 'pending'
      ? html`<span class="st st-${v.status} replay-status" title=${v.summary}>${word}</span>`
      : nothing}${v?.stateMayDiffer ? html`<span class="warn state-may-differ" title="an earlier step diverged: the container's state may differ from the recording">state may differ</span>` : nothing}${this.replayable
      ? html`<button class="run-to" title="Replay up to and including this step" ?disabled=${this.busy} @click=${stop(() => send('runTo', this.rolloutIndex, this.stepIndex))}>Run to here</button>`
      : nothing}${this.replayable
      ? html`<button class="branch-from" title="Let another model continue from this step (replayed up to here in a container), in a new timeline" ?disabled=${this.busy} @click=${stop(() => branch('fromHere', this.rolloutIndex, this.stepIndex))}>Branch from here</button>`
      : nothing}${v?.hasDiff
      ? html`<button class="show-diff" title="Open recorded vs replayed output in the diff editor" @click=${stop(() => send('showDiff', this.rolloutIndex, this.stepIndex))}>Show diff</button>`
      : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-replay-bar': TiReplayBar;
    'ti-replay-status': TiReplayStatus;
  }
}
