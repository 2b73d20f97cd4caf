/**
 * The `show --json` document: one JSON value for a file or a folder.
 *
 * Shape (unknown values are null):
 * ```
 * { format, schemaVersion,            // of the file; "mixed"/null when a folder holds several formats
 *   rollouts: [{ id, task, source, agent: {name, version, model}, workdir,
 *       outcome: {reward, resolved, status}, derived?: [field],    // fields derived, not recorded
 *       links?: [{relation, label, path, rolloutId, stepIndex, missing}],
 *       steps: [{ index, role, timestamp, tokens: {prompt, completion, cached} | null,
 *         event?: {kind, label}, links?: [...], copiedContext?: true,   // copied from an earlier context (ATIF)
 *         actions: [{kind, command, tool, path?, edit?: {op, path}}],
 *         observations: [{exitCode, exitCodeFrom?, isError?, outputChars}] }] }],
 *   files: [{ path, format, schemaVersion, rollouts,     // rollouts = count per file
 *       job? }],   // a Harbor job result's stats (core model.ts HarborJob), not a rollout
 *   errors: [{ path, message }],                            // files that failed, and rows left out of files that loaded
 *   warnings: [{ path, message }],                          // located issues of files that loaded whole (a missing linked file, …)
 *   skipped: [path] }                                       // files of a folder no format reads
 * ```
 * `task` is the task id. `outputChars` counts UTF-16 code units of the recorded output.
 */
import { formatIssue, isWarning, RolloutLoadError } from '../core/errors';
import { LOADERS } from '../core/formats/registry';
import type { LoadFailure, LoadResult } from '../core/load';
import { randomUUID } from 'node:crypto';
import type { HarborJob, Rollout, RolloutLink, Step } from '../core/model';

export interface ShowJson {
  format: string | null;
  schemaVersion: string | null;
  rollouts: ShowRollout[];
  files: { path: string; format: string; schemaVersion: string | null; rollouts: number; job?: HarborJob }[];
  errors: { path: string; message: string }[];
  /** Issues that left nothing out (LocatedIssue.severity 'warning'): one message per issue, `file:line:col …`. */
  warnings: { path: string; message: string }[];
  /** Files of a folder that no format reads (left out quietly). */
  skipped: string[];
}

type ShowLink = Pick<RolloutLink, 'relation' | 'label' | 'path' | 'rolloutId'> & { stepIndex: number | null; missing: string | null };

export interface ShowRollout {
  id: string;
  task: string | null;
  source: string;
  agent: { name: string | null; version: string | null; model: string | null };
  workdir: string | null;
  outcome: { reward: number | null; resolved: boolean | null; status: string | null };
  derived?: string[];
  links?: ShowLink[];
  steps: {
    index: number;
    role: string;
    timestamp: string | null;
    tokens: { prompt: number | null; completion: number | null; cached: number | null } | null;
    event?: { kind: string; label: string };
    links?: ShowLink[];
    copiedContext?: true;
    actions: { kind: string; command: string | null; tool: string | null; path?: string | null; edit?: { op: string; path: string | null } }[];
    observations: { exitCode: number | null; exitCodeFrom?: string; isError?: boolean; outputChars: number }[];
  }[];
}

function linkJson(l: RolloutLink): ShowLink {
  return { relation: l.relation, label: l.label, path: l.path, rolloutId: l.rolloutId, stepIndex: l.stepIndex ?? null, missing: l.missing ?? null };
}

type ShowStep = ShowRollout['steps'][number];

function stepJson(s: Step): ShowStep {
  const step: ShowStep = {
    index: s.index,
    role: s.role,
    timestamp: s.timestamp,
    tokens: s.tokens,
    actions: s.actions.map((a) => {
      const act: ShowStep['actions'][number] = { kind: a.kind, command: a.command, tool: a.tool };
      if (a.path !== undefined) act.path = a.path;
      if (a.edit) act.edit = { op: a.edit.op, path: a.edit.path };
      return act;
    }),
    observations: s.observations.map((o) => {
      const obs: ShowStep['observations'][number] = { exitCode: o.exitCode, outputChars: o.output.length };
      if (o.exitCodeFrom) obs.exitCodeFrom = o.exitCodeFrom;
      if (o.isError !== undefined) obs.isError = o.isError;
      return obs;
    }),
  };
  if (s.event) step.event = s.event;
  if (s.copiedContext) step.copiedContext = true;
  if (s.links?.length) step.links = s.links.map(linkJson);
  return step;
}

/** A rollout's document with `steps` set to `steps` (the steps' documents, or a stand-in the streaming writer replaces). */
function rolloutJsonWith<S>(r: Rollout, steps: S): Omit<ShowRollout, 'steps'> & { steps: S } {
  const out: Omit<ShowRollout, 'steps'> & { steps: S } = {
    id: r.id,
    task: r.task.id,
    source: r.source.path,
    agent: r.agent,
    workdir: r.environment.workdir,
    outcome: { reward: r.outcome.reward, resolved: r.outcome.resolved, status: r.outcome.status },
    steps,
  };
  if (r.derived?.length) out.derived = r.derived;
  if (r.links?.length) out.links = r.links.map(linkJson);
  return out;
}

function rolloutJson(r: Rollout): ShowRollout {
  return rolloutJsonWith(r, r.steps.map(stepJson));
}

/** The parts left out of loaded files (bad JSONL rows), as one located failure per file; warnings are not failures. */
export function partFailures(result: LoadResult): LoadFailure[] {
  return result.files.flatMap((f) => {
    const errors = (f.issues ?? []).filter((i) => !isWarning(i));
    return errors.length ? [{ path: f.path, error: new RolloutLoadError(f.path, LOADERS.find((l) => l.id === f.format)?.label ?? f.format, errors) }] : [];
  });
}

/** The warnings of loaded files (issues that left nothing out), one per issue. */
export function fileWarnings(result: LoadResult): { path: string; message: string }[] {
  return result.files.flatMap((f) => (f.issues ?? []).filter(isWarning).map((i) => ({ path: f.path, message: formatIssue(i) })));
}

/** Builds the `show --json` document from a load result (one value: for a small result; writeShowJson streams it). */
export function showJson(result: LoadResult): ShowJson {
  return showJsonWith(result, result.files.flatMap((f) => f.rollouts.map(rolloutJson)));
}

function showJsonWith<R>(result: LoadResult, rollouts: R): Omit<ShowJson, 'rollouts'> & { rollouts: R } {
  const formats = [...new Set(result.files.map((f) => f.format))];
  const versions = [...new Set(result.files.map((f) => f.schemaVersion))];
  return {
    format: formats.length === 1 ? formats[0] : formats.length ? 'mixed' : null,
    schemaVersion: versions.length === 1 ? versions[0] : null,
    rollouts,
    files: result.files.map((f) => ({ path: f.path, format: f.format, schemaVersion: f.schemaVersion, rollouts: f.rollouts.length, ...(f.job ? { job: f.job } : {}) })),
    errors: [...result.failures, ...partFailures(result)].map((f) => ({ path: f.path, message: f.error.message })),
    warnings: fileWarnings(result),
    skipped: result.skipped,
  };
}

/** Where writeShowJson puts its text: returns a promise while the consumer is full (backpressure), else nothing. */
export type TextSink = (chunk: string) => void | Promise<void>;

/** Text written per call of the sink (UTF-16 units): large enough to keep writes few, small enough to stay far from V8's longest string. */
const CHUNK_CHARS = 1 << 20;

/** A rollout of a streamed document: the rollout without its steps (`steps` is not read), and its steps a window at a time. */
export interface StreamedRollout {
  rollout: Rollout;
  windows: AsyncIterable<readonly Step[]> | Iterable<readonly Step[]>;
}

/** The parts of the document that follow `rollouts`, known once every rollout was written. */
export type ShowJsonRest = Pick<ShowJson, 'files' | 'errors' | 'warnings' | 'skipped'>;

/**
 * Writes the `show --json` document to `sink` a rollout and a step at a time, the same text as
 * `JSON.stringify(doc, null, 2) + '\n'` of the document whose `format` and `schemaVersion` are
 * `head`'s, whose rollouts are `rollouts` (each `rolloutJson` of its head with the steps of its
 * windows) and whose other fields are what `rest` returns after the last rollout was written. No
 * string holds more than one step's document and the pending chunk (about 1 Mi characters), so the
 * size of the output is bounded by nothing but the disk, and memory by what the windows hold.
 * A rollout's windows that throw end the document unwritten (the caller catches what it can say).
 */
export async function writeShowJsonStream(
  head: Pick<ShowJson, 'format' | 'schemaVersion'>,
  rollouts: AsyncIterable<StreamedRollout> | Iterable<StreamedRollout>,
  rest: () => ShowJsonRest,
  sink: TextSink,
): Promise<void> {
  // Stand-ins for the arrays that are streamed: a random string no input can contain.
  const mark = `\u0001${randomUUID()}`;
  const markJson = JSON.stringify(mark);
  let pending = '';
  /** Appends `text`; a promise to wait for while the sink takes a full chunk, else nothing (no turn of the event loop per step). */
  const put = (text: string): void | Promise<void> => {
    pending += text;
    if (pending.length >= CHUNK_CHARS) {
      const out = pending;
      pending = '';
      return sink(out);
    }
  };
  /** `JSON.stringify(value, null, 2)` of a value nested `depth` levels deep (its lines after the first indented). */
  const nested = (value: unknown, depth: number): string => JSON.stringify(value, null, 2).replace(/\n/g, '\n' + '  '.repeat(depth));
  /** The text of `doc` (nested `depth` levels) around the stand-in: before and after it. */
  const around = (doc: unknown, depth: number): [string, string] => {
    const text = nested(doc, depth);
    const at = text.indexOf(markJson);
    return [text.slice(0, at), text.slice(at + markJson.length)];
  };
  /** The separator before an item of an array nested `depth` levels deep, as JSON.stringify indents it (`first`: the array's opening). */
  const before = (first: boolean, depth: number): string => (first ? '[\n' : ',\n') + '  '.repeat(depth + 1);
  /** The end of such an array (`empty`: no item was written). */
  const close = (empty: boolean, depth: number): string => (empty ? '[]' : '\n' + '  '.repeat(depth) + ']');
  const empty: ShowJsonRest = { files: [], errors: [], warnings: [], skipped: [] };
  const [docHead] = around({ ...head, rollouts: mark, ...empty }, 0);
  await put(docHead);
  let firstRollout = true;
  for await (const { rollout, windows } of rollouts) {
    const [rHead, rTail] = around(rolloutJsonWith(rollout, mark), 2);
    await put(before(firstRollout, 1) + rHead);
    firstRollout = false;
    let firstStep = true;
    for await (const w of windows) {
      for (const s of w) {
        const wait = put(before(firstStep, 3) + nested(stepJson(s), 4));
        firstStep = false;
        if (wait) await wait;
      }
    }
    await put(close(firstStep, 3) + rTail);
  }
  await put(close(firstRollout, 1));
  const [, docTail] = around({ ...head, rollouts: mark, ...rest() }, 0);
  await put(docTail + '\n');
  if (pending) await sink(pending);
}

/**
 * Writes the `show --json` document of `result` to `sink`, the same text as
 * `JSON.stringify(showJson(result), null, 2) + '\n'`, a rollout and a step at a time
 * (writeShowJsonStream).
 */
export async function writeShowJson(result: LoadResult, sink: TextSink): Promise<void> {
  const { rollouts: _r, format, schemaVersion, ...rest } = showJsonWith(result, null);
  const rollouts = (function* () {
    for (const f of result.files) for (const r of f.rollouts) yield { rollout: r, windows: [r.steps] };
  })();
  await writeShowJsonStream({ format, schemaVersion }, rollouts, () => rest, sink);
}
