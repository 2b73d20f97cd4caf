/**
 * Messages between the compare / group webview (`<ti-compare>`, dist/compare.js) and the extension
 * host (src/host/compare/comparePanel.ts). Imports neither `vscode` nor the DOM; each side validates
 * what it receives with the guards below and ignores anything else.
 *
 * Flow: the webview posts `ready`; the host answers with `compare` (two rollouts aligned step by
 * step) or `group` (the rollouts of one GRPO group) or `compareError`. The webview asks the host to
 * open a step in the timeline (`openStep`), to compare a group member with the group's best
 * (`compareMember`), or to open a member (`openMember`).
 */
import type { DiffSegment, RowStatus, StepPart } from '../core/compare/align';
import type { Role } from '../core/model';

export type { DiffSegment, RowStatus, StepPart };

/** One side of a comparison: which rollout it is and its outcome. */
export interface CompareSideView {
  file: string;
  /** Short name of the file (trial folder, task id or file name). */
  fileLabel: string;
  rolloutIndex: number;
  rolloutId: string;
  taskId: string | null;
  format: string;
  /** The format's human name (its loader's `label`), as the view shows it. */
  formatLabel: string;
  model: string | null;
  agent: string | null;
  reward: number | null;
  resolved: boolean | null;
  steps: number;
}

/** A label on a step, as the compare view shows it. */
export interface CompareLabelView {
  /** Annotator name, or `reference` for a label that came with the data. */
  source: string;
  value: 1 | 0 | -1;
  firstError: boolean;
}

/** A per-step score (core `Score`), when a scorer has scored the rollout. */
export interface CompareScoreView {
  value: number;
  range: [number, number];
  label: string | null;
  scorer: string;
}

/** One step of one side of a row: what the row shows of it (long texts cut, with `cut` set). */
export interface CompareStepView {
  index: number;
  role: Role;
  gist: string;
  command: string;
  output: string;
  message: string;
  exitCodes: (number | null)[];
  /** True when a text above was shortened for display. */
  cut: boolean;
  labels: CompareLabelView[];
  score: CompareScoreView | null;
}

/** An inline diff of one text, for a `changed` row. */
export interface TextDiffView {
  /** Null when a side was too long to diff: the step texts are shown instead. */
  segments: DiffSegment[] | null;
}

/** One aligned row. */
export interface CompareRowView {
  status: RowStatus;
  differs: StepPart[];
  left: CompareStepView | null;
  right: CompareStepView | null;
  diffs?: { command?: TextDiffView; output?: TextDiffView; message?: TextDiffView; reasoning?: TextDiffView };
}

/** Where the two first part: the row and each side's step there. */
export interface DivergenceView {
  row: number;
  status: Exclude<RowStatus, 'same'>;
  left: number | null;
  right: number | null;
}

export interface CompareMessage {
  type: 'compare';
  left: CompareSideView;
  right: CompareSideView;
  rows: CompareRowView[];
  counts: Record<RowStatus, number>;
  firstDivergence: DivergenceView | null;
  firstActionDivergence: DivergenceView | null;
  /**
   * Set when the right rollout is a branch of the left (Compare with Parent): the row of the
   * branch's first new step, which the view opens at. The rows before it hold the steps the branch
   * copied (they may still differ in text, e.g. an exit-code marker the branch's ATIF adds).
   */
  fork?: ForkView;
}

/** Where a branch left its parent: the row, and each side's step index there (null: none on that side). */
export interface ForkView {
  row: number;
  left: number | null;
  right: number | null;
}

/** One rollout of a group. */
export interface GroupMemberView {
  /** Position in the host's list of members (what `openMember` / `compareMember` name). */
  member: number;
  file: string;
  rolloutIndex: number;
  rolloutId: string;
  label: string;
  reward: number | null;
  resolved: boolean | null;
  steps: number;
  best: boolean;
  /** Step of this rollout where its actions first differ from the best's (null: best, or no difference). */
  divergesAt: number | null;
  /** Step of the best rollout at that point. */
  bestAt: number | null;
  /** This rollout's first action at `divergesAt` in one line (`$ git diff`, `str_replace_editor …`), cut to 80 characters; null without one. */
  firstAction?: string | null;
  same: number;
  changed: number;
  onlyHere: number;
  onlyBest: number;
  /** Steps labelled bad (any annotator or reference). */
  badSteps: number;
}

export interface GroupMessage {
  type: 'group';
  /** What the group is: `group <id>` of a file, or a task of a job / run folder. */
  title: string;
  /** Where the members come from (a file, or the folder of a collection). */
  source: string;
  groupId: string | null;
  taskId: string | null;
  meanReward: number | null;
  members: GroupMemberView[];
}

export interface CompareErrorMessage {
  type: 'compareError';
  message: string;
}

export type CompareHostMessage = CompareMessage | GroupMessage | CompareErrorMessage;

export interface CompareReadyMessage {
  type: 'ready';
}
export interface OpenStepMessage {
  type: 'openStep';
  side: 'left' | 'right';
  stepIndex: number;
}
export interface CompareMemberMessage {
  type: 'compareMember';
  member: number;
}
export interface OpenMemberMessage {
  type: 'openMember';
  member: number;
  stepIndex: number | null;
}

export type CompareWebviewMessage = CompareReadyMessage | OpenStepMessage | CompareMemberMessage | OpenMemberMessage;

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Guard for what the compare webview posts. */
export function isCompareWebviewMessage(v: unknown): v is CompareWebviewMessage {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return true;
    case 'openStep':
      return (m.side === 'left' || m.side === 'right') && isIndex(m.stepIndex);
    case 'compareMember':
      return isIndex(m.member);
    case 'openMember':
      return isIndex(m.member) && (m.stepIndex === null || isIndex(m.stepIndex));
    default:
      return false;
  }
}

/** Guard for what the host posts to the compare webview (shape of the envelope; contents come from the host's own code). */
export function isCompareHostMessage(v: unknown): v is CompareHostMessage {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  if (m.type === 'compare') return Array.isArray(m.rows) && typeof m.left === 'object' && typeof m.right === 'object' && (m.fork === undefined || (typeof m.fork === 'object' && m.fork !== null && isIndex((m.fork as { row?: unknown }).row)));
  if (m.type === 'group') return Array.isArray(m.members);
  if (m.type === 'compareError') return typeof m.message === 'string';
  return false;
}
