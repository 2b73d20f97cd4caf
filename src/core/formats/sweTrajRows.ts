/**
 * Public SWE-agent trajectory datasets written as rows of `trajectory[]{role, text}`: the
 * nebius/SWE-agent-trajectories dataset on Hugging Face (80 036 SWE-agent runs on SWE-bench-extra and
 * SWE-bench dev; dataset card `README.md` `dataset_info.features`: `instance_id`, `model_name`,
 * `target` (bool: the generated patch passed the tests of the linked pull request), `trajectory` =
 * list of `{cutoff_date, mask, role, system_prompt, text}`, `exit_status`, `generated_patch`,
 * `eval_logs`). Read as a JSON array of rows (the HF viewer / `datasets` `to_json` export), JSONL
 * (one row per line) or one row object.
 *
 * The turns are SWE-agent's prompt and replies as text (no function calling): `system` (its
 * `system_prompt` holds the prompt, `text` is null), `user` (the rendered instance prompt, then each
 * observation as SWE-agent's next-step template renders it, ending `(Open file: …)\n(Current
 * directory: …)\nbash-$`) and `ai` (the model's reply, a discussion followed by one command in a
 * ``` block).
 *
 * Mapping (one rollout per row):
 * - `system` → system step (`system_prompt`, else `text`); the first `user` turn → user step (the
 *   task instruction);
 * - `ai` → agent step: `message` = the reply as recorded; the command is read as SWE-agent's
 *   `ThoughtActionParser` reads it (SWE-agent `sweagent/tools/parsing.py`: the last top-level ```
 *   block, openings `^```(\S*)\s*\n`, closings a bare ``` line; the rest is the thought →
 *   `reasoning`, null when empty); the command is classified like a `.traj` action (sweAgent.ts
 *   `sweAgentAction`: `submit` → finish, `edit`/`create`/… → file_edit with the open file, else
 *   shell); a reply without a ``` block has no action;
 * - a `user` turn right after an agent step with an action → that action's observation (exit code
 *   null: SWE-agent writes none; `cwd` from its `(Current directory: …)` line, the open file from
 *   `(Open file: …)` for the next windowed edit); any other `user` turn (a format-error prompt) → a
 *   user step;
 * - outcome: `resolved` = `target` (recorded by the dataset's evaluation), `status` = `exit_status`
 *   (`submitted`, `exit_cost`, …); id and `task.id` = `instance_id` as recorded; `agent.model` =
 *   `model_name`; `metadata.generatedPatch`, the length of `eval_logs`, `cutoffDate`.
 * Bad rows follow rows.ts `loadRows` (left out, located issues in `input.issues`).
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { makeStep, unknownOutcome, type Rollout, type Step } from '../model';
import { firstRow, loadRows, rowSource, type RowRef } from './rows';
import { sweAgentAction } from './sweAgent';
import type { Detection, FormatLoader, LoadInput } from './types';
import { isObject } from './util';

const LABEL = 'SWE-agent trajectory rows (nebius/SWE-agent-trajectories)';

const TurnSchema = z.looseObject({
  role: z.string(),
  text: z.string().nullish(),
  system_prompt: z.string().nullish(),
  mask: z.boolean().nullish(),
  cutoff_date: z.string().nullish(),
});

const RowSchema = z.looseObject({
  instance_id: z.union([z.string(), z.number()]),
  model_name: z.string().nullish(),
  target: z.boolean().nullish(),
  trajectory: z.array(TurnSchema),
  exit_status: z.string().nullish(),
  generated_patch: z.string().nullish(),
  eval_logs: z.string().nullish(),
});

/** A reply split as SWE-agent's ThoughtActionParser splits it (module docs), or null without a ``` block. */
export function thoughtAction(text: string): { thought: string; action: string } | null {
  const re = /^```(\S*)\s*\n|^```\s*$/gm;
  const stack: RegExpExecArray[] = [];
  let last: [RegExpExecArray, RegExpExecArray] | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (stack.length && !m[1]) {
      const start = stack.pop() as RegExpExecArray;
      if (!stack.length) last = [start, m];
    } else if (m[1] !== undefined) {
      stack.push(m);
    }
  }
  if (!last) return null;
  const [start, end] = last;
  const thought = text.slice(0, start.index) + text.slice(end.index + end[0].length);
  return { thought, action: text.slice(start.index + start[0].length, end.index).replace(/\s+$/, '') };
}

/** The `(Open file: …)` and `(Current directory: …)` lines SWE-agent's templates end an observation with. */
function promptState(text: string): { openFile: string | null; cwd: string | null } {
  const open = /\(Open file: ([^)\n]*)\)\s*\n?\s*\(Current directory: ([^)\n]*)\)\s*(?:\n\s*bash-\$\s*)?$/.exec(text.trimEnd());
  if (!open) return { openFile: null, cwd: null };
  const f = open[1].trim();
  return { openFile: f === 'n/a' || f === '' ? null : f, cwd: open[2].trim() || null };
}

function rowRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  const row = doc.validate(RowSchema, LABEL, at);
  const steps: Step[] = [];
  let openFile: string | null = null;
  let cutoff: string | null = null;
  let workdir: string | null = null;
  /** The agent step whose action waits for its observation. */
  let waiting: Step | null = null;
  row.trajectory.forEach((t, i) => {
    const range = doc.rangeOf([...at, 'trajectory', i]);
    const role = t.role.toLowerCase();
    const text = t.text ?? '';
    if (t.cutoff_date) cutoff ??= t.cutoff_date;
    if (role === 'system') {
      steps.push(makeStep(steps.length, 'system', { sourceId: i, message: t.system_prompt ?? text, range }));
      waiting = null;
    } else if (role === 'ai' || role === 'assistant') {
      const parsed = thoughtAction(text);
      const thought = parsed ? parsed.thought.trim() : '';
      const step = makeStep(steps.length, 'agent', { sourceId: i, message: text, reasoning: thought === '' || thought === text.trim() ? null : thought, range });
      if (parsed && parsed.action.trim() !== '') {
        step.actions.push(sweAgentAction(parsed.action, null, openFile ? { open_file: openFile } : null));
      }
      steps.push(step);
      waiting = step.actions.length && step.actions[0].kind !== 'finish' ? step : null;
    } else if ((role === 'user' || role === 'tool') && waiting) {
      const state = promptState(text);
      if (state.openFile !== null || state.cwd !== null) openFile = state.openFile;
      workdir ??= state.cwd;
      waiting.observations.push({ callId: null, output: text, exitCode: null, truncated: false, cwd: state.cwd });
      waiting = null;
    } else {
      steps.push(makeStep(steps.length, role === 'user' ? 'user' : 'environment', { sourceId: i, message: text, range }));
      const state = promptState(text);
      if (state.cwd !== null) {
        openFile = state.openFile;
        workdir ??= state.cwd;
      }
      waiting = null;
    }
  });
  const outcome = unknownOutcome();
  if (typeof row.target === 'boolean') {
    outcome.resolved = row.target;
    outcome.source = 'target';
  }
  if (row.exit_status) {
    outcome.status = row.exit_status;
    outcome.source ??= 'exit_status';
  }
  const metadata: Record<string, unknown> = { layout: 'trajectory-rows' };
  if (row.exit_status) metadata.exitStatus = row.exit_status;
  if (typeof row.generated_patch === 'string') metadata.generatedPatch = row.generated_patch;
  if (typeof row.eval_logs === 'string') metadata.evalLogsChars = row.eval_logs.length;
  if (cutoff) metadata.cutoffDate = cutoff;
  const id = String(row.instance_id);
  return {
    id,
    format: 'swe-traj-rows',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id, instruction: steps.find((s) => s.role === 'user')?.message ?? null },
    agent: { name: 'SWE-agent', version: null, model: row.model_name ?? null },
    environment: { image: null, workdir },
    outcome,
    groupId: null,
    steps,
    metadata,
  };
}

/** True for a row of `trajectory[]{role, text}` turns (not a `.traj` file's `{action, observation}` entries). */
function looksLikeRow(v: unknown): boolean {
  if (!isObject(v) || !Array.isArray(v.trajectory)) return false;
  const t0 = v.trajectory[0];
  return isObject(t0) && typeof t0.role === 'string' && ('text' in t0 || 'system_prompt' in t0) && !('action' in t0);
}

/**
 * Loader for SWE-agent trajectory dataset rows (format `swe-traj-rows`, module docs). Detects a first
 * row with a `trajectory` list of `{role, text}` turns and one of `instance_id` / `exit_status` /
 * `target`. @throws RolloutLoadError when no row is valid (bad rows otherwise go to `input.issues`).
 */
export const sweTrajRowsLoader: FormatLoader = {
  id: 'swe-traj-rows',
  label: LABEL,
  detect(input): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    const { value, where } = firstRow(input);
    if (!looksLikeRow(value)) return { accept: false, reason: `${where} has no "trajectory" list of {role, text} turns` };
    const v = value as Record<string, unknown>;
    if (!('instance_id' in v || 'exit_status' in v || 'target' in v)) return { accept: false, reason: `${where} has a "trajectory" of turns but no "instance_id"/"exit_status"/"target"` };
    return { accept: true, confidence: 0.85 };
  },
  async load(input) {
    return loadRows(input, LABEL, (ref) => rowRollout(input, ref), { rowName: 'trajectory row' });
  },
};
