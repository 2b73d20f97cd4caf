/**
 * The one builder of the timeline's `rollout` message (and of the `rolloutUpdate` of a followed
 * file): the file's header, the picker's summaries, the rollout (as step heads with `sliced` when it
 * is large, StepSlices), the file's issues and how the file is followed. Nothing here imports
 * `vscode`; unit-tested in test/unit/host/present.test.ts and stepSlices.test.ts.
 */
import { formatIssue } from '../core/errors';
import { formatLabel } from '../core/formats/registry';
import { FILE_ISSUES_MAX, PICKER_MAX, pickerPositions, type LiveInfo, type RolloutMessage, type RolloutUpdateMessage, type ViewConfig } from '../shared/protocol';
import { fileLabel } from './fileLabel';
import type { RolloutSource } from './rolloutSource';
import type { StepSlices } from './stepSlices';

/** What a `rollout` message carries beside the rollout. */
export interface RolloutMessageExtras {
  /** The timeline's step heads: a large rollout goes as heads with `sliced`. Absent: always whole. */
  slices?: StepSlices;
  /** How the file is followed; absent: it is not. */
  live?: LiveInfo | null;
}

/**
 * The message that shows rollout `rolloutIndex` (clamped to the file) of `source`, which must be
 * read already (`source.rollout(i)`); `revealStep` is the step the webview selects and scrolls to
 * (null: the webview keeps its own selection).
 * @throws RangeError when the rollout is not read yet
 */
export function rolloutMessage(source: RolloutSource, rolloutIndex: number, revealStep: number | null, config: ViewConfig, extras: RolloutMessageExtras = {}): RolloutMessage {
  const i = Math.max(0, Math.min(rolloutIndex, source.count - 1));
  const rollout = source.readNow(i);
  if (!rollout) throw new RangeError(`rollout ${i + 1} of ${source.file.path} is not read yet`);
  const file = source.file;
  const heads = extras.slices?.heads(rollout, revealStep, config.collapseOutputLines) ?? null;
  return {
    type: 'rollout',
    file: { path: file.path, format: file.format, formatLabel: formatLabel(file.format), schemaVersion: file.schemaVersion, label: fileLabel(file.path, rollout.task.id) },
    // The picker's window only (pickerPositions): not 100,000 summaries with every rollout shown.
    summaries: source.summaries(pickerPositions(source.count, i)),
    ...(source.count > PICKER_MAX ? { rolloutCount: source.count } : {}),
    rolloutIndex: i,
    rollout: heads?.rollout ?? rollout,
    revealStep,
    config,
    ...(heads ? { sliced: heads.sliced } : {}),
    ...(file.issues?.length
      ? {
          fileIssues: file.issues.slice(0, FILE_ISSUES_MAX).map((x) => ({ ...x, severity: x.severity ?? 'error', formatted: formatIssue(x) })),
          fileIssueCount: file.issues.length,
        }
      : {}),
    ...(extras.live ? { live: extras.live } : {}),
  };
}

/**
 * The `rolloutUpdate` of rollout `rolloutIndex` of a followed file (live follow): its steps from
 * `from` on as `body` has them (StepSlices.update: whole, or heads with `sliced`), its other fields
 * as they are now, the picker's summaries, and how the file is followed.
 */
export function rolloutUpdateMessage(
  source: RolloutSource,
  rolloutIndex: number,
  from: number,
  body: Pick<RolloutUpdateMessage, 'steps' | 'sliced'>,
  live: LiveInfo,
): RolloutUpdateMessage {
  const { steps: _steps, ...rollout } = source.file.rollouts[rolloutIndex];
  const count = source.count;
  return {
    type: 'rolloutUpdate',
    rolloutIndex,
    rolloutId: rollout.id,
    from,
    steps: body.steps,
    rollout,
    summaries: source.summaries(pickerPositions(count, rolloutIndex)),
    ...(count > PICKER_MAX ? { rolloutCount: count } : {}),
    ...(body.sliced ? { sliced: body.sliced } : {}),
    live,
  };
}
