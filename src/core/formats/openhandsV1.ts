/**
 * The OpenHands V1 events loader: a persisted conversation folder (`base_state.json` +
 * `events/event-NNNNN-<event id>.json`), a JSON list or JSONL of V1 events (sources and mapping in
 * the module docs of openhandsEvents.ts; steps built by openhandsV1Steps.ts).
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { RolloutLoadError, type LocatedIssue } from '../errors';
import { JsonDoc, type JsonlLine } from '../json';
import { unknownOutcome, type Rollout, type Step } from '../model';
import { looksLikeV1Event, metadataOf, readResponseMetrics, validateV1Event, validateV1Events, type BuildInfo, type ResponseMetrics } from './openhandsEvents';
import { buildV1Steps, V1StepBuilder, type V1Item } from './openhandsV1Steps';
import { IssueCollector } from './rows';
import type { Detection, FormatLoader, LoadInput, RecordStream, StreamedRollout, StreamStart } from './types';
import { isObject, num, str } from './util';

const V1_LABEL = 'OpenHands V1 events';

// ---------------------------------------------------------------------------------------------
// V1 loader

const EVENT_FILE_RE = /^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$/;

function v1Detect(input: LoadInput): Detection {
  if (input.lines) {
    if (looksLikeV1Event(input.firstLineValue)) return { accept: true, confidence: 0.85 };
    return { accept: false, reason: 'first JSONL line is not a V1 event (no known "kind")' };
  }
  const v = input.doc?.value;
  if (Array.isArray(v)) {
    if (v.length === 0) return { accept: false, reason: 'the event list is empty' };
    const sample = v.slice(0, 3);
    if (sample.every(isObject) && sample.some(looksLikeV1Event)) return { accept: true, confidence: 0.85 };
    return { accept: false, reason: 'list items are not V1 events (no known "kind")' };
  }
  if (looksLikeV1Event(v)) {
    const m = EVENT_FILE_RE.exec(path.basename(input.path));
    if (!m) return { accept: false, reason: 'a single V1 event outside a conversation events/ folder' };
    if (Number(m[1]) !== 0) {
      return {
        accept: false,
        reason: `one event of a V1 conversation folder; the conversation is read from its first event file (event-00000-…json in ${path.dirname(input.path)})`,
      };
    }
    return { accept: true, confidence: 0.9 };
  }
  return { accept: false, reason: 'no V1 event "kind"' };
}

/**
 * `base_state.json` beside a persisted conversation's `events/` folder. It only adds facts (id, model,
 * workdir, status, per-response usage), so a missing file gives null and an unreadable one a warning.
 */
async function readBaseState(input: LoadInput, eventsDir: string, warnings: string[]): Promise<Record<string, unknown> | null> {
  if (path.basename(eventsDir) !== 'events') return null;
  const file = path.join(path.dirname(eventsDir), 'base_state.json');
  const text = await input.files.readText(file);
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    if (isObject(v)) return v;
  } catch {
    // reported below
  }
  warnings.push(`${file} is not a JSON object; conversation id, model and usage were not read from it`);
  return null;
}

/** Metrics of every LLM in a V1 `ConversationState.stats.usage_to_metrics` (agent, condenser, …). */
function baseStateMetrics(bs: Record<string, unknown> | null): ResponseMetrics | null {
  const stats = bs && isObject(bs.stats) ? bs.stats : null;
  const per = stats && isObject(stats.usage_to_metrics) ? stats.usage_to_metrics : null;
  if (!per) return null;
  const m: ResponseMetrics = { tokens: new Map(), cost: new Map() };
  for (const v of Object.values(per)) readResponseMetrics(v, m);
  return m;
}

async function loadV1Folder(input: LoadInput): Promise<{ items: V1Item[]; base: Record<string, unknown> | null; warnings: string[] }> {
  const dir = path.dirname(input.path);
  const names = (await input.files.list(dir))
    .map((n) => ({ n, m: EVENT_FILE_RE.exec(n) }))
    .filter((x): x is { n: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]));
  const warnings: string[] = [];
  names.forEach((x, i) => {
    if (Number(x.m[1]) !== i && (i === 0 || Number(names[i - 1].m[1]) !== Number(x.m[1]) - 1)) {
      warnings.push(`event index gap before ${x.n} (expected index ${i})`);
    }
  });
  const issues = new IssueCollector();
  const items: V1Item[] = [];
  for (const { n } of names) {
    const file = path.join(dir, n);
    const text = file === input.path ? input.text : await input.files.readText(file);
    if (text === null) {
      issues.issues.push({ file, line: null, column: null, pointer: null, expected: 'a readable event file', found: 'nothing' });
      continue;
    }
    const doc = file === input.path && input.doc ? input.doc : issues.run(() => JsonDoc.parse(file, text));
    if (!doc) continue;
    const ev = validateV1Event(doc, [], issues, V1_LABEL);
    if (ev) items.push({ ev, range: doc.rangeOf([]), doc, at: [], ...(file !== input.path ? { file } : {}) });
  }
  if (issues.issues.length) throw new RolloutLoadError(input.path, V1_LABEL, issues.issues);
  const base = await readBaseState(input, dir, warnings);
  return { items, base, warnings };
}

function v1Rollout(input: LoadInput, items: V1Item[], base: Record<string, unknown> | null, extraMeta: Record<string, unknown>): Rollout {
  const { steps, info } = buildV1Steps(items, baseStateMetrics(base));
  if (info.warnings.length) (input.issues ??= []).push(...info.warnings);
  return v1RolloutOf(input.path, steps, info, items.length, base, extraMeta);
}

/** The rollout of a V1 conversation from its steps and what was gathered building them. */
function v1RolloutOf(file: string, steps: Step[], info: BuildInfo, eventCount: number, base: Record<string, unknown> | null, extraMeta: Record<string, unknown>): Rollout {
  const agent = base && isObject(base.agent) ? base.agent : null;
  const llm = agent && isObject(agent.llm) ? agent.llm : null;
  const ws = base && isObject(base.workspace) ? base.workspace : null;
  const status = base ? str(base.execution_status) : null;
  const outcome = unknownOutcome();
  if (status) {
    outcome.status = status;
    outcome.source = 'base_state.json execution_status';
  }
  const stats = base && isObject(base.stats) && isObject(base.stats.usage_to_metrics) ? base.stats.usage_to_metrics : null;
  const totalCost = stats ? Object.values(stats).reduce<number | null>((s, v) => (isObject(v) && num(v.accumulated_cost) !== null ? (s ?? 0) + (v.accumulated_cost as number) : s), null) : null;
  if (totalCost !== null) info.totalCostUsd = totalCost;
  return {
    id: (base && str(base.id)) ?? `${file}#0`,
    format: 'openhands-v1',
    schemaVersion: null,
    source: { path: file, range: null, line: null },
    task: { id: null, instruction: info.firstUserMessage },
    agent: { name: 'OpenHands', version: null, model: llm ? str(llm.model) : null },
    environment: { image: null, workdir: (ws && str(ws.working_dir)) ?? info.workdir },
    outcome,
    groupId: null,
    steps,
    metadata: metadataOf(info, eventCount, extraMeta),
  };
}

/** A copy of the facts gathered so far that the builder's later events do not change. */
function copyInfo(info: BuildInfo): BuildInfo {
  return { ...info, exitCodeUnknownSteps: [...info.exitCodeUnknownSteps], skippedEvents: { ...info.skippedEvents }, agentStates: [...info.agentStates], warnings: [...info.warnings] };
}

/**
 * The incremental reader of a V1 events JSONL file (RecordStream): each pushed line is parsed,
 * validated and added to the steps at once; a line that is not JSON or not a V1 event becomes a
 * located issue and is left out. `load` of a JSONL file is this stream fed every line.
 */
class V1EventStream implements RecordStream {
  readonly issues: LocatedIssue[] = [];
  private readonly builder = new V1StepBuilder(null);
  private events = 0;

  constructor(private readonly start: StreamStart) {}

  push(lines: readonly JsonlLine[]): void {
    for (const line of lines) {
      const c = new IssueCollector();
      const doc = c.run(() => this.start.parseLine(line));
      const ev = doc ? validateV1Event(doc, [], c, V1_LABEL) : undefined;
      if (doc && ev) {
        const before = this.builder.info.warnings.length;
        this.builder.add({ ev, range: doc.valueRange(), doc, at: [] });
        this.issues.push(...this.builder.info.warnings.slice(before));
        this.events++;
      }
      this.issues.push(...c.issues);
    }
  }

  /** Events read so far. */
  get eventCount(): number {
    return this.events;
  }

  snapshot(): StreamedRollout[] {
    const changedFrom = this.builder.takeChanged();
    // A copy of the list: the builder goes on appending to its own.
    const rollout = v1RolloutOf(this.start.path, this.builder.steps.slice(), copyInfo(this.builder.info), this.events, null, { layout: 'jsonl' });
    return [{ rollout, changedFrom }];
  }
}

/**
 * OpenHands V1 (software-agent-sdk) events: a JSON list of events, a JSONL file of events, or a
 * persisted conversation folder read through its first event file
 * (`<conversation>/events/event-00000-<id>.json`; sibling event files and `../base_state.json`
 * are joined, steps from other files carry `file`). One rollout per input; id = `base_state.json`
 * `id` when present, else `<path>#0`.
 * @throws RolloutLoadError listing every event (or JSONL line, or event file) that does not conform.
 */
export const openHandsV1Loader: FormatLoader = {
  id: 'openhands-v1',
  label: V1_LABEL,
  detect: v1Detect,
  stream: (start) => new V1EventStream(start),
  async load(input: LoadInput): Promise<Rollout[]> {
    const issues = new IssueCollector();
    if (input.lines) {
      // The stream fed every line: bad lines are located warnings (input.issues), the rest is read;
      // a file without a single V1 event fails with them.
      const stream = new V1EventStream({ path: input.path, files: input.files, parseLine: input.parseLine });
      stream.push(input.lines);
      if (stream.eventCount === 0) throw new RolloutLoadError(input.path, V1_LABEL, stream.issues.length ? [...stream.issues] : [{ file: input.path, line: 1, column: 1, pointer: null, expected: 'a V1 event', found: 'no events' }]);
      if (stream.issues.length) (input.issues ??= []).push(...stream.issues);
      return stream.snapshot().map((s) => s.rollout);
    }
    const doc = input.doc;
    if (doc && Array.isArray(doc.value)) {
      const events = validateV1Events(doc, [], issues, V1_LABEL);
      if (issues.issues.length) throw new RolloutLoadError(input.path, V1_LABEL, issues.issues);
      const items = events.map((ev, i) => ({ ev, range: doc.rangeOf([i]), doc, at: [i] }));
      return [v1Rollout(input, items, null, { layout: 'list' })];
    }
    if (doc && isObject(doc.value) && EVENT_FILE_RE.test(path.basename(input.path))) {
      const { items, base, warnings } = await loadV1Folder(input);
      const extra: Record<string, unknown> = { layout: 'conversation-folder', eventsDir: path.dirname(input.path) };
      if (base) extra.baseState = path.join(path.dirname(path.dirname(input.path)), 'base_state.json');
      if (warnings.length) extra.warnings = warnings;
      return [v1Rollout(input, items, base, extra)];
    }
    throw new RolloutLoadError(input.path, V1_LABEL, [
      { file: input.path, line: 1, column: 1, pointer: '', expected: 'a list of V1 events, a JSONL of events, or events/event-00000-….json', found: 'another value' },
    ]);
  },
};
