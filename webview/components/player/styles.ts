/** The terminal player's styles: xterm.css (adopted as a constructed stylesheet, for the CSP) and the player's own. */
import xtermCss from '@xterm/xterm/css/xterm.css';
import { css, unsafeCSS } from 'lit';

export const playerStyles = [
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
