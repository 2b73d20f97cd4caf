/**
 * `<ti-step-card>`: one step of a rollout. The timeline sets the `step-card` / `selected` /
 * `expanded` classes and `data-index` on this element; the card renders the step's header
 * (number, role, time, duration, tokens), message, reasoning, and each action with its output.
 *
 * Collapsed (the default), long messages are clamped, reasoning is folded and long outputs show
 * their first and last lines; expanded (`o` / Space, or Enter on an unlabelled step) shows everything.
 *
 * Labels: the reference label that came with the data is an outlined "REF" tag; the user's own
 * label a filled "YOU" tag (hatched when it was propagated from a first error), other annotators'
 * labels small dashed tags with their name; the user's note sits under the head, and a thin bar on
 * the card's right edge has the colour of the user's label (the list's heat marks).
 */
import type { ReplayStepView } from '../../src/shared/replayProtocol';
import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { CurrentLabel } from '../../src/shared/model';
import type { Action, FileEdit, Observation, RolloutLink, Step } from '../../src/shared/model';
import { diffLines } from 'diff';
import { MAX_NOTE_CHARS } from '../../src/shared/protocol';
import type { ScoresMessage, StepScoreView } from '../../src/shared/scoresProtocol';
import { formatScore, HEAT_CSS, heatBucket, scoreTitle, scoreWord } from '../scores';
import { labelTitle, valueText, type StepLabel } from '../labels';
import {
  clampText,
  clockTime,
  formatArguments,
  formatCost,
  formatCount,
  formatDuration,
  formatElapsed,
  pairActions,
  parseTime,
  refLabelText,
  type ActionPair,
} from '../format';
import { formatClock } from '../cast';
import type { CutField } from '../../src/shared/protocol';
import { describeCut, estimateBodyHeight } from '../stepStore';
import { ref } from 'lit/directives/ref.js';
import { stepGist } from '../format';
import { foldActionBlocks } from '../foldCommand';
import { argFields, type ArgField } from '../argFields';
import './ti-output';

/** Message lines / characters shown while a card is collapsed. */
const MESSAGE_LINES = 8;
const MESSAGE_CHARS = 1200;
/** Tool-argument lines shown while collapsed. */
const ARG_LINES = 12;
const ARG_CHARS = 800;

const KIND_LABEL: Record<Action['kind'], string> = {
  shell: 'shell',
  keystrokes: 'keys',
  tool: 'tool',
  file_edit: 'edit',
  finish: 'finish',
};

/** Edit lines shown while collapsed. */
const EDIT_LINES = 16;

const EVENT_TITLE: Record<NonNullable<Step['event']>['kind'], string> = {
  compaction: 'the context was compacted here: the turn holds the summary the agent continued from',
  api_error: 'the model call failed',
  interrupted: 'the user interrupted the agent',
  unknown_record: 'a record the loader does not know, shown raw',
  notice: 'a notice from the agent harness, not a model turn',
};

const LINK_VERB: Record<RolloutLink['relation'], string> = {
  subagent: '↳ subagent',
  parent: '↑ parent',
  attempt: '⟲ attempt',
  'raw-session': '⧉ raw session',
  converted: '⧉ converted trajectory',
};

/** The text of a link button: its relation and label. */
export function linkText(l: RolloutLink): string {
  return `${LINK_VERB[l.relation]}: ${l.label}`;
}

/** One line of an edit's display, with its diff class (`ins`, `del`, `hunk`, or '' for context). */
interface EditLine {
  cls: string;
  text: string;
}

/** Lines of a text without its final newline ('' gives none). */
function textLines(t: string): string[] {
  if (t === '') return [];
  const l = t.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

/** The display lines of a file edit: replacements as line diffs, a write as its added content, a patch by its line prefixes. */
export function editLines(e: FileEdit): EditLine[] {
  switch (e.op) {
    case 'write':
      return textLines(e.content).map((text) => ({ cls: 'ins', text: `+${text}` }));
    case 'replace':
      return e.edits.flatMap((x, i) => [
        ...(e.edits.length > 1 ? [{ cls: 'hunk', text: `@@ replacement ${i + 1} of ${e.edits.length}${x.replaceAll ? ' (every occurrence)' : ''}` }] : []),
        ...diffLines(x.oldText, x.newText).flatMap((part) =>
          textLines(part.value).map((text) => ({ cls: part.added ? 'ins' : part.removed ? 'del' : '', text: `${part.added ? '+' : part.removed ? '-' : ' '}${text}` })),
        ),
      ]);
    case 'patch':
      return textLines(e.patch).map((text) => ({
        cls: text.startsWith('+') && !text.startsWith('+++') ? 'ins' : text.startsWith('-') && !text.startsWith('---') ? 'del' : /^(@@|\*\*\*|diff |index )/.test(text) ? 'hunk' : '',
        text,
      }));
    default:
      return [];
  }
}

/** One line saying what an edit does ("2 replacements", "writes 40 lines", "patch"). */
export function editSummary(e: FileEdit): string {
  switch (e.op) {
    case 'write':
      return `writes ${textLines(e.content).length} lines`;
    case 'replace':
      return e.edits.length === 1 ? (e.edits[0].replaceAll ? 'replaces every occurrence' : 'replaces 1 text') : `${e.edits.length} replacements`;
    case 'patch':
      return e.dialect === 'codex' ? 'apply_patch' : 'patch';
    default:
      return '';
  }
}

/** Fired (bubbling, composed) when the card's expand toggle is clicked. */
export type ToggleExpandEvent = CustomEvent<{ index: number }>;
/** Fired when the card's "source" button is clicked. */
export type ShowSourceEvent = CustomEvent<{ index: number }>;
/** Fired when a link of the step (a subagent's transcript) is clicked: `link` is its position in `Step.links`. */
export type OpenLinkEvent = CustomEvent<{ index: number; link: number }>;
/** Fired when the note editor is done: `note` is the text to save, or undefined when cancelled. */
export type NoteDoneEvent = CustomEvent<{ index: number; note?: string | null }>;

/** A step's replay verdict and controls, rendered by `<ti-replay-status>`. */
export interface StepReplay {
  view: ReplayStepView | null;
  replayable: boolean;
  busy: boolean;
  rolloutIndex: number;
}

@customElement('ti-step-card')
export class TiStepCard extends LitElement {
  static override styles = [HEAT_CSS, css`
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
  `];

  @property({ attribute: false }) step!: Step;
  /** Expanded: full message, open reasoning, full outputs. */
  @property({ type: Boolean }) expanded = false;
  /** Output lines shown while collapsed. */
  @property({ type: Number }) collapseLines = 20;
  /** Timestamp (ms) of the rollout's first step, for "+elapsed"; null when unknown. */
  @property({ attribute: false }) startTime: number | null = null;
  /** The user's label of this step, or null. */
  @property({ attribute: false }) label: StepLabel | null = null;
  /** Other annotators' labels of this step. */
  @property({ attribute: false }) otherLabels: readonly CurrentLabel[] = [];
  /** For a propagated label: the first error it comes from (0-based), when known. */
  @property({ attribute: false }) propagatedFrom: number | null = null;
  /** Show the note editor (the `n` key). */
  @property({ type: Boolean }) editingNote = false;
  /** Replay verdict and controls of this step; null when replay has nothing for it. */
  @property({ attribute: false }) replay: StepReplay | null = null;
  /** The step's score from the scorer, its range and scorer; null when not scored. */
  @property({ attribute: false }) score: StepScoreView | null = null;
  @property({ attribute: false }) scoreRange: [number, number] | null = null;
  @property({ attribute: false }) scorer: ScoresMessage['scorer'] = null;
  /** Set while `step` is only the head of a sliced rollout's step (its texts cut): what was cut. The card says it is loading. */
  @property({ attribute: false }) cutFields: readonly CutField[] | null = null;

  private noteDone(note?: string | null): void {
    this.dispatchEvent(new CustomEvent('note-done', { detail: { index: this.step.index, note }, bubbles: true, composed: true }));
  }

  private readonly onNoteKey = (e: KeyboardEvent): void => {
    if (e.key === 'Enter' && !e.isComposing) {
      e.preventDefault();
      e.stopPropagation();
      const text = (e.target as HTMLInputElement).value.trim();
      this.noteDone(text === '' ? null : text);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.noteDone(undefined);
    }
  };

  /** Focus left the editor (a click elsewhere, the window lost focus): keep what was typed. */
  private readonly onNoteBlur = (e: FocusEvent): void => {
    if (!this.editingNote) return;
    const text = (e.target as HTMLInputElement).value.trim();
    const before = this.label?.note ?? '';
    this.noteDone(text === before ? undefined : text === '' ? null : text);
  };

  protected override updated(changed: Map<string, unknown>): void {
    if (changed.has('editingNote') && this.editingNote) {
      const input = this.renderRoot.querySelector<HTMLInputElement>('.note-input');
      if (input) {
        input.focus();
        input.select();
      }
    }
  }

  private emit(name: 'toggle-expand' | 'show-source', e: Event): void {
    e.stopPropagation();
    this.dispatchEvent(new CustomEvent(name, { detail: { index: this.step.index }, bubbles: true, composed: true }));
  }

  private renderHead(s: Step): TemplateResult {
    const t = parseTime(s.timestamp);
    const parts: TemplateResult[] = [];
    if (s.timestamp) {
      const rel = t !== null && this.startTime !== null && t > this.startTime ? ` ${formatElapsed(t - this.startTime)}` : '';
      parts.push(html`<span class="meta time" title=${s.timestamp}>${clockTime(s.timestamp)}${rel}</span>`);
    }
    if (s.durationSec !== null) parts.push(html`<span class="meta duration" title="how long the step took">took ${formatDuration(s.durationSec)}</span>`);
    if (s.tokens && (s.tokens.prompt !== null || s.tokens.completion !== null)) {
      const tk = s.tokens;
      const title = `prompt ${tk.prompt ?? '?'} · completion ${tk.completion ?? '?'}${tk.cached !== null ? ` · cached ${tk.cached}` : ''} tokens`;
      parts.push(
        html`<span class="meta tokens" title=${title}>${tk.prompt !== null ? formatCount(tk.prompt) : '?'} → ${tk.completion !== null ? formatCount(tk.completion) : '?'} tok</span>`,
      );
    }
    if (s.costUsd !== null) parts.push(html`<span class="meta cost">${formatCost(s.costUsd)}</span>`);
    if (s.copiedContext) parts.push(html`<span class="meta copied" title="copied from an earlier context">copied context</span>`);
    if (s.event) parts.push(html`<span class="event ${s.event.kind}" title=${EVENT_TITLE[s.event.kind]}>${s.event.label}</span>`);
    if (typeof s.castTime === 'number') {
      parts.push(html`<span class="meta cast-time" title="where this step starts in the terminal recording">▶ ${formatClock(s.castTime)}</span>`);
    }
    const sid = s.sourceId !== null && String(s.sourceId) !== String(s.index + 1) ? `source id ${String(s.sourceId)}` : '';
    return html`<div class="head">
      <span class="idx" title=${sid || `step index ${s.index}`}>#${s.index + 1}</span>
      <span class="role">${s.role}</span>
      ${this.renderScore()} ${this.renderRefLabel(s)} ${this.renderUserLabel()} ${this.otherLabels.map((l) => this.renderOtherLabel(l))}
      ${parts}
      <span class="spacer"></span>
      ${this.replay
        ? html`<ti-replay-status .view=${this.replay.view} .rolloutIndex=${this.replay.rolloutIndex} .stepIndex=${s.index} .replayable=${this.replay.replayable} .busy=${this.replay.busy}></ti-replay-status>`
        : nothing}
      ${s.range ? html`<button class="source" title="Show this step in the raw file" @click=${(e: Event) => this.emit('show-source', e)}>source</button>` : nothing}
      <button class="toggle" title="Expand / collapse (o or Space; Enter on an unlabelled step)" @click=${(e: Event) => this.emit('toggle-expand', e)}>${this.expanded ? 'less' : 'more'}</button>
    </div>`;
  }

  /** The step label that came with the data (AgentProcessBench, ProcessBench, PRM800K, TRL). */
  private renderRefLabel(s: Step): TemplateResult | typeof nothing {
    const l = s.referenceLabel;
    if (!l) return nothing;
    const t = refLabelText(l.value);
    const title = `Reference label ${t.sign} (${t.word})${l.firstError ? ', the first error of the rollout' : ''}\nsource: ${l.source}`;
    return html`<span class="ref-label ${t.word}" title=${title} data-value=${String(l.value)}
        ><span class="ref-tag">ref</span><span class="ref-value">${t.sign} ${t.word}</span></span
      >${l.firstError ? html`<span class="first-error" title=${title}>first error</span>` : nothing}`;
  }

  /** The user's own label: filled "YOU" tag, hatched when propagated, with stale / unsaved marks. */
  private renderUserLabel(): TemplateResult | typeof nothing {
    const l = this.label;
    if (!l || l.value === null) return nothing;
    const t = valueText(l.value);
    const title = labelTitle(l, this.propagatedFrom, true);
    const cls = ['user-label', t.word, l.origin === 'propagated' ? 'propagated' : '', l.pending ?? ''].join(' ');
    const from = l.origin === 'propagated' ? (this.propagatedFrom !== null ? ` ← #${this.propagatedFrom + 1}` : ' (propagated)') : '';
    return html`<span class=${cls} title=${title} data-value=${String(l.value)} data-origin=${l.origin}
        ><span class="you">you</span><span class="value">${t.sign} ${t.word}${from}</span>${l.firstError
          ? html`<span class="fe">⚑ first error</span>`
          : nothing}</span
      >${l.stale ? html`<span class="stale" title="The step changed since it was labelled (its content hash differs)">stale</span>` : nothing}${l.pending ===
      'unsaved'
        ? html`<span class="unsaved-tag" title=${title}>unsaved</span>`
        : nothing}`;
  }

  private renderOtherLabel(l: CurrentLabel): TemplateResult | typeof nothing {
    if (l.value === null) return nothing;
    const t = valueText(l.value);
    const title = labelTitle({ ...l, pending: null }, null, false);
    return html`<span class="other-label ${t.word}" title=${title} data-annotator=${l.annotator}>${l.annotator} ${t.sign}${l.firstError ? ' ⚑' : ''}</span>`;
  }

  private renderNote(): TemplateResult | typeof nothing {
    const l = this.label;
    if (this.editingNote) {
      return html`<div class="note-editor">
        <input
          class="note-input"
          type="text"
          maxlength=${MAX_NOTE_CHARS}
          aria-label="Note for this step"
          placeholder="Note for step #${this.step.index + 1}"
          .value=${l?.note ?? ''}
          @keydown=${this.onNoteKey}
          @blur=${this.onNoteBlur}
        /><span><kbd>Enter</kbd> save · <kbd>Esc</kbd> cancel</span>
      </div>`;
    }
    const others = this.otherLabels.filter((o) => o.note);
    if (!l?.note && !others.length) return nothing;
    return html`${l?.note
      ? html`<div class="label-note mine ${l.value !== null ? valueText(l.value).word : ''}" title=${labelTitle(l, this.propagatedFrom, true)}>✎ ${l.note}</div>`
      : nothing}${others.map(
      (o) => html`<div class="label-note other ${o.value !== null ? valueText(o.value).word : ''}">✎ ${o.note} <span class="who">— ${o.annotator}</span></div>`,
    )}`;
  }

  private renderMessage(text: string): TemplateResult | typeof nothing {
    if (!text.trim()) return nothing;
    if (this.expanded) return html`<div class="message">${text}</div>`;
    const c = clampText(text, MESSAGE_LINES, MESSAGE_CHARS);
    return html`<div class="message">${c.text}${c.cut
      ? html`… <button class="clamp-more" @click=${(e: Event) => this.emit('toggle-expand', e)}>show more</button>`
      : nothing}</div>`;
  }

  /** Links of the step (the subagent it started): a button each, or why the target is missing. */
  private renderLinks(links: readonly RolloutLink[]): TemplateResult | typeof nothing {
    if (!links.length) return nothing;
    return html`<div class="links">
      ${links.map((l, i) =>
        l.missing
          ? html`<span class="missing" title=${l.missing}>${linkText(l)} (${l.missing})</span>`
          : html`<button class="link" data-relation=${l.relation} title=${l.path ?? 'in this file'} @click=${(e: Event) => this.openLink(e, i)}>${linkText(l)}</button>`,
      )}
    </div>`;
  }

  private openLink(e: Event, link: number): void {
    e.stopPropagation();
    this.dispatchEvent(new CustomEvent('open-link', { detail: { index: this.step.index, link }, bubbles: true, composed: true }));
  }

  /** A recorded file change: a line diff of each replacement, the written content, or the patch text. */
  private renderEdit(e: FileEdit): TemplateResult {
    const lines = editLines(e);
    const max = this.expanded ? Infinity : EDIT_LINES;
    const shown = lines.slice(0, max);
    return html`${e.op === 'other' ? html`<div class="edit-note">${e.reason}</div>` : nothing}${shown.length
        ? html`<pre class="edit">${shown.map((l) => html`<span class=${l.cls}>${l.text}</span>`)}${lines.length > shown.length
            ? html`<span class="hunk">… ${lines.length - shown.length} more lines</span>`
            : nothing}</pre>`
        : nothing}`;
  }

  private renderAction(a: Action): TemplateResult {
    if (a.edit && a.edit.op !== 'other') {
      return html`<div class="action-head">
          <span class="kind kind-${a.kind}">${KIND_LABEL[a.kind]}</span>
          ${a.tool ? html`<span class="tool">${a.tool}</span>` : nothing}
          ${a.edit.path ?? a.path ? html`<span class="path">${a.edit.path ?? a.path}</span>` : nothing}
          <span class="edit-note">${editSummary(a.edit)}</span>
        </div>
        ${this.renderEdit(a.edit)}`;
    }
    const fields = a.command === null ? argFields(a.arguments) : null;
    const args = a.command === null && !fields ? formatArguments(a.arguments) : '';
    const argText = this.expanded ? args : clampText(args, ARG_LINES, ARG_CHARS).text;
    return html`<div class="action-head">
        <span class="kind kind-${a.kind}">${KIND_LABEL[a.kind]}</span>
        ${a.tool ? html`<span class="tool">${a.tool}</span>` : nothing}
        ${a.path ? html`<span class="path">${a.path}</span>` : nothing}
      </div>
      ${a.command !== null
        ? html`<pre class="action-command ${a.kind}">${a.command}</pre>`
        : fields
          ? this.renderArgFields(fields)
          : args
            ? html`<pre class="args">${argText}${argText.length < args.length ? '\n…' : ''}</pre>`
            : nothing}`;
  }

  /** A tool call's arguments, one named field each; a multi-line or long value as a text block (clamped until the step is expanded). */
  private renderArgFields(fields: readonly ArgField[]): TemplateResult {
    return html`<dl class="arg-fields">
      ${fields.map((f) => {
        const shown = this.expanded || !f.block ? { text: f.value, cut: false } : clampText(f.value, ARG_LINES, ARG_CHARS);
        return html`<div class="arg-field ${f.block ? 'block' : 'inline'}" data-arg=${f.name}>
          <dt>${f.name}</dt>
          <dd>${f.block ? html`<pre class="arg-block">${shown.text}${shown.cut ? '\n…' : ''}</pre>` : html`<span class="arg-value">${f.value}</span>`}</dd>
        </div>`;
      })}
    </dl>`;
  }

  private renderObservation(o: Observation): TemplateResult {
    return html`<div class="obs">
      <div class="obs-head">
        <span>output</span>
        ${o.exitCode !== null
          ? o.exitCodeFrom === 'text'
            ? html`<span class="badge exit-code ${o.exitCode === 0 ? 'ok' : 'fail'} from-text" title="exit code read from the output text (the format has no exit code field)">exit ${o.exitCode} <span class="exit-from">(from text)</span></span>`
            : html`<span class="badge exit-code ${o.exitCode === 0 ? 'ok' : 'fail'}" title="exit code">exit ${o.exitCode}</span>`
          : nothing}
        ${o.isError && (o.exitCode === null || o.exitCode === 0) ? html`<span class="badge tool-error" title="the tool reported an error">error</span>` : nothing}
        ${o.interrupted ? html`<span class="badge interrupted" title="the call was interrupted before it finished">interrupted</span>` : nothing}
        ${o.truncated ? html`<span class="badge truncated" title="the source says this output was cut">truncated</span>` : nothing}
      </div>
      <ti-output .text=${o.output} .maxLines=${this.expanded ? 0 : this.collapseLines}></ti-output>
    </div>`;
  }

  private renderPair(p: ActionPair): TemplateResult {
    return html`<div class="action">
      ${p.action ? this.renderAction(p.action) : nothing} ${p.observations.map((o) => this.renderObservation(o))}
    </div>`;
  }

  /** The step-score tag: "score 0.12" on the value's heat colour (a scorer's opinion, not the outcome reward). */
  private renderScore(): TemplateResult | typeof nothing {
    const sc = this.score;
    const range = this.scoreRange;
    if (!sc || !range) return nothing;
    return html`<span class="score-tag heat-${heatBucket(sc.value, range)} ${scoreWord(sc.value, range)}" title=${scoreTitle(sc, range, this.scorer)} data-score=${String(sc.value)}
      ><span class="score-key">score</span> ${formatScore(sc.value, range)}${sc.label ? html` <span class="score-label">${sc.label}</span>` : nothing}</span
    >`;
  }

  override render(): TemplateResult {
    const s = this.step;
    if (!s) return html``;
    const pairs = pairActions(s);
    // Some formats derive the reasoning from the message (SWE-agent's THOUGHT): show it once.
    const reasoning = s.reasoning && s.reasoning.trim() && !s.message.includes(s.reasoning.trim()) ? s.reasoning : null;
    const links = s.links ?? [];
    const empty = !s.message.trim() && !reasoning && pairs.length === 0 && !links.length && !s.event;
    const l = this.label;
    const lab = l && l.value !== null ? `lab-${valueText(l.value).word} ${valueText(l.value).word}${l.origin === 'propagated' ? ' lab-propagated' : ''}` : '';
    const heat = this.score && this.scoreRange ? `scored heat-${heatBucket(this.score.value, this.scoreRange)}` : '';
    if (this.cutFields) {
      const gist = stepGist(s);
      return html`<div class="card role-${s.role} ${lab} ${heat}">
        ${this.renderHead(s)} ${this.renderNote()}
        <div class="body" ${ref((el) => el instanceof HTMLElement && (el.style.minHeight = `${estimateBodyHeight(s, this.cutFields ?? [], this.expanded, this.collapseLines)}px`))}><div class="slice-loading" role="status">${gist ? html`<span class="gist">${gist}</span> · ` : nothing}loading the full step (${describeCut(this.cutFields)})…</div></div>
      </div>`;
    }
    return html`<div class="card role-${s.role} ${lab} ${heat} ${s.event ? `event-card event-${s.event.kind}` : ''}">
      ${this.renderHead(s)} ${this.renderNote()}
      <div class="body">
        ${this.renderMessage(foldActionBlocks(s.message, s.actions).text)}
        ${reasoning
          ? html`<details class="reasoning" ?open=${this.expanded}>
              <summary>Reasoning</summary>
              <div>${reasoning}</div>
            </details>`
          : nothing}
        ${pairs.map((p) => this.renderPair(p))} ${this.renderLinks(links)}
        ${empty ? html`<div class="empty-step">(empty step)</div>` : nothing}
      </div>
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-step-card': TiStepCard;
  }
}
