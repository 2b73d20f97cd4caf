/**
 * Harbor traces export: one of the RL rollout dump loaders, on the conversation mapper of
 * rlConversation.ts (whose module docs hold the mapping decisions these loaders share).
 *
 * `harbor-traces` — Harbor's traces export (`harbor-framework/harbor`
 *    `src/harbor/utils/traces_utils.py`: `export_traces` → `collect_conversations_from_trial` →
 *    `_extract_single_episode_conversation`; CLI `harbor traces export`, `src/harbor/cli/traces.py`):
 *    a JSON list (or JSONL) of `{conversations:[{role, content}], agent, model, model_provider, date,
 *    task, episode, run_id, trial_name, result, trace_source?, instruction?, tool_definitions?}`, one
 *    record per episode with the cumulative conversation.
 */
import { z } from 'zod';
import { unknownOutcome, type Outcome, type Rollout, type Step } from '../model';
import { agentText, Conversation, fallbackId, firstUserText, rowObject } from './rlConversation';
import { finishRows, firstRow, IssueCollector, rowLine, rowRefs, uniqueIds, type RowRef } from './rows';
import { exitCodeOf, textExitCode, textToolCalls } from './textToolCalls';
import { toolNames } from './toolCalls';
import type { Detection, FormatLoader, LoadInput } from './types';
import { contentText, isObject, resolvedFromReward, terminusReplyActions } from './util';

const TRACES_LABEL = 'Harbor traces export';

const TraceMessageSchema = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.unknown()), z.null()]) });
const TraceRecordSchema = z.looseObject({
  conversations: z.array(TraceMessageSchema),
  agent: z.string().nullish(),
  model: z.string().nullish(),
  model_provider: z.string().nullish(),
  date: z.string().nullish(),
  task: z.string().nullish(),
  episode: z.string().nullish(),
  run_id: z.string().nullish(),
  trial_name: z.string().nullish(),
  result: z.union([z.string(), z.number()]).nullish(),
  trace_source: z.string().nullish(),
  instruction: z.string().nullish(),
  verifier_output: z.string().nullish(),
  tool_definitions: z.array(z.unknown()).nullish(),
});
type TraceRecord = z.infer<typeof TraceRecordSchema>;

interface LoadedTrace {
  ref: RowRef;
  rec: TraceRecord;
  /** Episode number from `episode-<n>`, else the record's ordinal. */
  episodeNo: number;
}

function sameMessage(a: TraceRecord['conversations'][number], b: TraceRecord['conversations'][number]): boolean {
  return a.role === b.role && (a.content === b.content || JSON.stringify(a.content) === JSON.stringify(b.content));
}

function isPrefix(a: TraceRecord['conversations'], b: TraceRecord['conversations']): boolean {
  return a.length <= b.length && a.every((m, i) => sameMessage(m, b[i]));
}

/** Result field: a number (reward bucket like "1.0") or an exception name. */
function traceOutcome(result: string | number | null | undefined): Outcome {
  const o = unknownOutcome();
  if (result === null || result === undefined) return o;
  const n = typeof result === 'number' ? result : /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(result) ? Number(result) : NaN;
  if (Number.isFinite(n)) {
    o.reward = n;
    o.resolved = resolvedFromReward(n);
  } else {
    o.status = String(result);
  }
  o.source = 'result';
  return o;
}

/**
 * Steps of one conversation segment (the last record of a run of cumulative episodes). A user message
 * right after an assistant message is that agent step's observation: the exporter writes each agent
 * step's observation as the next user message (a genuine user turn in that place reads the same).
 */
function traceSegmentSteps(conv: Conversation, seg: LoadedTrace[], episodeEnds: Map<number, string>): void {
  const last = seg[seg.length - 1];
  const msgs = last.rec.conversations;
  /** The agent step of the previous message when it was an assistant message (within this segment). */
  let prevAgent: Step | null = null;
  msgs.forEach((m, i) => {
    const text = contentText(m.content);
    const range = last.ref.doc.rangeOf([...last.ref.at, 'conversations', i]);
    const role = m.role.toLowerCase();
    if (role === 'assistant') {
      const { message, reasoning } = agentText(text, []);
      const step = conv.add('agent', { sourceId: episodeEnds.get(i) ?? null, message, reasoning, range });
      const calls = textToolCalls(message);
      if (calls) {
        step.message = calls.text;
        step.actions.push(...calls.actions);
      } else {
        step.actions.push(...(terminusReplyActions(message) ?? []));
      }
      prevAgent = step;
    } else if ((role === 'user' || role === 'tool') && prevAgent) {
      prevAgent.observations.push({ callId: null, output: text, ...textExitCode(exitCodeOf(text)), truncated: false });
      prevAgent = null;
    } else {
      conv.add(role === 'system' ? 'system' : role === 'user' ? 'user' : 'environment', { message: text, range });
      prevAgent = null;
    }
  });
}

/** Builds the rollouts of a traces export: one per (run_id, trial_name, trace_source). */
function traceRollouts(input: LoadInput, traces: LoadedTrace[]): Rollout[] {
  const groups = new Map<string, LoadedTrace[]>();
  for (const t of traces) {
    const key = JSON.stringify([t.rec.run_id ?? null, t.rec.trial_name ?? null, t.rec.trace_source ?? null, t.rec.task ?? null]);
    const g = groups.get(key);
    if (g) g.push(t);
    else groups.set(key, [t]);
  }
  const out: Rollout[] = [];
  for (const g of groups.values()) {
    const ordered = [...g].sort((a, b) => a.episodeNo - b.episodeNo || a.ref.index - b.ref.index);
    // Segments: runs of records whose conversations extend the previous one (cumulative episodes);
    // a record that does not (a continuation after context summarization) starts a new segment.
    const segments: LoadedTrace[][] = [];
    for (const t of ordered) {
      const seg = segments[segments.length - 1];
      if (seg && isPrefix(seg[seg.length - 1].rec.conversations, t.rec.conversations)) seg.push(t);
      else segments.push([t]);
    }
    const conv = new Conversation();
    const segmentInfo: { firstStep: number; episodes: string[] }[] = [];
    for (const seg of segments) {
      const firstStep = conv.steps.length;
      // Which assistant message ends which episode record (its training target).
      const ends = new Map<number, string>();
      for (const t of seg) {
        const n = t.rec.conversations.length;
        if (n && t.rec.conversations[n - 1].role === 'assistant') ends.set(n - 1, t.rec.episode ?? `#${t.ref.index}`);
      }
      traceSegmentSteps(conv, seg, ends);
      segmentInfo.push({ firstStep, episodes: seg.map((t) => t.rec.episode ?? `#${t.ref.index}`) });
    }
    const first = ordered[0].rec;
    const lastRec = ordered[ordered.length - 1].rec;
    const firstRef = ordered[0].ref;
    const baseId = first.trial_name ?? first.run_id ?? fallbackId(input, firstRef);
    const src = first.trace_source && first.trace_source !== 'main' ? first.trace_source : null;
    const metadata: Record<string, unknown> = {
      runId: first.run_id ?? null,
      trialName: first.trial_name ?? null,
      modelProvider: first.model_provider ?? null,
      date: first.date ?? null,
      episodes: ordered.map((t) => t.rec.episode ?? null),
      records: ordered.length,
      result: lastRec.result ?? null,
    };
    if (segments.length > 1) metadata.segments = segmentInfo;
    if (first.trace_source) metadata.traceSource = first.trace_source;
    if (lastRec.verifier_output != null) metadata.verifierOutput = lastRec.verifier_output;
    if (first.tool_definitions?.length) metadata.toolNames = toolNames(first.tool_definitions);
    const lines = ordered.map((t) => rowLine(t.ref));
    const outcome = traceOutcome(lastRec.result);
    out.push({
      id: src ? `${baseId}#${src}` : baseId,
      format: 'harbor-traces',
      schemaVersion: null,
      source: { path: input.path, range: null, line: ordered.length === 1 ? lines[0] : null },
      task: { id: first.task ?? null, instruction: lastRec.instruction ?? firstUserText(conv.steps) },
      agent: { name: first.agent ?? null, version: null, model: first.model ?? null },
      environment: { image: null, workdir: null },
      outcome,
      // A numeric result is a reward; Harbor records no "resolved" (traceOutcome derives it).
      ...(outcome.resolved !== null ? { derived: ['outcome.resolved'] } : {}),
      groupId: null,
      steps: conv.steps,
      metadata,
    });
  }
  uniqueIds(out);
  return out;
}

function traceLooksLike(v: unknown): boolean {
  return isObject(v) && Array.isArray(v.conversations) && ['episode', 'run_id', 'trial_name', 'agent', 'model_provider'].some((k) => k in v);
}

/**
 * Harbor traces export (module docs above): records of `{conversations:[{role, content}], agent,
 * model, model_provider, date, task, episode, run_id, trial_name, result}`, a JSON list or JSONL.
 *
 * Decision: one rollout per trial (records sharing `run_id`, `trial_name`, `trace_source`, `task`),
 * not per record. Harbor writes one record per episode with the cumulative conversation up to that
 * episode's assistant turn, so the records of a trial are prefixes of each other; the rollout's steps
 * come from the last record of each run of cumulative records ("segment"). A record that does not
 * extend the previous one (the agent restarted its conversation after context summarization) starts
 * a new segment, appended after the previous one (`metadata.segments`: first step and episodes).
 * Steps: the first `user` message (Harbor writes the ATIF system prompt as `user`) → user step;
 * `assistant` → agent step (`<think>` → reasoning; Harbor's `<tool_call>{name, arguments}</tool_call>`
 * blocks → actions; else a Terminus-2 JSON reply → `keystrokes` actions and `finish` for
 * `task_complete: true`, via util `terminusReplyActions`); the user message after an assistant message
 * → that agent step's observation; an agent step's `sourceId` = the episode whose record ends with it.
 * Outcome from `result`: a number (reward bucket "1.0") → reward (resolved implied), another string
 * (exception name) → status. Id = `trial_name` (else `run_id`, else `<path>:<line>`), `#<trace_source>`
 * appended for subagent traces. `ranges` point into the last record of the step's segment.
 * @throws RolloutLoadError when no record is valid (bad records otherwise go to `input.issues`).
 */
export const harborTracesLoader: FormatLoader = {
  id: 'harbor-traces',
  label: TRACES_LABEL,
  detect(input): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    const { value, where } = firstRow(input);
    if (!isObject(value)) return { accept: false, reason: `${where} is not a JSON object` };
    if (traceLooksLike(value)) return { accept: true, confidence: 0.95 };
    return { accept: false, reason: `${where} has no "conversations" list with "episode"/"run_id"/"trial_name"/"agent"` };
  },
  async load(input) {
    const traces: LoadedTrace[] = [];
    const issues = new IssueCollector();
    for (const make of rowRefs(input)) {
      const t = issues.run(() => {
        const ref = make();
        rowObject(ref, TRACES_LABEL, 'a traces record object');
        const rec = ref.doc.validate(TraceRecordSchema, TRACES_LABEL, ref.at);
        const m = /^episode-(\d+)$/.exec(rec.episode ?? '');
        return { ref, rec, episodeNo: m ? Number(m[1]) : ref.index };
      });
      if (t) traces.push(t);
    }
    return finishRows(input, TRACES_LABEL, traces.length ? traceRollouts(input, traces) : [], issues.issues);
  },
};
