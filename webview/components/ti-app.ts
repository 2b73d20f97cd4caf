/**
 * `<ti-app>`: the timeline. Receives the rollout from the host, renders its header and a
 * `<ti-step-card>` per step, owns selection and expansion, keyboard navigation, and persists UI
 * intent with `setState` (selection, expansion, scroll position: a hidden webview is torn down).
 *
 * The step list is virtualized (`@lit-labs/virtualizer`, window scrolling): only the cards near
 * the viewport are in the DOM, so a rollout of 10,000 steps renders as fast as one of 20; revealing
 * a step scrolls the virtualizer to it (renderCard is the one place a card is rendered).
 *
 * Keys: j / ↓ next, k / ↑ previous, g / Home first, G / End last, o / Space expand/collapse the
 * selected step, s show the selected step in the source file, p play/pause the recording.
 * Labelling (`?` shows them all): 1 / + good, 2 / 0 neutral, 3 / - bad, x / Delete clear,
 * f first error, n note, v rollout verdict (cycles good → neutral → bad → none), u / Ctrl+Z undo,
 * U / Ctrl+Shift+Z / Ctrl+Y redo, Enter: on a step the user has labelled, go to the next
 * unlabelled step; on an unlabelled one, expand/collapse it (its old meaning). A label key writes
 * at once (the host appends it to the journal), so nothing is pending and nothing can be lost by
 * moving on without Enter. Each key is also a command (the host sends `runLabelAction`).
 *
 * Live follow: a file that grows gets `rolloutUpdate` messages (new steps appended, changed
 * last steps replaced; nothing else is rendered again, so the selection, expanded cards, scroll
 * position and labels stay). The Follow toggle in the header keeps the newest step in view while on,
 * like `tail -f` / `less +F`: off when a rollout opens; on with the button, the Toggle Follow command,
 * End / G, or scrolling down to the end; off again when the user scrolls up or moves to an earlier
 * step. It is persisted with the view.
 *
 * A rollout with a terminal recording gets a `<ti-player>` docked above the steps. Selection and
 * playback are synced both ways: selecting a step seeks the player to the step's `castTime`; while
 * the recording plays (or is scrubbed) the step running at the player's time gets selected.
 */
import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { virtualize, virtualizerRef } from '@lit-labs/virtualizer/virtualize.js';
import type { Rollout, Step } from '../../src/shared/model';
import type { CurrentLabel, LabelValue } from '../../src/shared/model';
import {
  PLAYER_SPEEDS,
  type HostMessage,
  type LabelAction,
  type LabelsMessage,
  type LiveInfo,
  type LoadErrorMessage,
  type RolloutUpdateMessage,
  type PersistedState,
  type RolloutMessage,
  type ViewConfig,
} from '../../src/shared/protocol';
import type { CastMessage } from '../../src/shared/castProtocol';
import type { ScoresMessage, StepScoreView } from '../../src/shared/scoresProtocol';
import { stepAtTime, stepMarks, type StepMark } from '../cast';
import { formatCost, formatCount, formatDuration, formatReward, parseTime, stepGist } from '../format';
import { indexLabels, isLabelled, labelProgress, labelTitle, labelableSteps, nextUnlabelled, nextVerdict, propagatedFrom, valueText, type LabelIndex, type SentChange } from '../labels';
import { loadState, onHostMessage, post, saveState } from '../ipc';
import type { PlayerFit, PlayerMark, PlayerPrefsEvent, PlayerTimeEvent, TiPlayer } from './ti-player';
import './ti-player';
import { linkText, type TiStepCard } from './ti-step-card';
import './ti-step-card';
import './ti-replay-bar';
import { outcomeText, resolvedWord } from '../../src/shared/outcome';
import { PICKER_MAX, pickerPositions } from '../../src/shared/protocol';
import type { ReplayStateMessage } from '../../src/shared/replayProtocol';
import type { StepReplay } from './ti-step-card';
import './ti-heatstrip';
import './ti-scrollmarks';
import { stripRanges } from '../scores';
import { formatSize, StepStore } from '../stepStore';
import { CardAnchor, topCard } from '../cardAnchor';

type View =
  | { kind: 'waiting' }
  | { kind: 'loading'; file: string }
  | { kind: 'rollout'; msg: RolloutMessage }
  | { kind: 'error'; msg: LoadErrorMessage };

const FORMAT_LABEL: Record<string, string> = {
  atif: 'Harbor ATIF',
  'harbor-trial-result': 'Harbor trial result',
  'swe-agent': 'SWE-agent',
  'mini-swe-agent': 'mini-swe-agent',
  'openhands-v0': 'OpenHands',
  'openhands-v1': 'OpenHands V1',
  'openhands-eval': 'OpenHands eval',
  'tb1-trial': 'Terminal-Bench 1 trial',
  'tb1-run': 'Terminal-Bench 1 run',
  asciicast: 'asciinema recording',
  'openai-chat': 'OpenAI chat',
  'openai-responses': 'OpenAI Responses',
  'harbor-traces': 'Harbor traces',
  'rllm-episode': 'rLLM episode',
  inspect: 'Inspect AI log',
  agentprocessbench: 'AgentProcessBench',
  processbench: 'ProcessBench',
  prm800k: 'PRM800K',
  'trl-stepwise': 'TRL stepwise',
  'claude-code': 'Claude Code session',
  'codex-cli': 'Codex CLI session',
  'gemini-cli': 'Gemini CLI session',
  'copilot-cli': 'Copilot CLI session',
  cline: 'Cline / Roo Code task',
  'harbor-job': 'Harbor job',
  'swe-traj-rows': 'SWE trajectory rows',
};

/** The "derived" mark beside a value the loader derived rather than read (`Rollout.derived`). */
function derivedMark(r: Rollout, field: string): TemplateResult | typeof nothing {
  return r.derived?.includes(field)
    ? html`<span class="derived" title=${`derived by the loader, not recorded in the file (${field})`}>derived</span>`
    : nothing;
}

interface Totals {
  prompt: number;
  completion: number;
  cost: number;
  durationSec: number | null;
  hasTokens: boolean;
  hasCost: boolean;
}

function totals(r: Rollout): Totals {
  let prompt = 0;
  let completion = 0;
  let cost = 0;
  let hasTokens = false;
  let hasCost = false;
  let first: number | null = null;
  let last: number | null = null;
  let sumDur = 0;
  let hasDur = false;
  for (const s of r.steps) {
    if (s.tokens) {
      if (s.tokens.prompt !== null) (prompt += s.tokens.prompt), (hasTokens = true);
      if (s.tokens.completion !== null) (completion += s.tokens.completion), (hasTokens = true);
    }
    if (s.costUsd !== null) (cost += s.costUsd), (hasCost = true);
    if (s.durationSec !== null) (sumDur += s.durationSec), (hasDur = true);
    const t = parseTime(s.timestamp);
    if (t !== null) {
      if (first === null || t < first) first = t;
      if (last === null || t > last) last = t;
    }
  }
  const span = first !== null && last !== null && last > first ? (last - first) / 1000 : null;
  return { prompt, completion, cost, hasTokens, hasCost, durationSec: span ?? (hasDur ? sumDur : null) };
}

/**
 * The summaries the rollout picker offers: all, or for a large dump the first, the last and those
 * around `current`. Summaries the host already cut to that window (`rolloutCount` set) come back as they are.
 */
export function pickerWindow<T extends { index: number }>(summaries: readonly T[], current: number): readonly T[] {
  if (summaries.length <= PICKER_MAX) return summaries;
  return pickerPositions(summaries.length, current).map((i) => summaries[i]);
}

/** Rollouts in the file of a rollout message. */
function rolloutCount(m: RolloutMessage): number {
  return m.rolloutCount ?? m.summaries.length;
}

/** Share of the window height the terminal may take until the user drags it. */
const DEFAULT_PLAYER_HEIGHT = 0.5;

const NO_LABELS: readonly CurrentLabel[] = [];

/** The key overlay (`?`): every key of the timeline, in groups. */
const KEY_HELP: { group: string; keys: [string[], string][] }[] = [
  {
    group: 'Label the selected step',
    keys: [
      [['1', '+'], 'good (+1)'],
      [['2', '0'], 'neutral (0)'],
      [['3', '-'], 'bad (−1)'],
      [['x', 'Del'], 'clear the label'],
      [['f'], 'first error: later agent steps become bad (propagated) unless you labelled them'],
      [['n'], 'add / edit a note (Enter saves, Esc cancels)'],
      [['Enter'], 'labelled step: go to the next unlabelled step · unlabelled step: expand'],
      [['v'], 'rollout verdict: good → neutral → bad → none'],
      [['u', 'Ctrl+Z'], 'undo'],
      [['U', 'Ctrl+Shift+Z'], 'redo'],
    ],
  },
  {
    group: 'Move and read',
    keys: [
      [['j', '↓'], 'next step'],
      [['k', '↑'], 'previous step'],
      [['g', 'Home'], 'first step'],
      [['G', 'End'], 'last step'],
      [['o', 'Space'], 'expand / collapse the step'],
      [['s'], 'show the step in the source file'],
      [['p'], 'play / pause the recording'],
      [['?', 'Esc'], 'show / hide this list'],
    ],
  },
];

/** Reference labels of a rollout's steps, counted. */
interface RefCounts {
  good: number;
  neutral: number;
  bad: number;
  firstError: number | null;
  sources: string[];
}

function refCounts(r: Rollout): RefCounts | null {
  const c: RefCounts = { good: 0, neutral: 0, bad: 0, firstError: null, sources: [] };
  let any = false;
  for (const s of r.steps) {
    const l = s.referenceLabel;
    if (!l) continue;
    any = true;
    if (l.value === 1) c.good++;
    else if (l.value === -1) c.bad++;
    else c.neutral++;
    if (l.firstError && c.firstError === null) c.firstError = s.index;
    if (!c.sources.includes(l.source)) c.sources.push(l.source);
  }
  return any ? c : null;
}

/** The recording shown for the current rollout: asked for (`msg` null) or answered. */
interface CastState {
  rolloutId: string;
  path: string;
  msg: CastMessage | null;
}

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

@customElement('ti-app')
export class TiApp extends LitElement {
  static override styles = css`
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
    header {
      margin-bottom: 12px;
      padding-bottom: 10px;
      border-bottom: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, rgba(128, 128, 128, 0.25)));
    }
    .title-row {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 8px 12px;
    }
    .task-id {
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
      font-family: var(--vscode-editor-font-family, monospace);
    }
    .derived {
      margin-left: 4px;
      font-size: 9px;
      font-weight: 400;
      font-style: italic;
      text-transform: uppercase;
      letter-spacing: 0.04em;
      opacity: 0.75;
    }
    .rollout-links {
      display: flex;
      flex-wrap: wrap;
      gap: 4px 12px;
      font-size: 12px;
      margin-top: 4px;
    }
    .rollout-links button.link {
      font: inherit;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0;
      cursor: pointer;
    }
    .rollout-links button.link:hover {
      text-decoration: underline;
    }
    .file-issues {
      margin-top: 4px;
      font-size: 12px;
      color: var(--vscode-editorWarning-foreground, #cca700);
    }
    .file-issues.has-errors {
      color: var(--vscode-errorForeground, #f48771);
    }
    .file-issues summary {
      cursor: pointer;
    }
    .file-issues ul {
      margin: 4px 0 0 0;
      padding-left: 18px;
      color: var(--vscode-foreground);
    }
    .file-issues li.warning::marker {
      color: var(--vscode-editorWarning-foreground, #cca700);
    }
    .file-issues button.link {
      font: inherit;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0;
      cursor: pointer;
    }
    .rollout-links .missing {
      color: var(--vscode-descriptionForeground);
      font-style: italic;
    }
    h1 {
      margin: 0;
      font-size: 16px;
      font-weight: 600;
      overflow-wrap: anywhere;
    }
    .outcome {
      display: inline-flex;
      gap: 6px;
      align-items: center;
    }
    .pill {
      display: inline-block;
      font-size: 11px;
      font-weight: 600;
      line-height: 18px;
      padding: 0 8px;
      border-radius: 9px;
      border: 1px solid currentColor;
      font-variant-numeric: tabular-nums;
    }
    .pill.resolved {
      color: var(--vscode-testing-iconPassed, #73c991);
    }
    .pill.failed {
      color: var(--vscode-errorForeground, #f48771);
    }
    .pill.neutral {
      color: var(--vscode-descriptionForeground);
    }
    .meta-row {
      display: flex;
      flex-wrap: wrap;
      gap: 2px 14px;
      margin-top: 6px;
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
    }
    .meta-row .value {
      font-weight: 600;
      color: var(--vscode-foreground);
    }
    /* A 2.5 KB agent or model name (untrusted input) is cut with an ellipsis, the whole text in its title:
       it never widens the header or the cards. */
    .meta-row > span,
    .title-row .task-id,
    .title-row .outcome-status {
      max-width: min(48em, 100%);
      min-width: 0;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    #step-count {
      font-weight: 600;
      color: var(--vscode-foreground);
    }
    .instruction {
      margin-top: 8px;
      font-size: 12px;
    }
    .instruction summary {
      cursor: pointer;
      color: var(--vscode-descriptionForeground);
      user-select: none;
    }
    .instruction .text {
      margin-top: 4px;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      max-height: 40vh;
      overflow: auto;
      padding: 6px 8px;
      background: var(--vscode-textBlockQuote-background, rgba(128, 128, 128, 0.1));
      border-left: 3px solid var(--vscode-textBlockQuote-border, rgba(128, 128, 128, 0.4));
    }
    .picker {
      display: flex;
      align-items: center;
      gap: 8px;
      margin-top: 8px;
      font-size: 12px;
    }
    .picker vscode-single-select {
      min-width: 320px;
      max-width: 100%;
    }
    .hint {
      margin: 6px 0 10px;
      font-size: 11px;
      color: var(--vscode-descriptionForeground);
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
    .empty {
      padding: 16px 0;
      color: var(--vscode-descriptionForeground);
    }
    /* Sticky under the scroll: the label progress and strip, and the terminal player when there is one. */
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
    ti-step-card {
      scroll-margin-top: calc(var(--dock-height, 0px) + 8px);
      /* The virtualizer positions cards absolutely: keep them as wide as the list. */
      width: 100%;
      box-sizing: border-box;
    }
    .ref-summary {
      display: inline-flex;
      align-items: center;
      gap: 6px;
    }
    .ref-summary .ref-tag {
      font-size: 9px;
      font-weight: 700;
      letter-spacing: 0.06em;
      text-transform: uppercase;
      padding: 0 4px;
      line-height: 15px;
      border-radius: 2px;
      color: var(--vscode-badge-foreground, #fff);
      background: var(--vscode-badge-background, #616161);
    }
    .ref-summary .good {
      color: var(--vscode-testing-iconPassed, #73c991);
    }
    .ref-summary .bad {
      color: var(--vscode-errorForeground, #f48771);
    }
    .label-row {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 2px 8px;
      font-size: 12px;
      color: var(--vscode-descriptionForeground);
      font-variant-numeric: tabular-nums;
    }
    .label-row .you-tag {
      font-size: 9px;
      font-weight: 700;
      letter-spacing: 0.06em;
      text-transform: uppercase;
      padding: 0 4px;
      line-height: 15px;
      border-radius: 3px;
      color: var(--vscode-editor-background, #1e1e1e);
      background: var(--vscode-textLink-foreground, #3794ff);
    }
    .label-row .strong {
      font-weight: 600;
      color: var(--vscode-foreground);
    }
    .label-row .bad {
      color: var(--vscode-errorForeground, #f48771);
    }
    .label-row .good {
      color: var(--vscode-testing-iconPassed, #73c991);
    }
    .label-row .warn {
      color: var(--vscode-editorWarning-foreground, #cca700);
    }
    .label-row .flash {
      color: var(--vscode-foreground);
      font-style: italic;
    }
    .verdict {
      display: inline-block;
      font-size: 10px;
      font-weight: 700;
      line-height: 16px;
      padding: 0 6px;
      border-radius: 3px;
      color: var(--vscode-editor-background, #1e1e1e);
      background: var(--lab-color);
    }
    .verdict.v-good { --lab-color: var(--vscode-testing-iconPassed, #73c991); }
    .verdict.v-neutral { --lab-color: var(--vscode-editorLineNumber-foreground, #858585); }
    .verdict.v-bad { --lab-color: var(--vscode-errorForeground, #f48771); }
    .verdict.v-none {
      color: var(--vscode-descriptionForeground);
      background: none;
      border: 1px dashed var(--vscode-descriptionForeground);
      font-weight: 400;
    }
    /* One cell per step, coloured by the user's label: the rollout at a glance, click to jump. */
    .label-strip {
      display: flex;
      gap: 1px;
      height: 8px;
      margin-top: 6px;
      cursor: pointer;
    }
    .label-strip .cell {
      flex: 1 1 0;
      min-width: 1px;
      max-width: 28px;
      border-radius: 1px;
      background: var(--vscode-widget-border, rgba(128, 128, 128, 0.25));
    }
    .label-strip .cell.good { background: var(--vscode-testing-iconPassed, #73c991); }
    .label-strip .cell.neutral { background: var(--vscode-editorLineNumber-foreground, #858585); }
    .label-strip .cell.bad { background: var(--vscode-errorForeground, #f48771); }
    .label-strip .cell.propagated {
      background: repeating-linear-gradient(135deg, var(--vscode-errorForeground, #f48771) 0 2px, transparent 2px 4px);
    }
    .label-strip .cell.other-role {
      opacity: 0.35;
    }
    .label-strip .cell.sel {
      outline: 1px solid var(--vscode-focusBorder, #007fd4);
      outline-offset: 1px;
    }
    .label-alert {
      margin-top: 8px;
      padding: 6px 10px;
      font-size: 12px;
      border-radius: 3px;
      border: 1px solid var(--vscode-inputValidation-errorBorder, #be1100);
      background: var(--vscode-inputValidation-errorBackground, rgba(190, 17, 0, 0.1));
      overflow-wrap: anywhere;
    }
    .label-alert.warning {
      border-color: var(--vscode-inputValidation-warningBorder, #b89500);
      background: var(--vscode-inputValidation-warningBackground, rgba(184, 149, 0, 0.1));
    }
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
    .keys-overlay .foot {
      margin-top: 8px;
      color: var(--vscode-descriptionForeground);
    }
  `;

  @state() private view: View = { kind: 'waiting' };
  @state() private selected: number | null = null;
  @state() private expanded = new Set<number>();
  @state() private cast: CastState | null = null;
  /** The labels of the rollout shown, as the host last sent them (null until they come). */
  @state() private labelsMsg: LabelsMessage | null = null;
  /** Step scores of the rollout shown; null until the host sends some. */
  @state() private scoresMsg: ScoresMessage | null = null;
  /** Label changes sent to the host and not answered yet (shown at once). */
  @state() private sentChanges: SentChange[] = [];
  /** The key overlay is open. */
  @state() private showKeys = false;
  /** Step whose note editor is open, or null. */
  @state() private editingNote: number | null = null;
  /** A short message in the label row (e.g. "every step is labelled"), cleared by the next key. */
  @state() private flash: string | null = null;
  /** Replay state of the rollout shown; null before the host sent one. */
  @state() private replay: ReplayStateMessage | null = null;
  /** Follow (live follow): the newest step is kept in view as the file grows. */
  @state() private follow = false;
  /** Steps appended since Follow went off (shown on the button). */
  @state() private unseen = 0;
  /** When the user last turned the wheel down (a scroll down to the end then starts Follow). */
  private userInputAt = -Infinity;
  private lastScrollY = 0;
  /** The running reveal of the end (a newer one replaces it). */
  private endReveal = 0;
  private labelSeq = 0;
  private labelIndexFor: { msg: LabelsMessage | null; sent: SentChange[]; idx: LabelIndex } | null = null;
  private config: ViewConfig = { collapseOutputLines: 20 };
  private restored: PersistedState | null = loadState();
  private unlisten: (() => void) | null = null;
  private pendingReveal: { index: number; block: ScrollLogicalPosition } | null = null;
  /** Scroll position to restore once the list is laid out (a re-created webview). */
  private pendingScrollY: number | null = null;
  /** Step card to put back in place once the list is laid out (a re-created webview of a sliced rollout). */
  private pendingAnchor: { index: number; top: number } | null = null;
  private scrollTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly onScroll = (): void => {
    clearTimeout(this.scrollTimer);
    this.scrollTimer = setTimeout(() => this.persist(), 150);
    // tail -f: the user scrolling up stops Follow; scrolling down to the end starts it. Only the
    // user's scrolls count (the wheel, a drag of the scrollbar): the list's own height changes also
    // move the page.
    const y = window.scrollY;
    const up = y < this.lastScrollY - 2;
    const down = y > this.lastScrollY + 2;
    this.lastScrollY = y;
    if (!this.rolloutMsg?.live) return;
    const byUser = this.dragging || performance.now() - this.userInputAt < 400;
    if (!byUser) return;
    if (this.follow && up && this.dragging) this.setFollow(false);
    else if (!this.follow && down && this.atEnd()) this.setFollow(true);
  };
  private readonly onWheel = (e: WheelEvent): void => {
    if (e.deltaY > 0) this.userInputAt = performance.now();
    else if (e.deltaY < 0) {
      this.userInputAt = -Infinity;
      if (this.follow && this.rolloutMsg?.live) this.setFollow(false);
    }
  };
  /** A drag of the page's scrollbar is running. */
  private dragging = false;
  private readonly onPointer = (e: PointerEvent): void => {
    this.dragging = e.type === 'pointerdown' && e.clientX >= document.documentElement.clientWidth;
  };
  private playerCollapsed = this.restored?.playerCollapsed ?? false;
  private playerSpeed = this.restored?.playerSpeed ?? 1;
  private playerHeight = this.restored?.playerHeight ?? DEFAULT_PLAYER_HEIGHT;
  private playerFit: PlayerFit = this.restored?.playerFit ?? 'width';
  /** Step the player's time last mapped to (selection follows the player only when this changes). */
  private playerStep: number | null = null;
  /** Step marks of the current rollout, computed once per rollout object. */
  private marksFor: { rollout: Rollout; marks: StepMark[]; view: PlayerMark[] } | null = null;
  private dockObserver: ResizeObserver | null = null;
  /** Full steps of a sliced (large) rollout, asked for as their cards come into view. */
  readonly stepStore = new StepStore({ post: (m) => post(m) });
  /** Cards the virtualizer renders now (its last `rangeChanged`), and the timer that asks for their steps. */
  private range: { first: number; last: number } | null = null;
  /** Holds a card in place while a sliced rollout's cards change height (cardAnchor.ts). */
  private readonly cardAnchor = new CardAnchor(() => this.renderRoot, () => this.pendingReveal !== null || this.rolloutMsg === null || this.follow);
  private rangeTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly onRange = (e: Event): void => {
    const r = e as Event & { first: number; last: number };
    this.range = { first: r.first, last: r.last };
    // Coalesces the events of a fast scroll into one look at the range.
    clearTimeout(this.rangeTimer);
    this.rangeTimer = setTimeout(() => this.wantRange(), 30);
  };

  override connectedCallback(): void {
    super.connectedCallback();
    this.unlisten = onHostMessage((m) => this.onMessage(m));
    window.addEventListener('keydown', this.onKeyDown);
    window.addEventListener('scroll', this.onScroll, { passive: true });
    window.addEventListener('wheel', this.onWheel, { passive: true, capture: true });
    for (const ev of ['pointerdown', 'pointerup', 'pointercancel'] as const) window.addEventListener(ev, this.onPointer, { passive: true, capture: true });
    post({ type: 'ready', state: this.restored });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unlisten?.();
    window.removeEventListener('keydown', this.onKeyDown);
    window.removeEventListener('scroll', this.onScroll);
    window.removeEventListener('wheel', this.onWheel, { capture: true });
    for (const ev of ['pointerdown', 'pointerup', 'pointercancel'] as const) window.removeEventListener(ev, this.onPointer, { capture: true });
    clearTimeout(this.scrollTimer);
    clearTimeout(this.rangeTimer);
    this.dockObserver?.disconnect();
    this.dockObserver = null;
  }

  private get player(): TiPlayer | null {
    return this.renderRoot.querySelector('ti-player');
  }

  private marks(r: Rollout): { marks: StepMark[]; view: PlayerMark[] } {
    if (this.marksFor?.rollout !== r) {
      const marks = stepMarks(r.steps);
      const view = marks.map((m) => {
        const s = r.steps[m.index];
        const gist = stepGist(s);
        return { index: m.index, time: m.time, label: `#${m.index + 1} ${s.role}${gist ? ` · ${gist}` : ''}`, ref: s.referenceLabel?.value ?? null };
      });
      this.marksFor = { rollout: r, marks, view };
    }
    return this.marksFor;
  }

  /** Asks the host for the rollout's recording unless it is the one already shown. */
  private requestCast(m: RolloutMessage): void {
    const rec = m.rollout.recording;
    if (!rec) {
      this.cast = null;
      return;
    }
    if (this.cast && this.cast.rolloutId === m.rollout.id && this.cast.path === rec.path) return;
    this.cast = { rolloutId: m.rollout.id, path: rec.path, msg: null };
    this.playerStep = null;
    post({ type: 'loadCast', rolloutIndex: m.rolloutIndex });
  }

  /** Seeks the player to step `index`'s time in the recording (when it has one). */
  private seekPlayerTo(index: number): void {
    const r = this.rolloutMsg;
    const t = r?.rollout.steps[index]?.castTime;
    const player = this.player;
    if (!r || typeof t !== 'number' || !player || !player.duration) return;
    player.seek(t);
    this.playerStep = stepAtTime(this.marks(r.rollout).marks, player.currentTime);
  }

  /** Where a recording given to the player starts: the selected step's time, else 0. */
  private startTime(r: Rollout): number {
    const t = this.selected !== null ? r.steps[this.selected]?.castTime : null;
    return typeof t === 'number' ? t : 0;
  }

  private readonly onPlayerTime = (e: PlayerTimeEvent): void => {
    const r = this.rolloutMsg;
    if (!r) return;
    const step = stepAtTime(this.marks(r.rollout).marks, e.detail.time);
    if (step === this.playerStep) return;
    this.playerStep = step;
    if (step !== null && step !== this.selected) this.select(step, 'nearest', true);
  };

  private readonly onPlayerPrefs = (e: PlayerPrefsEvent): void => {
    if ((PLAYER_SPEEDS as readonly number[]).includes(e.detail.speed)) this.playerSpeed = e.detail.speed;
    this.playerCollapsed = e.detail.collapsed;
    this.playerHeight = e.detail.heightShare;
    this.playerFit = e.detail.fitMode;
    this.persist();
  };

  private get rolloutMsg(): RolloutMessage | null {
    return this.view.kind === 'rollout' ? this.view.msg : null;
  }

  private onMessage(m: HostMessage): void {
    switch (m.type) {
      case 'rollout': {
        this.stepStore.reset(m);
        // The virtualizer reports a range only when it changes: ask for the steps of the range shown once this rollout renders.
        if (m.sliced) void this.updateComplete.then(() => this.wantRange());
        const prev = this.rolloutMsg;
        const sameRollout = prev !== null && prev.rollout.id === m.rollout.id;
        const count = m.rollout.steps.length;
        this.config = m.config;
        if (!sameRollout) {
          if (this.labelsMsg?.rolloutId !== m.rollout.id) this.labelsMsg = null;
          if (this.scoresMsg?.rolloutId !== m.rollout.id) this.scoresMsg = null;
          this.sentChanges = [];
          this.editingNote = null;
          this.flash = null;
          // Restore what an earlier instance of this webview had for this rollout, else start fresh.
          const st = this.restored;
          this.follow = false;
          this.unseen = 0;
          if (st && st.rolloutId === m.rollout.id) {
            this.selected = st.selectedStep !== null && st.selectedStep < count ? st.selectedStep : null;
            this.expanded = new Set(st.expanded.filter((i) => i < count));
            this.follow = st.follow === true && m.revealStep === null && m.live !== undefined;
            if (this.follow) {
              // Follow was on: back at the end, which may have grown meanwhile.
            } else if (m.sliced && st.scrollStep !== undefined && st.scrollStep < count && m.revealStep === null) this.pendingAnchor = { index: st.scrollStep, top: st.scrollStepTop ?? 0 };
            else if (st.scrollY !== undefined && m.revealStep === null) this.pendingScrollY = st.scrollY;
          } else {
            // Start on the first step so the keys and Show in Source work right away.
            this.selected = count ? 0 : null;
            this.expanded = new Set();
            if (count) post({ type: 'stepSelected', rolloutIndex: m.rolloutIndex, stepIndex: 0 });
          }
        } else if (this.selected !== null && this.selected >= count) {
          this.selected = count ? count - 1 : null;
        }
        this.restored = null;
        this.view = { kind: 'rollout', msg: m };
        this.requestCast(m);
        if (m.revealStep !== null && m.revealStep < count) this.select(m.revealStep, 'center');
        else if (this.follow) this.revealEnd();
        // The same rollout read again (its file changed) keeps the scroll where it is.
        else if (this.selected && !this.pendingAnchor && !sameRollout) this.pendingReveal = { index: this.selected, block: 'center' };
        this.persist();
        break;
      }
      case 'rolloutUpdate':
        this.applyUpdate(m);
        break;
      case 'live': {
        const cur = this.rolloutMsg;
        if (cur) this.view = { kind: 'rollout', msg: { ...cur, live: m.live } };
        break;
      }
      case 'toggleFollow':
        this.setFollow(m.on ?? !this.follow);
        break;
      case 'loadError':
        this.view = { kind: 'error', msg: m };
        break;
      case 'loading':
        if (this.view.kind !== 'rollout') this.view = { kind: 'loading', file: m.file };
        break;
      case 'revealStep':
        this.select(m.index, m.reveal === false ? null : 'center');
        break;
      case 'moveSelection':
        this.move(m.delta);
        break;
      case 'config':
        this.config = m.config;
        this.requestUpdate();
        break;
      case 'labels':
        // Labels of another rollout (a late answer after switching) are dropped.
        if (this.rolloutMsg && this.rolloutMsg.rollout.id !== m.rolloutId) break;
        this.labelsMsg = m;
        if (m.seq !== null) this.sentChanges = this.sentChanges.filter((c) => c.seq > m.seq!);
        break;
      case 'runLabelAction':
        this.runLabelAction(m.action);
        break;
      case 'replayState':
        this.replay = m;
        break;
      case 'scores':
        // Scores of another rollout (a late answer after switching) are dropped.
        if (this.rolloutMsg && this.rolloutMsg.rollout.id !== m.rolloutId) break;
        this.scoresMsg = m;
        break;
      case 'steps':
        if (this.stepStore.receive(m)) {
          // Keep the selected (else the top) card in place while the steps around it render; following, the end.
          if (this.follow) this.revealEnd();
          else if (this.pendingScrollY === null) this.cardAnchor.keepInView(this.selected);
          this.requestUpdate();
          this.wantRange(); // an answer cut short (size cap) leaves steps to ask for
        }
        break;
      case 'cast':
        if (this.cast && this.cast.rolloutId === m.rolloutId && this.rolloutMsg?.rollout.id === m.rolloutId) {
          this.cast = { ...this.cast, msg: m };
          // The player starts at the selected step's time (startTime); the selection stays.
          this.playerStep = stepAtTime(this.marks(this.rolloutMsg.rollout).marks, this.startTime(this.rolloutMsg.rollout));
        }
        break;
    }
  }

  /**
   * A `rolloutUpdate` (live follow): the steps from `from` on are replaced by the message's, the
   * rest of the rollout taken as it is now; selection, expansion and labels stay (they key by step
   * index, which an update never shifts). Following, the newest step is revealed; else the
   * selected (or top) card stays where it is while changed steps above it change height.
   */
  private applyUpdate(m: RolloutUpdateMessage): void {
    const cur = this.rolloutMsg;
    if (!cur || cur.rollout.id !== m.rolloutId || cur.rolloutIndex !== m.rolloutIndex) return;
    const old = cur.rollout.steps;
    if (m.from > old.length) {
      post({ type: 'resend' }); // an update was lost: the host sends the whole rollout
      return;
    }
    if (!this.follow && m.from < old.length && this.pendingScrollY === null) this.cardAnchor.keepInView(this.selected);
    const steps = m.from === old.length ? old.concat(m.steps) : old.slice(0, m.from).concat(m.steps);
    let sliced = cur.sliced;
    if (m.sliced) sliced = { ...m.sliced, cuts: [...(cur.sliced?.cuts ?? []).filter((c) => c.index < m.from), ...m.sliced.cuts] };
    this.stepStore.update(m.rolloutIndex, m.rolloutId, m.from, steps.length, m.sliced ? m.sliced.cuts : null);
    const { rolloutCount: _count, ...rest } = cur;
    const msg: RolloutMessage = { ...rest, rollout: { ...m.rollout, steps }, summaries: m.summaries, ...(m.rolloutCount !== undefined ? { rolloutCount: m.rolloutCount } : {}), live: m.live, ...(sliced ? { sliced } : {}) };
    this.view = { kind: 'rollout', msg };
    if (this.selected !== null && this.selected >= steps.length) this.selected = steps.length ? steps.length - 1 : null;
    if (this.follow) this.revealEnd();
    else if (steps.length > old.length) this.unseen += steps.length - old.length;
    if (sliced) void this.updateComplete.then(() => this.wantRange());
  }

  /** The end of the list is in view (the page scrolled to its bottom, or the list ends on screen). */
  private atEnd(): boolean {
    const doc = document.documentElement;
    if (window.scrollY + window.innerHeight >= doc.scrollHeight - 4) return true;
    const count = this.rolloutMsg?.rollout.steps.length ?? 0;
    const last = count ? this.renderRoot.querySelector<HTMLElement>(`ti-step-card[data-index="${count - 1}"]`) : null;
    return !!last && last.getBoundingClientRect().bottom <= window.innerHeight;
  }

  /** Turns Follow on (and goes to the end) or off. */
  private setFollow(on: boolean): void {
    if (on === this.follow) {
      if (on) this.revealEnd();
      return;
    }
    this.follow = on;
    if (on) {
      this.unseen = 0;
      this.revealEnd();
    }
    this.persist();
  }

  /**
   * Scrolls to the end of the page, so the newest step is in view, and again on the next frames
   * while the virtualizer measures the cards it renders there (its height is an estimate until
   * then), until the end holds still for a few frames.
   */
  private revealEnd(): void {
    const token = ++this.endReveal;
    const run = (tries: number, still: number): void => {
      if (token !== this.endReveal || !this.follow) return;
      // The newest card's bottom just above the window's (the page's end, below the list, is padding).
      const end = Math.max(0, document.documentElement.scrollHeight - window.innerHeight);
      const count = this.rolloutMsg?.rollout.steps.length ?? 0;
      const last = count ? this.renderRoot.querySelector<HTMLElement>(`ti-step-card[data-index="${count - 1}"]`) : null;
      const target = last ? Math.max(0, Math.min(end, Math.round(window.scrollY + last.getBoundingClientRect().bottom - window.innerHeight + 24))) : end;
      if (Math.abs(window.scrollY - target) > 1) {
        window.scrollTo(0, target);
        still = 0;
      } else still++;
      this.lastScrollY = window.scrollY;
      if (tries > 0 && still < 4) requestAnimationFrame(() => run(tries - 1, still));
    };
    void this.updateComplete.then(() => requestAnimationFrame(() => run(90, 0)));
  }

  /** Asks for the full steps of the cards rendered now and a margin around them (a sliced rollout). */
  private wantRange(): void {
    const r = this.range;
    if (r && r.last >= r.first) this.stepStore.want(r.first - 10, r.last + 11);
  }

  private persist(): void {
    const r = this.rolloutMsg;
    const st: PersistedState = {
      rolloutIndex: r?.rolloutIndex ?? 0,
      rolloutId: r?.rollout.id ?? null,
      selectedStep: this.selected,
      expanded: [...this.expanded].sort((a, b) => a - b),
    };
    if (r && window.scrollY > 0) st.scrollY = Math.round(window.scrollY);
    if (this.follow) st.follow = true;
    if (r?.sliced && st.scrollY !== undefined) {
      const top = topCard(this.renderRoot);
      if (top) {
        st.scrollStep = top.index;
        st.scrollStepTop = top.top;
      }
    }
    // Player settings only when changed from the defaults.
    if (this.playerCollapsed) st.playerCollapsed = true;
    if (this.playerSpeed !== 1) st.playerSpeed = this.playerSpeed;
    if (this.playerHeight !== DEFAULT_PLAYER_HEIGHT) st.playerHeight = this.playerHeight;
    if (this.playerFit !== 'width') st.playerFit = this.playerFit;
    saveState(st);
  }

  /**
   * Selects a step, reports it to the host and scrolls it into view (`block` null: no scroll).
   * The player seeks to the step, unless the selection came from the player (`fromPlayer`).
   */
  select(index: number, block: ScrollLogicalPosition | null = 'nearest', fromPlayer = false): void {
    const r = this.rolloutMsg;
    if (!r) return;
    const count = r.rollout.steps.length;
    if (count === 0) return;
    const i = Math.max(0, Math.min(count - 1, index));
    this.stepStore.want(i, i + 1);
    // Going to the newest step starts Follow; revealing an earlier one stops it (it would be scrolled away).
    if (block && !fromPlayer && r.live) {
      if (i === count - 1) this.setFollow(true);
      else if (this.follow) this.setFollow(false);
    }
    const changed = i !== this.selected;
    this.selected = i;
    if (block) this.pendingReveal = { index: i, block };
    if (changed) {
      post({ type: 'stepSelected', rolloutIndex: r.rolloutIndex, stepIndex: i });
      this.persist();
    }
    if (!fromPlayer) this.seekPlayerTo(i);
    this.requestUpdate();
  }

  private move(delta: number): void {
    const r = this.rolloutMsg;
    if (!r || r.rollout.steps.length === 0) return;
    const from = this.selected ?? (delta > 0 ? -1 : r.rollout.steps.length);
    this.select(from + delta);
  }

  private toggleExpand(index: number): void {
    const next = new Set(this.expanded);
    if (next.has(index)) next.delete(index);
    else next.add(index);
    this.expanded = next;
    this.persist();
  }

  /** The user's labels and the others', with the changes in flight applied (memoised per message). */
  private get labelIndex(): LabelIndex {
    const c = this.labelIndexFor;
    if (c && c.msg === this.labelsMsg && c.sent === this.sentChanges) return c.idx;
    const idx = indexLabels(this.labelsMsg, this.sentChanges);
    this.labelIndexFor = { msg: this.labelsMsg, sent: this.sentChanges, idx };
    return idx;
  }

  /** Sends a label change of the selected step (or the verdict: `stepIndex` null) and shows it at once. */
  private sendLabel(stepIndex: number | null, change: { value?: LabelValue | null; note?: string | null }): void {
    const r = this.rolloutMsg;
    if (!r) return;
    const seq = ++this.labelSeq;
    this.sentChanges = [...this.sentChanges, { seq, stepIndex, ...change }];
    post({ type: 'setLabel', rolloutIndex: r.rolloutIndex, stepIndex, ...change, seq });
  }

  private labelSelected(value: LabelValue | null): void {
    if (this.selected === null) return;
    this.sendLabel(this.selected, { value });
  }

  private markFirstError(): void {
    const r = this.rolloutMsg;
    if (!r || this.selected === null) return;
    const seq = ++this.labelSeq;
    // Shown at once on the step itself; the propagated labels come with the host's answer.
    this.sentChanges = [...this.sentChanges, { seq, stepIndex: this.selected, value: -1, firstError: true }];
    post({ type: 'markFirstError', rolloutIndex: r.rolloutIndex, stepIndex: this.selected, seq });
  }

  private undoRedo(type: 'undoLabel' | 'redoLabel'): void {
    if (!this.rolloutMsg) return;
    post({ type, seq: ++this.labelSeq });
  }

  private editNote(): void {
    if (this.selected === null) return;
    this.editingNote = this.selected;
    this.pendingReveal = { index: this.selected, block: 'nearest' };
  }

  private readonly onNoteDone = (e: CustomEvent<{ index: number; note?: string | null }>): void => {
    if (this.editingNote !== e.detail.index) return;
    this.editingNote = null;
    if (e.detail.note !== undefined) this.sendLabel(e.detail.index, { note: e.detail.note });
  };

  /**
   * Enter: on a step the user has labelled, go to the next unlabelled one (wrapping round); on an
   * unlabelled step, expand / collapse it as Enter always did.
   */
  private commitAndNext(): void {
    const r = this.rolloutMsg;
    if (!r || this.selected === null) return;
    const idx = this.labelIndex;
    if (!isLabelled(idx, this.selected)) {
      this.toggleExpand(this.selected);
      this.pendingReveal = { index: this.selected, block: 'nearest' };
      return;
    }
    const labelable = this.labelable(r.rollout);
    const next = nextUnlabelled(idx, labelable, this.selected);
    if (next === null) this.flash = `All ${labelable.length} steps to label are labelled.`;
    else this.select(next, 'center');
  }

  /** The steps a label is for (agent steps), computed once per rollout object. */
  private labelableFor: { rollout: Rollout; steps: number[] } | null = null;
  private labelable(r: Rollout): number[] {
    if (this.labelableFor?.rollout !== r) this.labelableFor = { rollout: r, steps: labelableSteps(r.steps) };
    return this.labelableFor.steps;
  }

  private cycleVerdict(): void {
    if (!this.rolloutMsg) return;
    this.sendLabel(null, { value: nextVerdict(this.labelIndex.verdict?.value ?? null) });
  }

  /** A labelling command from the host (palette, keybinding): the same as the key. */
  private runLabelAction(action: LabelAction): void {
    if (!this.rolloutMsg) return;
    this.flash = null;
    switch (action) {
      case 'good':
        return this.labelSelected(1);
      case 'neutral':
        return this.labelSelected(0);
      case 'bad':
        return this.labelSelected(-1);
      case 'clear':
        return this.labelSelected(null);
      case 'firstError':
        return this.markFirstError();
      case 'note':
        return this.editNote();
      case 'commitAndNext':
        return this.commitAndNext();
      case 'verdict':
        return this.cycleVerdict();
      case 'showKeys':
        this.showKeys = !this.showKeys;
        return;
    }
  }

  private readonly onKeyDown = (e: KeyboardEvent): void => {
    if (isEditable(e)) return;
    const r = this.rolloutMsg;
    if (!r) return;
    // Undo / redo with Ctrl (Cmd): VS Code's webview frame marks these handled before this listener
    // runs (and gives them to the workbench, whose undo/redo do nothing in this read-only editor).
    if ((e.ctrlKey || e.metaKey) && !e.altKey) {
      const k = e.key.toLowerCase();
      if (k === 'z' || (k === 'y' && !e.shiftKey)) {
        this.undoRedo(k === 'z' && !e.shiftKey ? 'undoLabel' : 'redoLabel');
        e.preventDefault();
      }
      return;
    }
    if (e.defaultPrevented || e.altKey) return;
    const last = r.rollout.steps.length - 1;
    const onControl = () =>
      e.composedPath().some((el) => el instanceof HTMLButtonElement || el instanceof HTMLAnchorElement || (el instanceof HTMLElement && (el.tagName === 'SUMMARY' || el.tagName === 'VSCODE-BUTTON')));
    let handled = true;
    this.flash = null;
    switch (e.key) {
      case 'j':
      case 'ArrowDown':
        this.move(1);
        break;
      case 'k':
      case 'ArrowUp':
        this.move(-1);
        break;
      case 'g':
      case 'Home':
        this.select(0);
        break;
      case 'G':
      case 'End':
        this.select(last);
        break;
      case 'Enter':
        // Enter on a focused button or link keeps its own meaning.
        if (this.selected === null || onControl()) {
          handled = false;
          break;
        }
        this.commitAndNext();
        break;
      case 'o':
      case ' ':
        if (this.selected === null || onControl()) {
          handled = false;
          break;
        }
        this.toggleExpand(this.selected);
        this.pendingReveal = { index: this.selected, block: 'nearest' };
        break;
      case 's':
        if (this.selected !== null) post({ type: 'showInSource', rolloutIndex: r.rolloutIndex, stepIndex: this.selected });
        break;
      case 'p': {
        const player = this.player;
        if (player && player.duration) player.toggle();
        else handled = false;
        break;
      }
      case '1':
      case '+':
        this.labelSelected(1);
        break;
      case '2':
      case '0':
        this.labelSelected(0);
        break;
      case '3':
      case '-':
        this.labelSelected(-1);
        break;
      case 'x':
      case 'Delete':
        this.labelSelected(null);
        break;
      case 'f':
        this.markFirstError();
        break;
      case 'n':
        this.editNote();
        break;
      case 'v':
        this.cycleVerdict();
        break;
      case 'u':
        this.undoRedo('undoLabel');
        break;
      case 'U':
        this.undoRedo('redoLabel');
        break;
      case '?':
        this.showKeys = !this.showKeys;
        break;
      case 'Escape':
        if (this.showKeys) this.showKeys = false;
        else handled = false;
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  };

  protected override updated(): void {
    this.watchDock();
    if (this.pendingAnchor) {
      const a = this.pendingAnchor;
      this.pendingAnchor = null;
      this.cardAnchor.keep(a, 180, 20);
    }
    if (this.pendingScrollY !== null) {
      const y = this.pendingScrollY;
      this.pendingScrollY = null;
      // The virtualizer sizes the list from the cards it has measured: scroll again until the page is tall enough.
      const restore = (tries: number): void => {
        window.scrollTo(0, y);
        if (Math.abs(window.scrollY - y) > 2 && tries > 0) requestAnimationFrame(() => restore(tries - 1));
      };
      requestAnimationFrame(() => restore(60));
    }
    const reveal = this.pendingReveal;
    if (!reveal) return;
    this.pendingReveal = null;
    const card = this.renderRoot.querySelector<TiStepCard>(`ti-step-card[data-index="${reveal.index}"]`);
    if (card) {
      card.scrollIntoView({ block: reveal.block });
      // On a first render the cards (child elements) lay out after this: scroll again once they have,
      // or a step opened from Compare / Search would be selected but left out of view.
      void card.updateComplete.then(() => requestAnimationFrame(() => {
        if (card.isConnected && this.selected === reveal.index) card.scrollIntoView({ block: reveal.block });
      }));
      return;
    }
    // Not rendered (virtualized away): the virtualizer scrolls to it and renders it. On a first
    // render the virtualizer may not exist or have no layout yet: try again on later frames (up to
    // ~2 s), then scroll the card itself once it is rendered (the virtualizer's place is an estimate).
    const scroll = (tries: number): void => {
      if (this.pendingReveal) return; // a newer reveal takes over
      if (this.selected !== reveal.index && tries < 120) return; // the user moved on meanwhile
      const card = this.renderRoot.querySelector<TiStepCard>(`ti-step-card[data-index="${reveal.index}"]`);
      if (card) {
        card.scrollIntoView({ block: reveal.block });
        return;
      }
      const list = this.renderRoot.querySelector('main.timeline') as (HTMLElement & { [virtualizerRef]?: { element(i: number): { scrollIntoView(o?: ScrollIntoViewOptions): void } | undefined } }) | null;
      try {
        list?.[virtualizerRef]?.element(reveal.index)?.scrollIntoView({ block: reveal.block });
      } catch {
        // no layout yet
      }
      if (tries > 0) requestAnimationFrame(() => scroll(tries - 1));
    };
    scroll(120);
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
    const c = this.cast;
    if (!c || c.rolloutId !== m.rollout.id) return nothing;
    const msg = c.msg;
    return html`<ti-player
        .cast=${msg?.cast ?? null}
        .path=${c.path}
        .error=${msg?.error ?? null}
        .note=${msg?.note ?? null}
        .marks=${this.marks(m.rollout).view}
        .selectedStep=${this.selected}
        .startTime=${this.startTime(m.rollout)}
        .speed=${this.playerSpeed}
        .heightShare=${this.playerHeight}
        .fitMode=${this.playerFit}
        ?collapsed=${this.playerCollapsed}
        @player-time=${this.onPlayerTime}
        @player-prefs=${this.onPlayerPrefs}
        @mark-select=${(e: CustomEvent<{ index: number }>) => this.select(e.detail.index, 'center')}
      ></ti-player>`;
  }

  private renderRefSummary(r: Rollout): TemplateResult | typeof nothing {
    const c = refCounts(r);
    if (!c) return nothing;
    const parts: TemplateResult[] = [];
    if (c.good) parts.push(html`<span class="good">${c.good} good</span>`);
    if (c.neutral) parts.push(html`<span class="neutral">${c.neutral} neutral</span>`);
    if (c.bad) parts.push(html`<span class="bad">${c.bad} bad</span>`);
    const title = `Step labels that came with the data (${c.sources.join(', ')}): +1 good, 0 neutral, −1 bad`;
    return html`<span class="ref-summary" title=${title}>
      <span class="ref-tag">ref</span>
      <span>reference labels: ${parts.map((p, i) => html`${i ? ', ' : ''}${p}`)}</span>
      ${c.firstError !== null ? html`<span>· first error at <span class="value">#${c.firstError + 1}</span></span>` : nothing}
    </span>`;
  }

  /** "YOU alice · 12/40 labelled · 3 bad · first error #7 · verdict", the label strip, write errors. */
  private renderLabelRow(m: RolloutMessage): TemplateResult {
    const lm = this.labelsMsg;
    const steps = m.rollout.steps;
    if (!lm && !this.sentChanges.length) {
      return html`<div class="label-row" id="label-progress" data-sending="0"><span class="you-tag">you</span><span>labels loading…</span></div>`;
    }
    const idx = this.labelIndex;
    const labelable = this.labelable(m.rollout);
    const p = labelProgress(idx, labelable);
    const which = labelable.length === steps.length ? 'steps' : 'agent steps';
    const v = idx.verdict?.value ?? null;
    const others = new Map<string, number>();
    for (const list of idx.others.values()) for (const o of list) if (o.value !== null) others.set(o.annotator, (others.get(o.annotator) ?? 0) + 1);
    const unsaved = [...idx.mine.values()].filter((l) => l.pending === 'unsaved').length + (idx.verdict?.pending === 'unsaved' ? 1 : 0);
    const verdictTitle = idx.verdict ? labelTitle(idx.verdict, null, true).replace('Your label', 'Your verdict on the rollout') : 'No verdict on the rollout yet (v sets it)';
    return html`<div class="label-row" id="label-progress" data-sending=${String(this.sentChanges.length)} title=${lm ? `Your labels are kept in ${lm.journal}` : 'Labels are loading…'}>
        <span class="you-tag">you</span>
        <span class="annotator strong">${idx.annotator || '…'}</span>
        <span>·</span>
        <span class="progress" title=${`${p.labelled} of the ${p.total} ${which} have your label (Enter goes to the next one without)`}><span class="strong">${p.labelled}/${p.total}</span> ${which === 'agent steps' ? 'agent steps ' : ''}labelled</span>
        ${p.outside ? html`<span class="outside-labels" title="Only agent steps count towards the progress; these labels are kept and exported all the same">(+${p.outside} ${p.outside === 1 ? 'other step' : 'other steps'}, not counted)</span>` : nothing}
        ${p.bad ? html`<span>·</span><span class="bad">${p.bad} bad</span>` : nothing}
        ${p.propagated ? html`<span title="propagated from the first error">(${p.propagated} propagated)</span>` : nothing}
        ${p.firstError !== null
          ? html`<span>·</span><span class="first-error-summary">first error <a class="strong" href="#" @click=${(e: Event) => {
                e.preventDefault();
                this.select(p.firstError!, 'center');
              }}>#${p.firstError + 1}</a></span>`
          : nothing}
        <span>·</span>
         <span class="verdict v-${v === null ? 'none' : valueText(v).word}" title=${verdictTitle}>verdict ${v === null ? '—' : `${valueText(v).sign} ${valueText(v).word}`}</span>
        ${p.stale ? html`<span>·</span><span class="warn" title="steps that changed since they were labelled">${p.stale} stale</span>` : nothing}
        ${unsaved ? html`<span>·</span><span class="warn">${unsaved} unsaved</span>` : nothing}
        ${others.size
          ? html`<span>·</span><span class="others" title="other annotators' labels in the journal">also ${[...others].map(([a, n]) => `${a} (${n})`).join(', ')}</span>`
          : nothing}
        ${this.flash ? html`<span>·</span><span class="flash">${this.flash}</span>` : nothing}
      </div>
      ${steps.length ? this.renderLabelStrip(m, idx) : nothing}
      ${lm?.error
        ? html`<div class="label-alert error" role="alert">
            Could not write the labels to ${lm.journal}: ${lm.error}. What you labelled is kept in this window (marked “unsaved”) and written with your next change.
          </div>`
        : nothing}
      ${lm?.warnings.length
        ? html`<div class="label-alert warning">${lm.warnings.length === 1 ? 'The label journal has a problem' : `The label journal has ${lm.warnings.length} problems`}: ${lm.warnings.slice(0, 3).join(' · ')}${lm.warnings.length > 3 ? ' …' : ''}</div>`
        : nothing}`;
  }

  private renderLabelStrip(m: RolloutMessage, idx: LabelIndex): TemplateResult {
    const labelable = new Set(this.labelable(m.rollout));
    const onClick = (e: MouseEvent): void => {
      const cell = (e.target as HTMLElement).closest?.('.cell') as HTMLElement | null;
      const i = cell ? Number(cell.dataset.index) : NaN;
      if (Number.isInteger(i)) this.select(i, 'center');
    };
    const steps = m.rollout.steps;
    return html`<div class="label-strip" role="presentation" @click=${onClick}>
      ${stripRanges(steps.length).map(([from, to]) => {
        if (to - from > 1) return this.renderLabelCell(steps, from, to, idx, labelable);
        const s = steps[from];
        const l = idx.mine.get(s.index);
        const word = l && l.value !== null ? valueText(l.value).word : 'none';
        const title = `#${s.index + 1} ${s.role}${l && l.value !== null ? ` · ${valueText(l.value).sign} ${word}${l.origin === 'propagated' ? ' (propagated)' : ''}` : ' · unlabelled'}`;
        const other = labelable.has(s.index) ? '' : 'other-role';
        return html`<span class="cell ${word} ${other} ${l?.origin === 'propagated' ? 'propagated' : ''} ${s.index === this.selected ? 'sel' : ''}" data-index=${s.index} title=${title}></span>`;
      })}
    </div>`;
  }

  /**
   * A label-strip cell standing for steps `from` … `to - 1` (a long rollout): the worst of their
   * labels (bad, then neutral, then good); a click selects the first step with that label, or the
   * first step of the range.
   */
  private renderLabelCell(steps: readonly Step[], from: number, to: number, idx: LabelIndex, labelable: ReadonlySet<number>): TemplateResult {
    const rank: Record<string, number> = { bad: 3, neutral: 2, good: 1 };
    let word = 'none';
    let at = steps[from].index;
    let propagated = false;
    let labelled = 0;
    let anyLabelable = false;
    for (let i = from; i < to; i++) {
      const s = steps[i];
      if (labelable.has(s.index)) anyLabelable = true;
      const l = idx.mine.get(s.index);
      if (!l || l.value === null) continue;
      labelled++;
      const w = valueText(l.value).word;
      if ((rank[w] ?? 0) > (rank[word] ?? 0)) {
        word = w;
        at = s.index;
        propagated = l.origin === 'propagated';
      }
    }
    const first = steps[from].index;
    const last = steps[to - 1].index;
    const sel = this.selected !== null && this.selected >= first && this.selected <= last;
    const title = `#${first + 1}–#${last + 1} · ${labelled ? `${labelled} labelled${word !== 'none' ? `, worst ${word}` : ''}` : 'unlabelled'}`;
    return html`<span class="cell multi ${word} ${anyLabelable ? '' : 'other-role'} ${propagated ? 'propagated' : ''} ${sel ? 'sel' : ''}" data-index=${at} data-from=${first} data-to=${last} title=${title}></span>`;
  }

  /** The step scores' heat strip (in the dock) and the scrollbar marks of low-scored steps. */
  private renderScores(m: RolloutMessage): TemplateResult | typeof nothing {
    const sm = this.scoresMsg;
    if (!sm || sm.rolloutId !== m.rollout.id) return nothing;
    const onSelect = (e: CustomEvent<{ index: number }>): void => this.select(e.detail.index, 'center');
    return html`<ti-heatstrip .steps=${m.rollout.steps} .scores=${sm} .selected=${this.selected} @select-step=${onSelect}></ti-heatstrip>
      <ti-scrollmarks .scores=${sm} .stepCount=${this.rolloutMsg?.rollout.steps.length ?? 0} .selected=${this.selected} .cards=${() => this.renderRoot.querySelectorAll<HTMLElement>('ti-step-card')} @select-step=${onSelect}></ti-scrollmarks>`;
  }

  private scoreOf(index: number): StepScoreView | null {
    const sm = this.scoresMsg;
    if (!sm || sm.rolloutId !== this.rolloutMsg?.rollout.id) return null;
    if (this.scoreIndex?.msg !== sm) this.scoreIndex = { msg: sm, byIndex: new Map(sm.steps.map((s) => [s.index, s])) };
    return this.scoreIndex.byIndex.get(index) ?? null;
  }

  private scoreIndex: { msg: ScoresMessage; byIndex: Map<number, StepScoreView> } | null = null;

  private renderKeys(): TemplateResult | typeof nothing {
    if (!this.showKeys) return nothing;
    return html`<div class="keys-overlay" role="dialog" aria-label="Trajectory Inspector keys">
      <h2>Keys</h2>
      <table>
        ${KEY_HELP.map(
          (g) => html`<tr><th colspan="2"><h3>${g.group}</h3></th></tr>
            ${g.keys.map(([keys, what]) => html`<tr><td class="k">${keys.map((k, i) => html`${i ? ' ' : ''}<kbd>${k}</kbd>`)}</td><td>${what}</td></tr>`)}`,
        )}
      </table>
      <div class="foot">Labels are written to the journal the moment you press the key. Every key is also a command (Trajectory Inspector: Label Step Good, …) you can bind in Keyboard Shortcuts.</div>
    </div>`;
  }

  private onCardClick(e: MouseEvent): void {
    const card = (e.composedPath().find((el) => el instanceof HTMLElement && el.tagName === 'TI-STEP-CARD') ?? null) as TiStepCard | null;
    if (!card) return;
    // Selecting text inside a card should not count as a click that moves the selection.
    const sel = window.getSelection();
    if (sel && !sel.isCollapsed && card.step.index === this.selected) return;
    this.select(card.step.index, null);
  }

  private onPickRollout(e: Event): void {
    const r = this.rolloutMsg;
    const value = Number((e.target as HTMLElement & { value: string }).value);
    if (!r || !Number.isInteger(value) || value === r.rolloutIndex) return;
    post({ type: 'rolloutSelected', rolloutIndex: value });
  }

  private renderHeader(m: RolloutMessage): TemplateResult {
    const r = m.rollout;
    const o = r.outcome;
    const t = totals(r);
    const agent = [r.agent.name, r.agent.version].filter(Boolean).join(' ');
    // A file with several rollouts is named by the rollout's task; a single rollout by its file's label.
    const title = rolloutCount(m) > 1 ? (r.task.id ?? `${m.file.label} #${m.rolloutIndex + 1}`) : m.file.label;
    const rewardTitle = [o.source ? `from ${o.source}` : '', o.rewards ? Object.entries(o.rewards).map(([k, v]) => `${k}: ${v}`).join(', ') : '']
      .filter(Boolean)
      .join(' — ');
    return html`<header>
      <div class="title-row">
        <h1 class="title" title=${`${m.file.path}\nrollout ${r.id}`}>${title}</h1>
        ${r.task.id && r.task.id !== title ? html`<span class="task-id" title=${`task id ${r.task.id}`}>${r.task.id}${derivedMark(r, 'task.id')}</span>` : nothing}
        <span class="outcome">
          ${o.resolved !== null
            ? html`<span class="pill ${o.resolved ? 'resolved' : 'failed'} outcome-badge">${resolvedWord(o.resolved)}${derivedMark(r, 'outcome.resolved')}</span>`
            : nothing}
          ${o.reward !== null ? html`<span class="pill neutral reward" title=${rewardTitle}>reward ${formatReward(o.reward)}${derivedMark(r, 'outcome.reward')}</span>` : nothing}
          ${o.status && outcomeText(o) !== resolvedWord(o.resolved) ? html`<span class="pill neutral outcome-status" title=${`exit status ${o.status}`}>${o.status}</span>` : nothing}
        </span>
      </div>
      <div class="meta-row">
        <span id="step-count">${r.steps.length} ${r.steps.length === 1 ? 'step' : 'steps'}</span>
        ${agent ? html`<span class="agent" title=${agent}>agent <span class="value">${agent}</span></span>` : nothing}
        ${r.agent.model ? html`<span class="model" title=${r.agent.model}>model <span class="value">${r.agent.model}</span></span>` : nothing}
        <span class="format" title="file format">format <span class="value">${FORMAT_LABEL[m.file.format] ?? m.file.format}${m.file.schemaVersion ? ` · ${m.file.schemaVersion}` : ''}</span></span>
        ${t.durationSec !== null ? html`<span class="duration" title="wall-clock time of the rollout (first to last step time, else the sum of the step durations)">duration <span class="value">${formatDuration(t.durationSec)}</span></span>` : nothing}
        ${t.hasTokens ? html`<span class="tokens" title="prompt → completion tokens, all steps">tokens <span class="value">${formatCount(t.prompt)} → ${formatCount(t.completion)}</span></span>` : nothing}
        ${t.hasCost ? html`<span class="cost" title="cost, all steps">cost <span class="value">${formatCost(t.cost)}</span></span>` : nothing}
        ${r.environment.image ? html`<span class="image" title=${`environment image ${r.environment.image}`}>image <span class="value">${r.environment.image}</span></span>` : nothing}
        ${r.environment.workdir ? html`<span class="workdir" title=${`working directory ${r.environment.workdir}`}>cwd <span class="value">${r.environment.workdir}</span>${derivedMark(r, 'environment.workdir')}</span>` : nothing}
        ${this.renderRefSummary(r)}
        ${m.sliced
          ? html`<span class="sliced" title=${`The rollout is ${formatSize(m.sliced.fullChars)} of text: each step's full content is fetched when its card comes into view (${formatSize(m.sliced.headChars)} sent up front).`}>large rollout · steps load as you scroll</span>`
          : nothing}
      </div>
      ${r.links?.length
        ? html`<div class="rollout-links">
            ${r.links.map((l, i) =>
              l.missing
                ? html`<span class="missing" title=${l.missing}>${linkText(l)} (${l.missing})</span>`
                : html`<button class="link" data-relation=${l.relation} title=${l.path ?? 'in this file'} @click=${() => post({ type: 'openLink', rolloutIndex: m.rolloutIndex, stepIndex: null, link: i })}>${linkText(l)}</button>`,
            )}
          </div>`
        : nothing}
      ${this.renderFileIssues(m)}
      ${rolloutCount(m) > 1 ? this.renderPicker(m) : nothing}
      ${r.task.instruction
        ? html`<details class="instruction">
            <summary>Task instruction</summary>
            <div class="text">${r.task.instruction}</div>
          </details>`
        : nothing}
    </header>`;
  }

  /** The file's located issues that did not stop it loading: "⚠ 2 warnings", each opening its line. */
  private renderFileIssues(m: RolloutMessage): TemplateResult | typeof nothing {
    const issues = m.fileIssues ?? [];
    if (!issues.length) return nothing;
    const total = m.fileIssueCount ?? issues.length;
    const errors = issues.filter((i) => i.severity === 'error').length;
    const words = [errors ? `${errors} left out` : '', issues.length - errors ? `${issues.length - errors} ${issues.length - errors === 1 ? 'warning' : 'warnings'}` : '']
      .filter(Boolean)
      .join(', ');
    return html`<details class="file-issues ${errors ? 'has-errors' : ''}">
      <summary>⚠ ${words}${total > issues.length ? ` (first ${issues.length} of ${total})` : ''} in this file</summary>
      <ul>
        ${issues.map(
          (i) => html`<li class=${i.severity}>
            <button class="link" title="Open this line of the file" @click=${() => post({ type: 'openLocation', file: i.file, line: i.line, column: i.column })}>${i.line !== null ? `line ${i.line}` : 'file'}</button>
            expected ${i.expected}, found ${i.found}
          </li>`,
        )}
      </ul>
    </details>`;
  }

  /** The Follow toggle and how the file is kept up with (reading …%, live, deleted). */
  private renderLive(l: LiveInfo | undefined): TemplateResult | typeof nothing {
    if (!l) return nothing;
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
      <button class="follow-toggle" aria-pressed=${this.follow ? 'true' : 'false'} title=${title} @click=${() => this.setFollow(!this.follow)}>
        ${this.follow ? 'Following' : 'Follow'}${!this.follow && this.unseen ? html` <span class="unseen">· ${this.unseen} new</span>` : nothing}
      </button>
    </span>`;
  }

  private renderPicker(m: RolloutMessage): TemplateResult {
    return html`<div class="picker">
      <span>Rollout</span>
      <vscode-single-select class="rollout-picker" combobox .value=${String(m.rolloutIndex)} @change=${this.onPickRollout}>
        ${pickerWindow(m.summaries, m.rolloutIndex).map(
          (s) => html`<vscode-option value=${String(s.index)} ?selected=${s.index === m.rolloutIndex}
            >${s.index + 1}. ${s.taskId ?? s.id} — ${s.steps} steps${s.reward !== null ? ` · reward ${formatReward(s.reward)}` : ''}${s.resolved === true
              ? ' · resolved'
              : s.resolved === false
                ? ' · failed'
                : ''}</vscode-option
          >`,
        )}
      </vscode-single-select>
      <span>of ${rolloutCount(m)}</span>
    </div>`;
  }

  private renderTimeline(m: RolloutMessage): TemplateResult {
    const steps = m.rollout.steps;
    if (steps.length === 0) return html`<div class="empty">This rollout has no steps.</div>`;
    const start = steps.reduce<number | null>((min, s) => {
      const t = parseTime(s.timestamp);
      return t !== null && (min === null || t < min) ? t : min;
    }, null);
    const lines = this.config.collapseOutputLines;
    const idx = this.labelIndex;
    return html`<div class="hint">
        <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>o</kbd> expand · <kbd>s</kbd> source${m.rollout.recording
          ? html` · <kbd>p</kbd> play/pause`
          : nothing} · label <kbd>1</kbd> good <kbd>2</kbd> neutral <kbd>3</kbd> bad · <kbd>f</kbd> first error · <kbd>n</kbd> note ·
        <kbd>Enter</kbd> on a labelled step: next unlabelled · <kbd>u</kbd> undo · <kbd>?</kbd> all keys
      </div>
      <main class="timeline" role="list" data-sliced=${m.sliced ? 'true' : 'false'} @rangeChanged=${this.onRange} @click=${this.onCardClick} @note-done=${this.onNoteDone} @toggle-expand=${(e: CustomEvent<{ index: number }>) => this.toggleExpand(e.detail.index)}
        @show-source=${(e: CustomEvent<{ index: number }>) => post({ type: 'showInSource', rolloutIndex: m.rolloutIndex, stepIndex: e.detail.index })}
        @open-link=${(e: CustomEvent<{ index: number; link: number }>) => post({ type: 'openLink', rolloutIndex: m.rolloutIndex, stepIndex: e.detail.index, link: e.detail.link })}>
        ${virtualize({ items: steps, keyFunction: (s) => s.index, renderItem: (s) => this.renderCard(m, s, lines, start, idx) })}
      </main>`;
  }

  /** One step card: the only place a `<ti-step-card>` is rendered (the virtualizer calls it for the visible steps). */
  private renderCard(m: RolloutMessage, head: Rollout['steps'][number], lines: number, start: number | null, idx: LabelIndex): TemplateResult {
    // A sliced rollout's cards show the full step once it is here, "loading" until then (never the head's preview).
    const full = this.stepStore.full(head.index, head);
    const s = full ?? head;
    return html`<ti-step-card
      role="listitem"
      class="step-card ${s.index === this.selected ? 'selected' : ''} ${this.expanded.has(s.index) ? 'expanded' : ''} ${full ? '' : 'loading'}"
      data-index=${s.index}
      aria-selected=${s.index === this.selected ? 'true' : 'false'}
      .step=${s}
      .cutFields=${full ? null : this.stepStore.cutOf(s.index)}
      .expanded=${this.expanded.has(s.index)}
      .collapseLines=${lines}
      .startTime=${start}
      .label=${idx.mine.get(s.index) ?? null}
      .otherLabels=${idx.others.get(s.index) ?? NO_LABELS}
      .propagatedFrom=${idx.mine.get(s.index)?.origin === 'propagated' ? propagatedFrom(idx, s.index) : null}
      .editingNote=${this.editingNote === s.index}
      .replay=${this.stepReplay(m, s.index)}
      .score=${this.scoreOf(s.index)}
      .scoreRange=${this.scoresMsg?.range ?? null}
      .scorer=${this.scoresMsg?.scorer ?? null}
    ></ti-step-card>`;
  }

  /** The replay state when it belongs to the rollout shown. */
  private replayFor(m: RolloutMessage): ReplayStateMessage | null {
    return this.replay && this.replay.rolloutId === m.rollout.id ? this.replay : null;
  }

  private renderReplayBar(m: RolloutMessage): TemplateResult | typeof nothing {
    const r = this.replayFor(m);
    return r ? html`<ti-replay-bar .state=${r} .rolloutIndex=${m.rolloutIndex}></ti-replay-bar>` : nothing;
  }

  private stepReplay(m: RolloutMessage, index: number): StepReplay | null {
    const r = this.replayFor(m);
    if (!r || !r.available) return null;
    const view = r.steps.find((v) => v.stepIndex === index) ?? null;
    const replayable = r.replayable.includes(index);
    if (!view && !replayable) return null;
    return { view, replayable, busy: r.phase === 'running' || r.phase === 'starting', rolloutIndex: m.rolloutIndex };
  }

  private renderError(m: LoadErrorMessage): TemplateResult {
    const open = (file: string, line: number | null, column: number | null) => (e: Event) => {
      e.preventDefault();
      post({ type: 'openLocation', file, line, column });
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
        <vscode-button secondary @click=${() => post({ type: 'reload' })}>Reload</vscode-button>
        <vscode-button secondary @click=${open(m.issues[0]?.file ?? m.file, m.issues[0]?.line ?? null, m.issues[0]?.column ?? null)}>Open as Text</vscode-button>
      </div>
    </section>`;
  }

  override render(): TemplateResult {
    switch (this.view.kind) {
      case 'waiting':
        return html`<div class="status">Loading…</div>`;
      case 'loading':
        return html`<div class="status">Loading ${this.view.file}…</div>`;
      case 'error':
        return this.renderError(this.view.msg);
      case 'rollout':
        return html`${this.renderHeader(this.view.msg)}
          <div class="dock">${this.renderLive(this.view.msg.live)}${this.renderLabelRow(this.view.msg)}${this.renderScores(this.view.msg)}${this.renderReplayBar(this.view.msg)}${this.renderPlayer(this.view.msg)}</div>
          ${this.renderTimeline(this.view.msg)}${this.renderKeys()}`;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-app': TiApp;
  }
}
