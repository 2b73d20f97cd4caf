/**
 * The label store's types and API: what src/core/labels/journal.ts implements and what
 * the host (src/host/labels.ts) and the CLI use. Pure TypeScript, no vscode import.
 *
 * Storage: one append-only JSON Lines journal per rollout file, at
 *   `<workspace folder>/.trajectory-labels/<path of the rollout file relative to the folder>.labels.jsonl`
 * (for a file outside any workspace folder: `<extension global storage>/labels/<sha256 of the abs path>.labels.jsonl`).
 * The user can commit `.trajectory-labels/` to git. The rollout file itself is never written.
 */
import type { Rollout } from '../model';

/** +1 good, 0 neutral, −1 bad (AgentProcessBench's ternary scheme). */
export type LabelValue = 1 | 0 | -1;

/**
 * One journal line. Each entry sets the full label state of one (annotator, rollout, step) —
 * `stepIndex` null means the rollout-level verdict. `value` null and `note` null clears it.
 */
export interface LabelEntry {
  /** Journal format version: 1. */
  v: 1;
  /** Unique id of this entry (random). */
  id: string;
  /** Entries written by one user action share a batch id (e.g. `f` and the labels it propagates); undo reverts a batch. */
  batch: string;
  rolloutId: string;
  /** 0-based step index, or null for the rollout-level verdict. */
  stepIndex: number | null;
  /** Content hash of the step when labelled (sha256 hex of a canonical JSON of role, message, actions, observations), or null for the verdict. */
  stepHash: string | null;
  value: LabelValue | null;
  /** The step is the first error (ProcessBench's notion). */
  firstError: boolean;
  note: string | null;
  annotator: string;
  /** ISO-8601 time the entry was written. */
  time: string;
  /** How the label came about: typed by the annotator, or propagated from a first error (AgentProcessBench §4.1). */
  origin: 'manual' | 'propagated';
}

/** The current label of one step (or the verdict) for one annotator, after replaying the journal. */
export interface CurrentLabel {
  rolloutId: string;
  stepIndex: number | null;
  value: LabelValue | null;
  firstError: boolean;
  note: string | null;
  annotator: string;
  time: string;
  origin: 'manual' | 'propagated';
  /** True when the step's content hash differs from the hash recorded with the label (the source changed). */
  stale: boolean;
}

/** What one labelling action changes; `LabelStore.apply` writes it as one batch. */
export interface LabelChange {
  rolloutId: string;
  stepIndex: number | null;
  value?: LabelValue | null;
  firstError?: boolean;
  note?: string | null;
}

/** The label store of one rollout file. */
export interface LabelStore {
  /** Journal path. */
  readonly path: string;
  /** Current labels of every annotator (latest entry per annotator+rollout+step wins; ties by entry id). */
  current(rolloutId?: string): CurrentLabel[];
  /** Appends one batch (durably: written with O_APPEND and fsync'd before the promise resolves). Returns the entries written. */
  apply(changes: LabelChange[], origin?: 'manual' | 'propagated'): Promise<LabelEntry[]>;
  /**
   * Marks `stepIndex` as the first error (value −1, firstError) and, in the same batch, labels the
   * later agent steps −1 `propagated` unless the annotator labelled them manually — AgentProcessBench's
   * error-propagation rule, applied visibly (origin 'propagated') and undoably (one batch).
   */
  markFirstError(rollout: Rollout, stepIndex: number): Promise<LabelEntry[]>;
  /** Reverts this session's last batch by appending its inverse; false when there is nothing to undo. */
  undo(): Promise<boolean>;
  /** Re-applies the last undone batch; false when there is nothing to redo. */
  redo(): Promise<boolean>;
  /** Re-reads the journal (another window appended); returns true when something changed. */
  reload(): Promise<boolean>;
}

/**
 * Opens (creating lazily on first write) the store for a rollout file.
 * Implemented in journal.ts as `openLabelStore(journalPath, { annotator, rollouts })`:
 * `rollouts` gives the step hashes for staleness. A torn last line (a write cut by a crash) is
 * ignored with a warning; any other malformed line is a located warning, never a crash.
 *
 * As implemented (journal.ts, docs/labels.md): changes must name a rollout of `rollouts` and an
 * existing step, else `apply`/`markFirstError` reject with a `RangeError` before writing; `current()`
 * leaves out cleared labels but includes note-only labels (`value` null); the returned store is a
 * `JournalLabelStore` that also has `annotator`, `setRollouts(rollouts)`, `canUndo()`, `canRedo()`
 * and `annotators()`.
 */
export type OpenLabelStore = (journalPath: string, options: { annotator: string; rollouts: Rollout[] }) => Promise<LabelStore & { warnings: string[] }>;
