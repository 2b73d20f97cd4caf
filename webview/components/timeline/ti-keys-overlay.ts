/**
 * `<ti-keys-overlay>`: the key list (`?`), read from the key table (src/shared/keymap.ts), and
 * `keyHint`, the hint line above the steps, read from the same table (`HINT_LINE`). The overlay
 * renders into `<ti-app>`'s shadow tree (lightElement.ts).
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { customElement } from 'lit/decorators.js';
import { HINT_LINE, bindingOf, keyGroups } from '../../../src/shared/keymap';
import { LightElement } from './lightElement';

export const keysStyles = css`
    .keys-overlay {
      position: fixed;
      top: 16px;
      right: 16px;
      z-index: 10;
      max-width: min(560px, calc(100vw - 32px));
      max-height: calc(100vh - 32px);
      overflow: auto;
      padding: 10px 14px 12px;
      font-size: 12px;
      color: var(--vscode-editorWidget-foreground, var(--vscode-foreground));
      background: var(--vscode-editorWidget-background, #252526);
      border: 1px solid var(--vscode-editorWidget-border, var(--vscode-widget-border, #454545));
      border-radius: 4px;
      box-shadow: 0 4px 16px var(--vscode-widget-shadow, rgba(0, 0, 0, 0.36));
    }
    .keys-overlay h2 {
      margin: 0 0 6px;
      font-size: 13px;
    }
    .keys-overlay h3 {
      margin: 10px 0 4px;
      font-size: 11px;
      font-weight: 600;
      text-transform: uppercase;
      letter-spacing: 0.05em;
      color: var(--vscode-descriptionForeground);
    }
    .keys-overlay table {
      border-collapse: collapse;
    }
    .keys-overlay th {
      text-align: left;
      padding: 0;
    }
    .keys-overlay td {
      padding: 2px 10px 2px 0;
      vertical-align: top;
    }
    .keys-overlay td.k {
      white-space: nowrap;
    }
    /* The Follow toggle sits at the right of the sticky dock: in view while the steps scroll. */
    .keys-overlay .foot {
      margin-top: 8px;
      color: var(--vscode-descriptionForeground);
    }
`;

@customElement('ti-keys-overlay')
export class TiKeysOverlay extends LightElement {
  override render(): TemplateResult {
    return html`<div class="keys-overlay" role="dialog" aria-label="Trajectory Inspector keys">
      <h2>Keys</h2>
      <table>
        ${keyGroups().map(
          (g) => html`<tr><th colspan="2"><h3>${g.group}</h3></th></tr>
            ${g.bindings.map((b) => html`<tr><td class="k">${b.keys.map((k, i) => html`${i ? ' ' : ''}<kbd>${k}</kbd>`)}</td><td>${b.help}</td></tr>`)}`,
        )}
      </table>
      <div class="foot">Labels are written to the journal the moment you press the key. Every key is also a command (Trajectory Inspector: Label Step Good, …) you can bind in Keyboard Shortcuts.</div>
    </div>`;
  }
}

/** The hint line's keys: "j/k move · o expand · … · ? all keys" (`recording`: with the player's key). */
export function keyHint(recording: boolean): TemplateResult {
  const parts = HINT_LINE.filter((p) => recording || !p.needsRecording).map((p) => {
    const bs = p.actions.map(bindingOf);
    if (p.lead) return html`${p.lead} ${bs.map((b, i) => html`${i ? ' ' : ''}<kbd>${b.keys[0]}</kbd> ${b.hint}`)}`;
    if (p.text) return html`${bs.map((b, i) => html`${i ? '/' : ''}<kbd>${b.keys[0]}</kbd>`)} ${p.text}`;
    return html`<kbd>${bs[0].keys[0]}</kbd> ${bs[0].hint}`;
  });
  return html`${parts.map((p, i) => html`${i ? ' · ' : nothing}${p}`)}`;
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-keys-overlay': TiKeysOverlay;
  }
}
