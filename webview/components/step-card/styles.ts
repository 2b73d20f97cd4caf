/** The step card's styles: the heat colours of scores (scores.ts) and the card's own. */
import { css } from 'lit';
import { HEAT_CSS } from '../../scores';

export const stepCardStyles = [
  HEAT_CSS,
  css`
    :host {
      display: block;
      contain: content;
    }
    .card {
      position: relative;
      margin: 0 0 6px 0;
      padding: 8px 12px 8px 14px;
      border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, rgba(128, 128, 128, 0.25)));
      border-radius: 4px;
      background: var(--vscode-editor-background);
      cursor: default;
    }
    .card::before {
      content: '';
      position: absolute;
      left: 0;
      top: 0;
      bottom: 0;
      width: 3px;
      border-radius: 4px 0 0 4px;
      background: var(--role-color);
    }
    .card.role-agent { --role-color: var(--vscode-charts-blue, #3794ff); }
    .card.role-user { --role-color: var(--vscode-charts-green, #89d185); }
    .card.role-system { --role-color: var(--vscode-charts-purple, #b180d7); }
    .card.role-environment { --role-color: var(--vscode-charts-orange, #d18616); }
    :host(.selected) .card {
      border-color: var(--vscode-focusBorder, #007fd4);
      box-shadow: 0 0 0 1px var(--vscode-focusBorder, #007fd4);
      background: var(--vscode-list-inactiveSelectionBackground, var(--vscode-editor-background));
    }
    :host(.selected) .card .body {
      color: var(--vscode-list-inactiveSelectionForeground, inherit);
    }
    .head {
      display: flex;
      flex-wrap: wrap;
      align-items: baseline;
      gap: 4px 10px;
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
      user-select: none;
    }
    .idx {
      font-weight: 600;
      color: var(--vscode-foreground);
      font-variant-numeric: tabular-nums;
      min-width: 2.2em;
    }
    .role {
      font-weight: 600;
      text-transform: uppercase;
      font-size: 10px;
      letter-spacing: 0.06em;
      color: var(--role-color);
    }
    .meta {
      font-variant-numeric: tabular-nums;
    }
    .copied {
      font-style: italic;
    }
    .spacer {
      flex: 1;
    }
    .head button {
      font: inherit;
      font-size: 11px;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0 2px;
      cursor: pointer;
      opacity: 0;
    }
    .card:hover .head button,
    :host(.selected) .head button,
    .head button:focus-visible {
      opacity: 1;
    }
    .head button:hover {
      text-decoration: underline;
    }
    .body {
      margin-top: 6px;
      display: flex;
      flex-direction: column;
      gap: 6px;
    }
    .message {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      line-height: 1.45;
    }
    .clamp-more {
      font: inherit;
      font-size: 11px;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0;
      cursor: pointer;
    }
    details.reasoning > summary {
      cursor: pointer;
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
      user-select: none;
    }
    details.reasoning > div {
      margin-top: 4px;
      padding-left: 10px;
      border-left: 2px solid var(--vscode-textBlockQuote-border, rgba(128, 128, 128, 0.4));
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      font-style: italic;
      color: var(--vscode-descriptionForeground);
      line-height: 1.45;
    }
    .action {
      display: flex;
      flex-direction: column;
      gap: 3px;
    }
    .action-head {
      display: flex;
      align-items: baseline;
      gap: 6px;
      font-size: 12px;
    }
    .kind {
      font-size: 10px;
      font-weight: 600;
      text-transform: uppercase;
      letter-spacing: 0.05em;
      padding: 0 5px;
      border-radius: 3px;
      border: 1px solid var(--vscode-badge-background, rgba(128, 128, 128, 0.5));
      color: var(--vscode-descriptionForeground);
      line-height: 16px;
    }
    .kind-finish {
      border-color: var(--vscode-charts-green, #89d185);
      color: var(--vscode-charts-green, #89d185);
    }
    .tool {
      font-family: var(--vscode-editor-font-family, monospace);
      color: var(--vscode-symbolIcon-functionForeground, var(--vscode-foreground));
    }
    .path {
      font-family: var(--vscode-editor-font-family, monospace);
      color: var(--vscode-descriptionForeground);
    }
    .arg-fields {
      margin: 0;
      display: flex;
      flex-direction: column;
      gap: 2px;
    }
    .arg-field.inline {
      display: flex;
      gap: 6px;
      align-items: baseline;
    }
    .arg-field dt {
      color: var(--vscode-descriptionForeground);
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: var(--vscode-editor-font-size, 12px);
    }
    .arg-field dt::after {
      content: ':';
    }
    .arg-field dd {
      margin: 0;
      min-width: 0;
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: var(--vscode-editor-font-size, 12px);
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .action-command,
    .arg-block,
    .args {
      margin: 0;
      padding: 5px 8px;
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: var(--vscode-editor-font-size, 12px);
      line-height: 1.45;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      background: var(--vscode-textCodeBlock-background, rgba(128, 128, 128, 0.12));
      border-radius: 3px;
    }
    .action-command.shell::before {
      content: '$ ';
      color: var(--vscode-descriptionForeground);
      user-select: none;
    }
    .obs {
      display: flex;
      flex-direction: column;
      gap: 2px;
    }
    .obs-head {
      display: flex;
      align-items: center;
      gap: 6px;
      font-size: 11px;
      color: var(--vscode-descriptionForeground);
    }
    .badge {
      display: inline-block;
      font-size: 10px;
      font-weight: 600;
      line-height: 16px;
      padding: 0 6px;
      border-radius: 8px;
      font-variant-numeric: tabular-nums;
    }
    .exit-code.ok {
      color: var(--vscode-testing-iconPassed, #73c991);
      border: 1px solid var(--vscode-testing-iconPassed, #73c991);
    }
    .exit-code.fail {
      color: var(--vscode-errorForeground, #f48771);
      border: 1px solid var(--vscode-errorForeground, #f48771);
    }
    .truncated {
      color: var(--vscode-editorWarning-foreground, #cca700);
      border: 1px solid var(--vscode-editorWarning-foreground, #cca700);
    }
    .exit-from {
      font-weight: 400;
      opacity: 0.8;
    }
    .tool-error,
    .interrupted {
      color: var(--vscode-errorForeground, #f48771);
      border: 1px solid var(--vscode-errorForeground, #f48771);
    }
    .interrupted {
      color: var(--vscode-editorWarning-foreground, #cca700);
      border-color: var(--vscode-editorWarning-foreground, #cca700);
    }
    .event {
      align-self: center;
      font-size: 10px;
      font-weight: 600;
      line-height: 16px;
      padding: 0 6px;
      border-radius: 2px;
      border: 1px dashed var(--vscode-descriptionForeground, #9d9d9d);
      color: var(--vscode-descriptionForeground, #9d9d9d);
      text-transform: uppercase;
      letter-spacing: 0.04em;
    }
    .event.api_error,
    .event.interrupted {
      border-style: solid;
      color: var(--vscode-errorForeground, #f48771);
      border-color: var(--vscode-errorForeground, #f48771);
    }
    .event.compaction {
      color: var(--vscode-charts-purple, #b180d7);
      border-color: var(--vscode-charts-purple, #b180d7);
    }
    .card.event-card {
      border-style: dashed;
    }
    .links {
      display: flex;
      flex-wrap: wrap;
      gap: 4px 8px;
      font-size: 12px;
    }
    .links button.link {
      font: inherit;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0;
      cursor: pointer;
    }
    .links button.link:hover {
      text-decoration: underline;
    }
    .files {
      display: flex;
      flex-wrap: wrap;
      gap: 4px;
      margin-top: 4px;
      font-size: 11px;
    }
    .files button.file-chip {
      font: inherit;
      color: var(--vscode-badge-foreground);
      background: var(--vscode-badge-background);
      border: 1px solid transparent;
      border-radius: 9px;
      padding: 0 7px;
      cursor: pointer;
      max-width: 40ch;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .files button.file-chip.read {
      color: var(--vscode-foreground);
      background: none;
      border-color: var(--vscode-widget-border, var(--vscode-contrastBorder, #8884));
    }
    .files button.file-chip.failed {
      text-decoration: line-through;
      opacity: 0.75;
    }
    .files button.file-chip.elsewhere {
      font-style: italic;
      opacity: 0.8;
    }
    .files button.file-chip:hover {
      text-decoration: underline;
    }
    .links .missing {
      color: var(--vscode-descriptionForeground);
      font-style: italic;
    }
    .edit {
      margin: 0;
      padding: 5px 0;
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: var(--vscode-editor-font-size, 12px);
      line-height: 1.45;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      background: var(--vscode-textCodeBlock-background, rgba(128, 128, 128, 0.12));
      border-radius: 3px;
    }
    .edit > span {
      display: block;
      padding: 0 8px;
    }
    .edit .ins {
      background: var(--vscode-diffEditor-insertedLineBackground, rgba(155, 185, 85, 0.2));
    }
    .edit .del {
      background: var(--vscode-diffEditor-removedLineBackground, rgba(255, 0, 0, 0.2));
    }
    .edit .hunk {
      color: var(--vscode-descriptionForeground);
    }
    .edit-note {
      font-size: 11px;
      color: var(--vscode-descriptionForeground);
    }
    /* Reference label: a square two-part tag ("ref" + value), unlike the round outcome/exit pills,
       so scores and user labels can sit beside it later. */
    .ref-label {
      display: inline-flex;
      align-items: stretch;
      font-size: 10px;
      font-weight: 600;
      line-height: 16px;
      border-radius: 2px;
      overflow: hidden;
      border: 1px solid var(--ref-color);
      font-variant-numeric: tabular-nums;
      align-self: center;
    }
    .ref-label .ref-tag {
      padding: 0 4px;
      font-size: 9px;
      letter-spacing: 0.06em;
      text-transform: uppercase;
      color: var(--vscode-editor-background, #1e1e1e);
      background: var(--ref-color);
    }
    .ref-label .ref-value {
      padding: 0 5px;
      color: var(--ref-color);
    }
    .ref-label.good { --ref-color: var(--vscode-testing-iconPassed, #73c991); }
    .ref-label.neutral { --ref-color: var(--vscode-descriptionForeground, #9d9d9d); }
    .ref-label.bad { --ref-color: var(--vscode-errorForeground, #f48771); }
    .first-error {
      align-self: center;
      font-size: 10px;
      font-weight: 600;
      line-height: 16px;
      padding: 0 5px;
      border-radius: 2px;
      color: var(--vscode-editor-background, #1e1e1e);
      background: var(--vscode-errorForeground, #f48771);
    }
    /* The user's label: a filled tag ("YOU" + value), unlike the outlined reference tag and the
       round outcome / exit pills. */
    .user-label {
      display: inline-flex;
      align-items: stretch;
      align-self: center;
      font-size: 10px;
      font-weight: 700;
      line-height: 16px;
      border-radius: 3px;
      overflow: hidden;
      color: var(--vscode-editor-background, #1e1e1e);
      background: var(--lab-color);
      border: 1px solid var(--lab-color);
      font-variant-numeric: tabular-nums;
    }
    .user-label > span {
      padding: 0 5px;
    }
    .user-label .you {
      font-size: 9px;
      text-transform: uppercase;
      letter-spacing: 0.06em;
      background: rgba(0, 0, 0, 0.22);
    }
    .user-label .fe {
      border-left: 1px solid rgba(0, 0, 0, 0.3);
    }
    .user-label.propagated {
      color: var(--lab-color);
      background: repeating-linear-gradient(135deg, var(--lab-hatch) 0 3px, transparent 3px 7px);
    }
    .user-label.propagated .value {
      font-weight: 600;
    }
    .user-label.propagated .you {
      color: var(--vscode-editor-background, #1e1e1e);
      background: var(--lab-color);
    }
    .user-label.sending {
      opacity: 0.7;
    }
    .user-label.unsaved {
      border-style: dashed;
      border-color: var(--vscode-editorWarning-foreground, #cca700);
    }
    .good { --lab-color: var(--vscode-testing-iconPassed, #73c991); --lab-hatch: rgba(115, 201, 145, 0.2); }
    .neutral { --lab-color: var(--vscode-editorLineNumber-foreground, #858585); --lab-hatch: rgba(157, 157, 157, 0.2); }
    .bad { --lab-color: var(--vscode-errorForeground, #f48771); --lab-hatch: rgba(244, 135, 113, 0.2); }
    .other-label {
      align-self: center;
      font-size: 10px;
      line-height: 14px;
      padding: 0 4px;
      border-radius: 3px;
      border: 1px dashed var(--lab-color);
      color: var(--lab-color);
      font-variant-numeric: tabular-nums;
    }
    .stale,
    .unsaved-tag {
      align-self: center;
      font-size: 10px;
      font-weight: 600;
      line-height: 14px;
      padding: 0 4px;
      border-radius: 3px;
      color: var(--vscode-editorWarning-foreground, #cca700);
      border: 1px solid var(--vscode-editorWarning-foreground, #cca700);
    }
    /* Heat mark: the user's label as a thin bar on the card's right edge. */
    .card.lab-good::after,
    .card.lab-neutral::after,
    .card.lab-bad::after {
      content: '';
      position: absolute;
      right: 0;
      top: 0;
      bottom: 0;
      width: 4px;
      border-radius: 0 4px 4px 0;
      background: var(--lab-color);
    }
    .card.lab-propagated::after {
      background: repeating-linear-gradient(180deg, var(--lab-color) 0 4px, transparent 4px 7px);
    }
    .label-note {
      margin-top: 6px;
      padding: 2px 8px;
      font-size: 12px;
      line-height: 1.45;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      border-left: 2px solid var(--lab-color, var(--vscode-textLink-foreground));
      background: var(--vscode-textBlockQuote-background, rgba(128, 128, 128, 0.1));
    }
    .label-note .who {
      color: var(--vscode-descriptionForeground);
      font-size: 11px;
    }
    .note-editor {
      display: flex;
      align-items: center;
      gap: 8px;
      margin-top: 6px;
      font-size: 11px;
      color: var(--vscode-descriptionForeground);
    }
    .note-input {
      flex: 1;
      min-width: 0;
      font: inherit;
      font-size: 12px;
      padding: 3px 6px;
      color: var(--vscode-input-foreground);
      background: var(--vscode-input-background);
      border: 1px solid var(--vscode-focusBorder, #007fd4);
      border-radius: 2px;
      outline: none;
    }
    .note-editor kbd {
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: 10px;
      padding: 0 4px;
      border: 1px solid var(--vscode-widget-border, rgba(128, 128, 128, 0.4));
      border-radius: 3px;
    }
    .cast-time {
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: 11px;
    }
    .empty-step {
      font-style: italic;
      color: var(--vscode-descriptionForeground);
      font-size: 12px;
    }
    /* Step score: a rounded tag on the value's heat colour and a faint tint of the card. */
    .card.scored {
      background: color-mix(in srgb, var(--heat) 7%, var(--vscode-editor-background));
    }
    .score-tag {
      display: inline-flex;
      align-items: baseline;
      gap: 3px;
      font-size: 11px;
      font-variant-numeric: tabular-nums;
      padding: 0 6px;
      line-height: 16px;
      border-radius: 8px;
      border: 1px solid var(--heat);
      color: var(--vscode-foreground);
      background: color-mix(in srgb, var(--heat) 22%, transparent);
    }
    .score-tag .score-key {
      font-size: 9px;
      text-transform: uppercase;
      letter-spacing: 0.05em;
      color: var(--vscode-descriptionForeground);
    }
    .score-tag .score-label {
      color: var(--vscode-descriptionForeground);
    }
    /* A step of a sliced rollout whose full content has not come yet. */
    .slice-loading {
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
      overflow-wrap: anywhere;
    }
    .slice-loading .gist {
      font-family: var(--vscode-editor-font-family, monospace);
    }
  `,
];
