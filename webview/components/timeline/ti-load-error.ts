/**
 * `<ti-load-error>`: why the file did not load: its located issues (each opens the file at its
 * place), the formats tried and why each declined, Reload and Open as Text. Renders into
 * `<ti-app>`'s shadow tree (lightElement.ts).
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { LoadErrorMessage } from '../../../src/shared/protocol';
import { openLocation, reload } from '../../timeline/actions';
import { LightElement } from './lightElement';

export const loadErrorStyles = css`
    .load-error {
      padding: 12px 14px;
      border: 1px solid var(--vscode-inputValidation-errorBorder, #be1100);
      background: var(--vscode-inputValidation-errorBackground, rgba(190, 17, 0, 0.1));
      border-radius: 4px;
    }
    .load-error h2 {
      margin: 0 0 4px 0;
      font-size: 14px;
    }
    .load-error .file {
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
      overflow-wrap: anywhere;
    }
    .load-error ul {
      margin: 10px 0;
      padding-left: 18px;
    }
    .load-error li {
      margin: 4px 0;
    }
    .issue-text {
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: 12px;
      overflow-wrap: anywhere;
    }
    .load-error a {
      color: var(--vscode-textLink-foreground);
      cursor: pointer;
      text-decoration: none;
    }
    .load-error a:hover {
      text-decoration: underline;
    }
    .declined {
      font-size: 12px;
    }
    .declined .format-name {
      font-weight: 600;
    }
    .load-error pre {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: 12px;
    }
    .load-error .actions {
      display: flex;
      gap: 8px;
      margin-top: 8px;
    }
`;

@customElement('ti-load-error')
export class TiLoadError extends LightElement {
  @property({ attribute: false }) msg!: LoadErrorMessage;

  override render(): TemplateResult {
    const m = this.msg;
    const open = (file: string, line: number | null, column: number | null) => (e: Event) => {
      e.preventDefault();
      openLocation(file, line, column);
    };
    return html`<section class="load-error" role="alert">
      <h2>${m.title}</h2>
      <div class="file">${m.file}</div>
      ${m.issues.length
        ? html`<ul class="issues">
            ${m.issues.map(
              (i) => html`<li class="issue">
                <a class="issue-text" href="#" title="Open the file at this place" @click=${open(i.file, i.line, i.column)}>${i.formatted}</a>
              </li>`,
            )}
          </ul>`
        : nothing}
      ${m.declined.length
        ? html`<div class="declined">
            Formats tried:
            <ul>
              ${m.declined.map((d) => html`<li><span class="format-name">${d.format}</span>: ${d.reason}</li>`)}
            </ul>
          </div>`
        : nothing}
      ${!m.issues.length && !m.declined.length ? html`<pre>${m.message}</pre>` : nothing}
      <div class="actions">
        <vscode-button secondary @click=${() => reload()}>Reload</vscode-button>
        <vscode-button secondary @click=${open(m.issues[0]?.file ?? m.file, m.issues[0]?.line ?? null, m.issues[0]?.column ?? null)}>Open as Text</vscode-button>
      </div>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-load-error': TiLoadError;
  }
}
