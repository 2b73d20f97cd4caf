/**
 * `<ti-follow-toggle>`: how the file is kept up with (reading …%, live, deleted) and the Follow
 * toggle, at the right of the dock. A click fires `follow-change` ({ on }). Renders into
 * `<ti-app>`'s shadow tree (lightElement.ts).
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { LiveInfo } from '../../../src/shared/protocol';
import { LightElement } from './lightElement';

export const followStyles = css`
    .dock .live {
      position: absolute;
      top: 5px;
      right: 4px;
    }
    .dock:has(.live) .label-row {
      padding-right: 190px;
    }
    .live {
      display: inline-flex;
      align-items: center;
      gap: 6px;
      font-size: 11px;
      color: var(--vscode-descriptionForeground);
    }
    .follow-toggle {
      font: inherit;
      font-size: 11px;
      line-height: 18px;
      padding: 0 8px;
      border-radius: 9px;
      cursor: pointer;
      color: var(--vscode-foreground);
      background: transparent;
      border: 1px solid var(--vscode-button-border, var(--vscode-widget-border, rgba(128, 128, 128, 0.5)));
    }
    .follow-toggle[aria-pressed='true'] {
      color: var(--vscode-button-foreground, #fff);
      background: var(--vscode-button-background, #0e639c);
      border-color: var(--vscode-button-background, #0e639c);
    }
    .follow-toggle:focus-visible {
      outline: 1px solid var(--vscode-focusBorder, #007fd4);
      outline-offset: 1px;
    }
    .live-state.state-deleted {
      color: var(--vscode-editorWarning-foreground, #cca700);
    }
`;

@customElement('ti-follow-toggle')
export class TiFollowToggle extends LightElement {
  @property({ attribute: false }) live!: LiveInfo;
  @property({ attribute: false }) follow = false;
  /** Steps appended since Follow went off. */
  @property({ attribute: false }) unseen = 0;

  override render(): TemplateResult {
    const l = this.live;
    const state =
      l.state === 'reading'
        ? `reading ${l.size ? Math.floor((100 * l.bytes) / l.size) : 0}%`
        : l.state === 'deleted'
          ? 'file deleted'
          : l.mode === 'stream'
            ? 'live'
            : '';
    const stateTitle =
      l.state === 'reading'
        ? 'The file is large: its first steps are shown, the rest is being read.'
        : l.state === 'deleted'
          ? 'The file was deleted: what was read of it stays shown.'
          : l.mode === 'stream'
            ? 'New lines appended to the file show here as they are written.'
            : '';
    const title = this.follow
      ? 'Following: the newest step stays in view as the file grows. Click (or scroll up) to stop.'
      : `Follow: keep the newest step in view as the file grows (also End, or scrolling down to the end).${l.mode === 'reload' ? ' This format is read again from the start when the file changes.' : ''}`;
    return html`<span class="live">
      ${state ? html`<span class="live-state state-${l.state}" title=${stateTitle}>${state}</span>` : nothing}
      <button class="follow-toggle" aria-pressed=${this.follow ? 'true' : 'false'} title=${title} @click=${() => this.dispatchEvent(new CustomEvent('follow-change', { detail: { on: !this.follow }, bubbles: true, composed: true }))}>
        ${this.follow ? 'Following' : 'Follow'}${!this.follow && this.unseen ? html` <span class="unseen">· ${this.unseen} new</span>` : nothing}
      </button>
    </span>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-follow-toggle': TiFollowToggle;
  }
}
