/**
 * Export of step labels as training / evaluation data for process reward models (docs/labels.md):
 *
 * - `trl` — TRL stepwise supervision (`huggingface/trl` `docs/source/dataset_formats.md`, PRMTrainer):
 *   JSONL rows `{prompt, completions: [step text…], labels: [bool…]}`.
 * - `agentprocessbench` — AgentProcessBench rows (`RUCBM/AgentProcessBench` `data/AgentProcessBench/*.jsonl`):
 *   `{record_id, question, messages (OpenAI chat), tools, step_labels: {"<assistant message index>": 1|0|-1}, final_label}`.
 * - `processbench` — ProcessBench items (`QwenLM/ProcessBench`): a JSON array of
 *   `{id, generator, problem, steps: [paragraph…], label: first error paragraph or −1, final_answer_correct}`.
 *
 * Steps. A PRM step is one agent step (AgentProcessBench: one assistant message), rendered as text by
 * `stepText`: the message, then each action as a Hermes/Qwen-style `<tool_call>{"name", "arguments"}</tool_call>`
 * block (an action whose command already appears verbatim in the message is not repeated), then each
 * observation as `<tool_response>…</tool_response>` — the observation belongs to the step that caused
 * it (scorer.md §6.3's step serialisation, so training and scoring see the same text). Non-agent
 * steps after an agent step (user follow-ups, stand-alone environment output) are appended to that
 * agent step's text; those before the first agent step form the prompt. Reasoning is not exported.
 *
 * Every exported file loads back through this project's own loaders (src/core/formats/
 * `agentProcessBench.ts`, `processBench.ts`, `prm800k.ts`, `trlStepwise.ts`) with the same labels (tests in test/unit/labels/export.test.ts).
 *
 * This module never imports `vscode`.
 */
import { labelConflictOf, type ConflictPolicy } from './conflicts';
import type { Action, Rollout, Step } from '../model';
import type { CurrentLabel, LabelValue } from './api';
import { asBoolean, dataVerdict, firstError, labelsFrom, referenceLabels, REFERENCE, withFallback, type NeutralMapping, type RolloutLabels } from './select';

export type ExportFormat = 'trl' | 'agentprocessbench' | 'processbench';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['trl', 'agentprocessbench', 'processbench'];

/**
 * Default neutral mapping for the boolean formats: `negative`, as TRL's own PRM800K converter
 * (`examples/datasets/prm800k.py`: `label = rating == 1`) turns PRM800K's neutral ratings into `false`.
 */
export const DEFAULT_NEUTRAL: NeutralMapping = 'negative';

export interface TrlRow {
  prompt: string;
  completions: string[];
  labels: boolean[];
}

export interface ApbMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  reasoning_content?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface ApbRow {
  record_id: string;
  question: string | null;
  messages: ApbMessage[];
  tools: { type: 'function'; function: { name: string } }[];
  step_labels: Record<string, LabelValue>;
  final_label: LabelValue | null;
}

export interface ProcessBenchItem {
  id: string;
  generator: string | null;
  problem: string;
  steps: string[];
  label: number;
  final_answer_correct: boolean | null;
}

/** A rollout the export left out, and why. */
export interface Skipped {
  rolloutId: string;
  reason: string;
}

// ---------------------------------------------------------------------------------------------
// Step text

function toolName(a: Action): string {
  if (a.tool) return a.tool;
  return a.kind === 'shell' || a.kind === 'keystrokes' ? 'bash' : a.kind;
}

function argumentsValue(a: Action): unknown {
  if (a.arguments !== undefined) return a.arguments;
  return a.command !== null ? { command: a.command } : {};
}

function argumentsString(a: Action): string {
  const v = argumentsValue(a);
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Text of an observation block. */
function responseBlock(output: string): string {
  return `<tool_response>\n${output}\n</tool_response>`;
}

/** One step rendered as PRM step text (see the module docs). */
export function stepText(step: Step): string {
  const parts: string[] = [];
  if (step.role === 'user' || step.role === 'system') {
    if (step.message !== '') parts.push(step.role === 'user' ? `User: ${step.message}` : `System: ${step.message}`);
  } else if (step.message !== '') {
    parts.push(step.message);
  }
  for (const a of step.actions) {
    if (a.command !== null && a.command.trim() !== '' && step.message.includes(a.command.trim())) continue;
    parts.push(`<tool_call>\n${JSON.stringify({ name: toolName(a), arguments: argumentsValue(a) })}\n</tool_call>`);
  }
  for (const o of step.observations) parts.push(responseBlock(o.output));
  return parts.join('\n');
}

/** Text of the steps before the first agent step (system and user messages), else the task instruction. */
export function promptText(rollout: Rollout): string {
  const first = rollout.steps.findIndex((s) => s.role === 'agent');
  const before = first < 0 ? rollout.steps : rollout.steps.slice(0, first);
  const parts = before
    .map((s) => (s.role === 'user' || s.role === 'system' ? s.message : stepText(s)))
    .filter((t) => t !== '');
  if (parts.length) return parts.join('\n\n');
  return rollout.task.instruction ?? '';
}

/** The agent steps of a rollout, each with its text (including the non-agent steps that follow it). */
export function agentUnits(rollout: Rollout): { step: Step; text: string }[] {
  const units: { step: Step; text: string }[] = [];
  for (const s of rollout.steps) {
    if (s.role === 'agent') units.push({ step: s, text: stepText(s) });
    else if (units.length) {
      const t = stepText(s);
      if (t !== '') units[units.length - 1].text += (units[units.length - 1].text ? '\n' : '') + t;
    }
  }
  return units;
}

// ---------------------------------------------------------------------------------------------
// TRL stepwise supervision

/**
 * One TRL row: completions = the agent steps in order, labels = +1 → true, −1 → false, 0 per
 * `neutral`. A step with no boolean label (unlabelled, or neutral under `drop`) gets no completion of
 * its own: its text is folded into the next completion that has a label (so later steps keep their
 * context), and steps after the last labelled one are cut. Skipped when no agent step has a label.
 */
export function toTrlRow(labels: RolloutLabels, neutral: NeutralMapping): TrlRow | Skipped {
  const { rollout } = labels;
  const completions: string[] = [];
  const out: boolean[] = [];
  let carry: string | null = null;
  for (const u of agentUnits(rollout)) {
    const text: string = carry === null ? u.text : `${carry}\n${u.text}`;
    const v = labels.steps.get(u.step.index);
    const b = v === undefined ? null : asBoolean(v, neutral);
    if (b === null) {
      carry = text;
      continue;
    }
    completions.push(text);
    out.push(b);
    carry = null;
  }
  if (completions.length === 0) return { rolloutId: rollout.id, reason: 'no agent step has a label' + (neutral === 'drop' ? ' other than neutral' : '') };
  return { prompt: promptText(rollout), completions, labels: out };
}

// ---------------------------------------------------------------------------------------------
// AgentProcessBench

/**
 * One AgentProcessBench row: the rollout as OpenAI chat messages (system → system, user → user,
 * agent → assistant with `tool_calls` (ids from the actions, else `call_<step>_<k>`), its observations
 * → `tool` messages answering its calls; an observation of a step without actions → a user message;
 * stand-alone environment steps → `tool` messages), `step_labels` keyed by the message index of each
 * labelled agent step's assistant message (neutral stays 0: the format is ternary), `final_label` =
 * the verdict (null when none). `tools` lists the tool names used (name-only function schemas).
 */
export function toApbRow(labels: RolloutLabels): ApbRow | Skipped {
  const { rollout } = labels;
  const messages: ApbMessage[] = [];
  const stepLabels: Record<string, LabelValue> = {};
  const tools = new Set<string>();
  for (const s of rollout.steps) {
    if (s.role === 'system' || s.role === 'user') {
      messages.push({ role: s.role, content: s.message });
      continue;
    }
    if (s.role === 'environment') {
      if (s.message !== '') messages.push({ role: 'user', content: s.message });
      for (const o of s.observations) messages.push({ role: 'tool', content: o.output, ...(o.callId ? { tool_call_id: o.callId } : {}) });
      for (const a of s.actions) tools.add(toolName(a));
      continue;
    }
    const m: ApbMessage = { role: 'assistant', content: s.message };
    if (s.reasoning) m.reasoning_content = s.reasoning;
    const ids = s.actions.map((a, k) => a.callId ?? `call_${s.index}_${k}`);
    if (s.actions.length) {
      m.tool_calls = s.actions.map((a, k) => ({ id: ids[k], type: 'function' as const, function: { name: toolName(a), arguments: argumentsString(a) } }));
      for (const a of s.actions) tools.add(toolName(a));
    }
    const v = labels.steps.get(s.index);
    if (v !== undefined) stepLabels[String(messages.length)] = v;
    messages.push(m);
    s.observations.forEach((o, k) => {
      if (s.actions.length === 0) {
        messages.push({ role: 'user', content: o.output });
        return;
      }
      const byId = o.callId ? s.actions.findIndex((a) => a.callId === o.callId) : -1;
      const j = byId >= 0 ? byId : Math.min(k, s.actions.length - 1);
      messages.push({ role: 'tool', content: o.output, tool_call_id: o.callId ?? ids[j], name: toolName(s.actions[j]) });
    });
  }
  if (Object.keys(stepLabels).length === 0) return { rolloutId: rollout.id, reason: 'no agent step has a label' };
  return {
    record_id: rollout.id,
    question: rollout.task.instruction,
    messages,
    tools: [...tools].map((name) => ({ type: 'function' as const, function: { name } })),
    step_labels: stepLabels,
    final_label: labels.verdict,
  };
}

// ---------------------------------------------------------------------------------------------
// ProcessBench

/**
 * One ProcessBench item: `problem` = the prompt, `steps` = every agent step's text, `label` = the
 * position (among the agent steps) of the first error, −1 when every agent step is fine (`firstError`
 * in select.ts; a neutral step is an error only under `neutral: 'negative'`). Rollouts whose first
 * error is not defined (an unlabelled agent step before it, or no error and an unlabelled step) are
 * skipped with the reason. `final_answer_correct` = verdict +1 → true, −1 → false, else null;
 * `generator` = the agent's model (or name), else null.
 */
export function toProcessBenchItem(labels: RolloutLabels, neutral: NeutralMapping): ProcessBenchItem | Skipped {
  const { rollout } = labels;
  const fe = firstError(rollout, labels.steps, neutral);
  if (!fe.defined) return { rolloutId: rollout.id, reason: `no first error can be given: ${fe.reason}` };
  return {
    id: rollout.id,
    generator: rollout.agent.model ?? rollout.agent.name ?? null,
    problem: promptText(rollout),
    steps: agentUnits(rollout).map((u) => u.text),
    label: fe.ordinal,
    final_answer_correct: labels.verdict === 1 ? true : labels.verdict === -1 ? false : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Whole exports

/** Which labels an export takes. */
export interface ExportSelection {
  /** An annotator's name, `REFERENCE` (the labels that came with the data), or null (none: only with `includeReference`). */
  source: string | null;
  /** Fill the steps `source` leaves unlabelled with the reference labels. */
  includeReference?: boolean;
  /** Keep labels whose step changed since they were given (left out by default). */
  includeStale?: boolean;
}

/**
 * The labels each rollout exports with: `source`'s labels (stale ones left out unless asked for),
 * with `includeReference` the reference labels where `source` has none; the verdict is the
 * annotator's, else the data's own (`dataVerdict`: AgentProcessBench final_label or outcome.resolved).
 * `staleLeftOut` counts the stale labels left out.
 */
export function selectForExport(rollouts: Rollout[], current: CurrentLabel[], sel: ExportSelection): RolloutLabels[] {
  return rollouts.map((r) => {
    let l: RolloutLabels = sel.source !== null ? labelsFrom(r, current, sel.source, sel.includeStale ?? false) : { rollout: r, steps: new Map(), verdict: null, staleLeftOut: 0 };
    if (sel.includeReference && sel.source !== REFERENCE) l = withFallback(l, referenceLabels(r));
    if (l.verdict === null) l = { ...l, verdict: dataVerdict(r) };
    return l;
  });
}

export interface ExportResult {
  format: ExportFormat;
  rows: (TrlRow | ApbRow | ProcessBenchItem)[];
  /** The file text: JSONL for trl and agentprocessbench, a JSON array (one item per line) for processbench. */
  text: string;
  skipped: Skipped[];
  /** Rollouts whose dataset labels contradict each other (./conflicts.ts), and what was done with them (`policy`). */
  conflicts: { policy: ConflictPolicy; rolloutIds: string[] };
}

/** Thrown by `exportRows` under `conflicts: 'fail'` when a record's labels conflict; `rolloutIds` names them. */
export class LabelConflictError extends Error {
  constructor(readonly rolloutIds: string[]) {
    super(`${rolloutIds.length} rollout(s) have conflicting dataset labels (first: ${rolloutIds[0]}): nothing exported (--conflicts drop leaves them out, keep exports them as they are)`);
    this.name = 'LabelConflictError';
  }
}

function isSkipped(x: object): x is Skipped {
  return 'reason' in x && 'rolloutId' in x && Object.keys(x).length === 2;
}

/**
 * Exports the labels of many rollouts in one format. Rollouts whose dataset labels contradict each
 * other (./conflicts.ts) are, by `conflicts`: left out as skipped (`drop`, default), exported as
 * they are (`keep`), or the whole export refused (`fail`: throws LabelConflictError); either way
 * `conflicts.rolloutIds` names them.
 */
export function exportRows(format: ExportFormat, items: RolloutLabels[], neutral: NeutralMapping = DEFAULT_NEUTRAL, conflicts: ConflictPolicy = 'drop'): ExportResult {
  const rows: ExportResult['rows'] = [];
  const skipped: Skipped[] = [];
  const conflicting = items.filter((it) => labelConflictOf(it.rollout)).map((it) => it.rollout.id);
  if (conflicts === 'fail' && conflicting.length) throw new LabelConflictError(conflicting);
  for (const it of items) {
    const c = labelConflictOf(it.rollout);
    if (c && conflicts === 'drop') {
      skipped.push({ rolloutId: it.rollout.id, reason: `${c.reason} (--conflicts keep exports it)` });
      continue;
    }
    const r = format === 'trl' ? toTrlRow(it, neutral) : format === 'agentprocessbench' ? toApbRow(it) : toProcessBenchItem(it, neutral);
    if (isSkipped(r)) skipped.push(r);
    else rows.push(r);
  }
  const text =
    format === 'processbench'
      ? rows.length
        ? `[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`
        : '[]\n'
      : rows.map((r) => JSON.stringify(r) + '\n').join('');
  return { format, rows, text, skipped, conflicts: { policy: conflicts, rolloutIds: conflicting } };
}
