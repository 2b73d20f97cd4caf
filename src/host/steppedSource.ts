/**
 * A big single-rollout ATIF `trajectory.json` for the timeline, read a window of steps at a time
 * through its step index (core/scale/stepIndex.ts), so the extension host's memory follows the
 * steps shown, not the file: the index (40 bytes a step), the paged column the webview gets
 * (pagedSteps.ts: 2 characters a step plus the sparse recording times and reference labels), and
 * a few windows of full steps for the webview's `loadSteps` requests (SteppedSource.answer).
 *
 * The column is built in one pass over the steps, STEP_WINDOW at a time, each window dropped once
 * added. The `rollout` message is paged (SlicedInfo.paged): the same message a rollout of that
 * many steps read whole gets from StepSlices, with the header and the picker's summary as
 * rolloutMessage.ts builds them (the rollout without its steps).
 *
 * The timeline opens such a file as a SteppedRolloutSource (timeline/readSource.ts): a RolloutSource
 * whose one rollout has no steps and is marked with its step count (pagedRollout.ts), so that what
 * reads a rollout whole (scores, replay) says it is off for it, and the rest (Go to Step, Show in
 * Source, step links, labels) reads the steps it needs through `stepped`. Nothing here imports `vscode`.
 */
import { formatIssue, RolloutLoadError, type LocatedIssue } from '../core/errors';
import type { FileAccess } from '../core/formats/types';
import type { LoadedFile } from '../core/load';
import type { Rollout, Step } from '../core/model';
import { nodeFiles } from '../core/nodeFiles';
import { openSteppedRollout, type SteppedRollout } from '../core/scale/stepIndex';
import { PagedColumnBuilder } from '../shared/pagedSteps';
import { FILE_ISSUES_MAX, MAX_SLICE_STEPS, type LiveInfo, type LoadStepsMessage, type PagedSteps, type RolloutMessage, type RolloutSummary, type StepsMessage, type ViewConfig } from '../shared/protocol';
import { INITIAL_STEPS, MAX_ANSWER_CHARS, MAX_INITIAL_CHARS, stepChars } from '../shared/stepHeads';
import { STEPS_BY_WINDOWS } from './pagedRollout';
import { rolloutMessage } from './rolloutMessage';
import { LoadedSource, type RolloutSource } from './rolloutSource';
import { summarize } from './rolloutSummary';

/** Steps read per window while the column is built. */
export const STEP_WINDOW = 1000;
/** Windows of MAX_SLICE_STEPS full steps kept for the webview's requests (least recently used go first). */
export const KEPT_WINDOWS = 8;

/** A big ATIF read by windows of steps for the timeline (see the module docs). */
export class SteppedSource {
  /** Column per `collapseOutputLines` (the row heights depend on it), with the whole rollout's estimated size. */
  private readonly columns = new Map<number, { paged: PagedSteps; fullChars: number }>();
  /** Aligned windows of MAX_SLICE_STEPS steps read for requests, least recently used first. */
  private readonly windows = new Map<number, Promise<Step[]>>();

  private constructor(readonly lazy: SteppedRollout) {}

  /**
   * Indexes `file` for reading by steps.
   * @throws NotIndexableError (not an ATIF object with `steps`: load it whole), RolloutLoadError (as openSteppedRollout)
   */
  static async open(file: string, files: FileAccess = nodeFiles): Promise<SteppedSource> {
    return new SteppedSource(await openSteppedRollout(file, files));
  }

  /** The rollout without its steps (`steps: []`). */
  get rollout(): Rollout {
    return this.lazy.rollout;
  }

  /** Steps in the file. */
  get count(): number {
    return this.lazy.count;
  }

  /** The file as a LoadedFile of its one rollout (without steps): what the header and the picker read. */
  get file(): LoadedFile {
    return { path: this.lazy.file, format: this.rollout.format, schemaVersion: this.rollout.schemaVersion, rollouts: [this.rollout] };
  }

  /**
   * The paged column of every step, with cards collapsed to `collapseLines` output lines: one pass
   * over the file by STEP_WINDOW steps (cached per setting).
   * @throws RolloutLoadError (located) for a step that does not conform, or a file changed since it was indexed
   */
  async column(collapseLines: number): Promise<{ paged: PagedSteps; fullChars: number }> {
    const kept = this.columns.get(collapseLines);
    if (kept) return kept;
    const b = new PagedColumnBuilder(collapseLines);
    let fullChars = 1000 + (this.rollout.task.instruction?.length ?? 0);
    for (let from = 0; from < this.count; from += STEP_WINDOW) {
      for (const s of await this.lazy.read(from, STEP_WINDOW)) {
        b.add(s);
        fullChars += stepChars(s);
      }
    }
    const c = { paged: b.done(), fullChars };
    this.columns.set(collapseLines, c);
    return c;
  }

  /**
   * Full steps `from` … `to - 1` (clamped to the file), read through the kept windows.
   * @throws RolloutLoadError (located) for a step that does not conform, or a file changed since it was indexed
   */
  async steps(from: number, to: number): Promise<Step[]> {
    const a = Math.max(0, Math.floor(from));
    const z = Math.min(this.count, Math.ceil(to));
    const out: Step[] = [];
    for (let w = Math.floor(a / MAX_SLICE_STEPS); w * MAX_SLICE_STEPS < z; w++) {
      const start = w * MAX_SLICE_STEPS;
      for (const s of await this.window(w)) if (s.index >= a && s.index < z) out.push(s);
      if (start + MAX_SLICE_STEPS >= z) break;
    }
    return out;
  }

  private window(w: number): Promise<Step[]> {
    let p = this.windows.get(w);
    if (p) this.windows.delete(w);
    else {
      p = this.lazy.read(w * MAX_SLICE_STEPS, MAX_SLICE_STEPS);
      // A failed read is not kept: asked again, the file is read again.
      p.catch(() => this.windows.get(w) === p && this.windows.delete(w));
    }
    this.windows.set(w, p);
    while (this.windows.size > KEPT_WINDOWS) this.windows.delete(this.windows.keys().next().value!);
    return p;
  }

  /**
   * The timeline's `rollout` message: paged (no steps; the column), with the full steps of the
   * aligned chunk of INITIAL_STEPS holding `revealStep` (the first chunk when null) as
   * `sliced.initial`, at most MAX_INITIAL_CHARS of them (the step to reveal always).
   * @throws RolloutLoadError as `column`
   */
  async message(revealStep: number | null, config: ViewConfig, live: LiveInfo | null = null): Promise<RolloutMessage> {
    const { paged, fullChars } = await this.column(config.collapseOutputLines);
    const base = rolloutMessage(new LoadedSource(this.file), 0, revealStep, config, { live });
    const at = Math.max(0, Math.min(this.count - 1, revealStep ?? 0));
    const from = Math.floor(at / INITIAL_STEPS) * INITIAL_STEPS;
    const chunk = await this.steps(from, from + INITIAL_STEPS);
    const initial: Step[] = [];
    let chars = 0;
    // The step to reveal first, then its neighbours by distance, while they fit (stepHeads.ts initialSteps).
    const order = [...chunk].sort((x, y) => Math.abs(x.index - at) - Math.abs(y.index - at) || y.index - x.index);
    for (const s of order) {
      const n = stepChars(s);
      if (initial.length && chars + n > MAX_INITIAL_CHARS) continue;
      chars += n;
      initial.push(s);
    }
    initial.sort((x, y) => x.index - y.index);
    const headChars = 1000 + (this.rollout.task.instruction?.length ?? 0) + 2 * paged.count + 40 * (paged.castTimes.length + paged.refs.length);
    // The picker's summary counts the steps the file has (not copied from an earlier context: countedSteps).
    const summaries = base.summaries.map((x) => ({ ...x, steps: this.count - this.lazy.copied }));
    return { ...base, summaries, sliced: { fullChars, headChars, cuts: [], initial: { from, steps: initial }, paged } };
  }

  /**
   * The `steps` answer to `req` (as stepHeads.ts answerStepSlice: at most MAX_SLICE_STEPS steps,
   * cut short after MAX_ANSWER_CHARS of step text, at least one), or null when it is for another
   * rollout or starts past the end.
   * @throws RolloutLoadError as `steps`
   */
  async answer(req: LoadStepsMessage, maxChars = MAX_ANSWER_CHARS): Promise<StepsMessage | null> {
    if (req.rolloutIndex !== 0 || req.rolloutId !== this.rollout.id) return null;
    const from = req.from;
    const to = Math.min(req.to, this.count, from + MAX_SLICE_STEPS);
    if (!(Number.isInteger(from) && from >= 0 && from < to)) return null;
    const steps: Step[] = [];
    let chars = 0;
    for (const s of await this.steps(from, to)) {
      chars += stepChars(s);
      if (steps.length && chars > maxChars) break;
      steps.push(s);
    }
    if (!steps.length) throw new RolloutLoadError(this.lazy.file, this.rollout.format, [{ file: this.lazy.file, line: null, column: null, pointer: `/steps/${from}`, expected: 'the step indexed there', found: 'none' }]);
    return { type: 'steps', rolloutIndex: 0, rolloutId: this.rollout.id, from, steps, seq: req.seq };
  }
}

/**
 * A big ATIF as the timeline's RolloutSource: `file.rollouts[0]` is the rollout without its steps,
 * marked with its step count (`metadata[STEPS_BY_WINDOWS]`, pagedRollout.ts); its steps are read
 * through `stepped`. `labelRollout` is the same rollout for the label session: `steps` an array
 * of the file's length holding only the steps put there (`keepForLabels`: those labelled), so the
 * label store bounds and hashes a step without the whole list in memory.
 */
export class SteppedRolloutSource implements RolloutSource {
  readonly file: LoadedFile;
  readonly count = 1;
  /** The rollout for labels: the file's step count, the steps labelled (others are holes). */
  readonly labelRollout: Rollout;

  constructor(readonly stepped: SteppedSource) {
    const f = stepped.file;
    const r: Rollout = { ...f.rollouts[0], metadata: { ...f.rollouts[0].metadata, [STEPS_BY_WINDOWS]: stepped.count } };
    // What the header says of a file read this way (warnings: every step is still shown).
    const issues: LocatedIssue[] = [
      {
        file: f.path, line: null, column: null, pointer: '/steps', severity: 'warning',
        expected: 'a rollout small enough to hold whole',
        found: `${stepped.count} steps, read from the file by windows: step scores, replay, Mark First Error and Export Rollout are off for it; step_id order and timestamps are checked per window`,
      },
    ];
    if (stepped.lazy.continuation !== null) {
      issues.push({ file: f.path, line: null, column: null, pointer: '/continued_trajectory_ref', severity: 'warning', expected: 'its continuation joined, as a whole load joins it', found: `${JSON.stringify(stepped.lazy.continuation)} not joined (the file is read by windows): open it on its own` });
    }
    this.file = { ...f, rollouts: [r], issues };
    // A holey array of the file's length: a slot per step, filled only for the steps labelled.
    this.labelRollout = { ...r, steps: new Array<Step>(stepped.count) };
  }

  summaries(positions: readonly number[]): RolloutSummary[] {
    return positions.map((k) => ({ ...summarize(this.file.rollouts[k], k), steps: this.stepped.count - this.stepped.lazy.copied }));
  }

  readNow(i: number): Rollout | null {
    return this.file.rollouts[i] ?? null;
  }

  rollout(i: number): Promise<Rollout> {
    const r = this.file.rollouts[i];
    return r ? Promise.resolve(r) : Promise.reject(new RangeError(`the file has no rollout ${i + 1} (it has 1)`));
  }

  /** The timeline's paged `rollout` message (SteppedSource.message) with the file's warnings for the header. @throws as SteppedSource.message */
  async message(revealStep: number | null, config: ViewConfig, live: LiveInfo | null = null): Promise<RolloutMessage> {
    const m = await this.stepped.message(revealStep, config, live);
    const issues = this.file.issues ?? [];
    return { ...m, fileIssues: issues.slice(0, FILE_ISSUES_MAX).map((x) => ({ ...x, severity: x.severity ?? 'error', formatted: formatIssue(x) })), fileIssueCount: issues.length };
  }

  /** Step `index` (read through the kept windows), or null past the end. @throws RolloutLoadError as SteppedSource.steps */
  async step(index: number): Promise<Step | null> {
    if (!Number.isInteger(index) || index < 0 || index >= this.stepped.count) return null;
    return (await this.stepped.steps(index, index + 1))[0] ?? null;
  }

  /**
   * Reads steps `indices` and puts them in `labelRollout.steps` (the label store hashes them):
   * true when any was not there yet (the label session should take the rollout again).
   * @throws RolloutLoadError as SteppedSource.steps
   */
  async keepForLabels(indices: Iterable<number>): Promise<boolean> {
    let added = false;
    for (const i of indices) {
      if (!Number.isInteger(i) || i < 0 || i >= this.stepped.count || this.labelRollout.steps[i]) continue;
      const s = await this.step(i);
      if (s) {
        this.labelRollout.steps[i] = s;
        added = true;
      }
    }
    return added;
  }
}
