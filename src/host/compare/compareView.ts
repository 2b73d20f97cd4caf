/**
 * Builds the compare and group webview messages from loaded rollouts (core `alignRollouts`,
 * `summarizeGroup`), the steps' labels (every annotator's current label plus the data's reference
 * labels) and, when a scorer has scored them, per-step scores. Long texts are cut for display.
 * Pure (no vscode); unit-tested in test/unit/compare/compareView.test.ts.
 */
import { alignRollouts, commandText, outputText, type AlignOptions, type Divergence } from '../../core/compare/align';
import { summarizeGroup } from '../../core/compare/group';
import { formatLabel } from '../../core/formats/registry';
import { countedSteps, type Rollout, type Score, type Step } from '../../core/model';
import type {
  CompareLabelView,
  CompareMessage,
  CompareSideView,
  CompareStepView,
  DivergenceView,
  GroupMessage,
} from '../../shared/compareProtocol';
import { labelState } from '../rolloutTree';
import { stepGist } from '../../shared/text';
import { fileLabel } from '../fileLabel';
import { webviewHtml, type HtmlParts } from '../webviewHtml';

/** A current label of any annotator (core `CurrentLabel` fields the view needs). */
export interface LabelLike {
  rolloutId: string;
  stepIndex: number | null;
  value: 1 | 0 | -1 | null;
  firstError: boolean;
  annotator: string;
}

/** A rollout to compare: the rollout, its file and place in it, and its labels / scores when known. */
export interface CompareInput {
  file: string;
  rolloutIndex: number;
  rollout: Rollout;
  labels?: readonly LabelLike[];
  scores?: readonly Score[];
}

/** Characters of a command / output / message shown per step side (the timeline shows it all). */
export const MAX_TEXT = 4000;

function cut(s: string, max = MAX_TEXT): { text: string; cut: boolean } {
  return s.length > max ? { text: `${s.slice(0, max)}…`, cut: true } : { text: s, cut: false };
}

function sideView(c: CompareInput): CompareSideView {
  const r = c.rollout;
  return {
    file: c.file,
    fileLabel: fileLabel(c.file, r.task.id),
    rolloutIndex: c.rolloutIndex,
    rolloutId: r.id,
    taskId: r.task.id,
    format: r.format,
    formatLabel: formatLabel(r.format),
    model: r.agent.model,
    agent: r.agent.name,
    reward: r.outcome.reward,
    resolved: r.outcome.resolved,
    steps: countedSteps(r),
  };
}

function labelsOf(step: Step, rolloutId: string, labels: readonly LabelLike[]): CompareLabelView[] {
  const out: CompareLabelView[] = [];
  if (step.referenceLabel) out.push({ source: 'reference', value: step.referenceLabel.value, firstError: step.referenceLabel.firstError ?? false });
  for (const l of labels) {
    if (l.rolloutId === rolloutId && l.stepIndex === step.index && l.value !== null) out.push({ source: l.annotator, value: l.value, firstError: l.firstError });
  }
  return out;
}

function stepView(c: CompareInput, index: number): CompareStepView {
  const s = c.rollout.steps[index];
  const command = cut(commandText(s));
  const output = cut(outputText(s));
  const message = cut(s.message, 2000);
  const score = c.scores?.find((x) => x.rolloutId === c.rollout.id && x.stepIndex === index) ?? null;
  return {
    index,
    role: s.role,
    gist: stepGist(s),
    command: command.text,
    output: output.text,
    message: message.text,
    exitCodes: s.observations.map((o) => o.exitCode),
    cut: command.cut || output.cut || message.cut,
    labels: labelsOf(s, c.rollout.id, c.labels ?? []),
    score: score ? { value: score.value, range: score.range, label: score.label, scorer: score.scorer.name } : null,
  };
}

function divergenceView(d: Divergence | null): DivergenceView | null {
  return d ? { row: d.row, status: d.status, left: d.left, right: d.right } : null;
}

/**
 * The `compare` message for two rollouts.
 * @param forkStep when the right rollout is a branch of the left: the 0-based index of its first new
 *   step; the message's `fork` is then the row of that step (absent when no row holds it)
 */
export function compareMessage(left: CompareInput, right: CompareInput, options: AlignOptions = {}, forkStep: number | null = null): CompareMessage {
  const a = alignRollouts(left.rollout, right.rollout, options);
  const forkRow = forkStep === null ? -1 : a.rows.findIndex((r) => r.right !== null && r.right >= forkStep);
  return {
    ...(forkRow >= 0 ? { fork: { row: forkRow, left: a.rows[forkRow].left, right: a.rows[forkRow].right } } : {}),
    type: 'compare',
    left: sideView(left),
    right: sideView(right),
    rows: a.rows.map((r) => ({
      status: r.status,
      differs: r.differs,
      left: r.left !== null ? stepView(left, r.left) : null,
      right: r.right !== null ? stepView(right, r.right) : null,
      ...(r.diffs
        ? {
            diffs: Object.fromEntries(Object.entries(r.diffs).map(([k, d]) => [k, { segments: d.segments }])),
          }
        : {}),
    })),
    counts: a.counts,
    firstDivergence: divergenceView(a.firstDivergence),
    firstActionDivergence: divergenceView(a.firstActionDivergence),
  };
}

/** A member of a group: a rollout, its file and index there, and its labels when known. */
export interface GroupInput {
  file: string;
  index: number;
  rollout: Rollout;
  labels?: readonly LabelLike[];
}

/**
 * The `group` message for the rollouts of one group: a GRPO group of one file, or the trials of one
 * task in a job / run folder (members from several files). `title` names it, `source` says where
 * the members come from. Members of a one-file group share their task id, so each is named by its
 * place in the group (`#3 of 48 · line 21`: `members` in file order); by trial folder otherwise.
 * The reward, length and first action that differs from the best's are columns of their own.
 */
export function groupMessage(title: string, source: string, groupId: string | null, members: readonly GroupInput[]): GroupMessage {
  const g = summarizeGroup(groupId, members.map((m, i) => ({ rollout: m.rollout, index: i })));
  const oneFile = new Set(members.map((m) => m.file)).size <= 1;
  const first = members[0]?.rollout;
  return {
    type: 'group',
    title,
    source,
    groupId,
    taskId: first?.task.id ?? null,
    meanReward: g.meanReward,
    members: g.members.map((m) => {
      const input = members[m.index];
      const r = input.rollout;
      const where = r.source.line !== null ? `line ${r.source.line}` : `#${input.index + 1}`;
      const at = m.divergence?.right ?? null;
      return {
        member: m.index,
        file: input.file,
        rolloutIndex: input.index,
        rolloutId: m.rolloutId,
        label: oneFile ? `#${m.index + 1} of ${members.length}${r.source.line !== null ? ` · ${where}` : ''}` : `${fileLabel(input.file, r.task.id)}${input.index > 0 ? ` ${where}` : ''}`,
        reward: m.reward,
        resolved: m.resolved,
        steps: m.steps,
        best: m.best,
        divergesAt: m.divergence ? m.divergence.right : null,
        bestAt: m.divergence ? m.divergence.left : null,
        firstAction: at !== null ? actionLine(r, at) : null,
        same: m.same,
        changed: m.changed,
        onlyHere: m.onlyHere,
        onlyBest: m.onlyBest,
        badSteps: labelState(r, input.labels ?? []).bad,
      };
    }),
  };
}

/** The first action of step `stepIndex` of `r` in one line, cut to 80 characters, or null. */
function actionLine(r: Rollout, stepIndex: number): string | null {
  const a = r.steps[stepIndex]?.actions[0];
  if (!a) return null;
  const text = a.command ? `$ ${a.command}` : [a.tool, typeof a.arguments === 'string' ? a.arguments : a.arguments != null ? JSON.stringify(a.arguments) : a.path].filter(Boolean).join(' ');
  const one = text.replace(/\s+/g, ' ').trim();
  return one ? (one.length > 80 ? `${one.slice(0, 79)}…` : one) : null;
}

/** The HTML shell of the compare page (same CSP as the timeline; no data in it). */
export function compareHtml(p: HtmlParts): string {
  return webviewHtml(p, 'ti-compare', 'Compare Rollouts');
}
