/**
 * rLLM episodes: one of the RL rollout dump loaders, on the conversation mapper of
 * rlConversation.ts (whose module docs hold the mapping decisions these loaders share).
 *
 * `rllm-episode` — rLLM episodes (`rllm-org/rllm` `rllm/agents/agent.py` `Episode.to_dict()`:
 *    `{id:"task:rollout", task, termination_reason, is_correct, trajectories:[{uid, name, steps[{
 *    chat_completions, observation, thought, action, model_response, reward, done}], reward}]}`, and
 *    the per-episode file of `rllm/utils/episode_logger.py` `EpisodeLogger.log_episode`, which writes
 *    `episode_id`, `training_step`, `epoch`, `task_hash` and the same trajectories without token ids).
 */
import { z } from 'zod';
import { unknownOutcome, type Action, type Rollout } from '../model';
import { agentText, Conversation, fallbackId, firstUserText, rowObject } from './rlConversation';
import { firstRow, loadRows, rowSource, type RowRef } from './rows';
import { exitCodeOf, textExitCode } from './textToolCalls';
import { toolCallAction } from './toolCalls';
import type { Detection, FormatLoader, LoadInput } from './types';
import { contentText, isObject, resolvedFromReward, str } from './util';

const RLLM_LABEL = 'rLLM episode';

const RllmStepSchema = z.looseObject({
  chat_completions: z.array(z.unknown()).nullish(),
  observation: z.unknown().optional(),
  thought: z.string().nullish(),
  action: z.unknown().optional(),
  model_response: z.string().nullish(),
  reward: z.number().nullish(),
  done: z.boolean().nullish(),
});
type RllmStep = z.infer<typeof RllmStepSchema>;
const RllmTrajectorySchema = z.looseObject({
  uid: z.string().nullish(),
  name: z.string().nullish(),
  steps: z.array(RllmStepSchema),
  reward: z.number().nullish(),
});
const RllmEpisodeSchema = z.looseObject({
  id: z.string().nullish(),
  episode_id: z.string().nullish(),
  task: z.unknown().optional(),
  task_hash: z.string().nullish(),
  termination_reason: z.string().nullish(),
  is_correct: z.boolean().nullish(),
  /** A list (`Episode.to_dict()`) or an object keyed by trajectory name; validated apart for precise pointers. */
  trajectories: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]),
  metrics: z.unknown().optional(),
  training_step: z.number().nullish(),
  epoch: z.number().nullish(),
});

/** Text of an rLLM observation / task value: a string as is, else JSON. */
function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  return JSON.stringify(v);
}

/** The task's instruction: a string task, or its `question`/`problem`/`instruction`/`prompt` string. */
function rllmInstruction(task: unknown): string | null {
  if (typeof task === 'string') return task;
  if (!isObject(task)) return null;
  for (const k of ['question', 'problem', 'instruction', 'prompt', 'query']) if (typeof task[k] === 'string') return task[k] as string;
  return null;
}

/** Actions of an rLLM step's `action`: ToolCall dicts (`{name, arguments}`), OpenAI tool calls, or a raw value. */
function rllmActions(action: unknown): Action[] {
  if (action === null || action === undefined || action === '') return [];
  const one = (a: unknown): Action | null => {
    if (!isObject(a)) return null;
    if (isObject(a.function) && typeof a.function.name === 'string') return toolCallAction(a.function.name, a.function.arguments, str(a.id));
    if (typeof a.name === 'string' && 'arguments' in a) return toolCallAction(a.name, a.arguments ?? a.arguments_raw, str(a.id));
    return null;
  };
  const list = Array.isArray(action) ? action.map(one) : [one(action)];
  if (list.length && list.every((a) => a !== null)) return list as Action[];
  // Any other action (an answer string, an env action like "Up"): kept as recorded, kind unknown → tool.
  return [{ kind: 'tool', command: null, tool: null, arguments: action, callId: null }];
}

function rllmEpisodeRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc, at } = ref;
  rowObject(ref, RLLM_LABEL, 'an rLLM episode object');
  const ep = doc.validate(RllmEpisodeSchema, RLLM_LABEL, at);
  const trajs = Array.isArray(ep.trajectories)
    ? doc.validate(z.array(RllmTrajectorySchema), RLLM_LABEL, [...at, 'trajectories'])
    : doc.validate(z.record(z.string(), RllmTrajectorySchema), RLLM_LABEL, [...at, 'trajectories']);
  const trajEntries: [string | number, z.infer<typeof RllmTrajectorySchema>][] = Array.isArray(trajs) ? trajs.map((t, i) => [i, t]) : Object.entries(trajs);
  const conv = new Conversation();
  const stepRewards: { stepIndex: number; trajectory: string; reward: number | null; done: boolean | null }[] = [];
  for (const [key, traj] of trajEntries) {
    const name = traj.name ?? String(key);
    traj.steps.forEach((s: RllmStep, k) => {
      const range = doc.rangeOf([...at, 'trajectories', key, 'steps', k]);
      const cc = (s.chat_completions ?? []).filter(isObject);
      const obs = s.observation;
      const hasObs = obs !== null && obs !== undefined && obs !== '';
      if (k === 0) {
        if (hasObs) conv.add('user', { sourceId: `${name}/0/observation`, message: valueText(obs), range });
        else {
          for (const m of cc) {
            if (m.role === 'assistant') break;
            conv.add(m.role === 'system' ? 'system' : 'user', { sourceId: `${name}/0/prompt`, message: contentText(m.content), range });
          }
        }
      } else if (hasObs) {
        const prev = conv.lastAgent();
        const text = valueText(obs);
        if (prev) prev.observations.push({ callId: null, output: text, ...textExitCode(exitCodeOf(text)), truncated: false });
        else conv.add('environment', { sourceId: `${name}/${k}/observation`, message: text, range });
      }
      const lastMsg = cc[cc.length - 1];
      const fromChat = lastMsg && lastMsg.role === 'assistant' ? lastMsg : null;
      const response = s.model_response || (fromChat ? contentText(fromChat.content) : '');
      const explicit = s.thought || (fromChat ? (str(fromChat.reasoning) ?? str(fromChat.reasoning_content)) : null);
      const { message, reasoning } = agentText(response, [explicit]);
      const step = conv.add('agent', { sourceId: `${name}/${k}`, message, reasoning, range });
      let actions = rllmActions(s.action);
      if (actions.length === 0 && fromChat && Array.isArray(fromChat.tool_calls)) actions = rllmActions(fromChat.tool_calls);
      step.actions.push(...actions);
      stepRewards.push({ stepIndex: step.index, trajectory: name, reward: s.reward ?? null, done: s.done ?? null });
    });
  }
  const id = ep.id ?? ep.episode_id ?? null;
  // rLLM names episodes `<task>:<rollout>`: a task read out of the id is derived.
  const taskId = id && id.includes(':') ? id.slice(0, id.lastIndexOf(':')) : null;
  const derived: string[] = taskId !== null ? ['task.id'] : [];
  const outcome = unknownOutcome();
  const named = trajEntries.filter(([, t]) => typeof t.reward === 'number').map(([k, t]) => [t.name ?? String(k), t.reward as number] as const);
  if (named.length === 1 || (named.length > 1 && named.every(([, r]) => r === named[0][1]))) outcome.reward = named[0][1];
  if (named.length > 1) {
    const rewards: Record<string, number> = {};
    named.forEach(([n, r], i) => (rewards[n in rewards ? `${n}#${i}` : n] = r));
    outcome.rewards = rewards;
  }
  outcome.resolved = typeof ep.is_correct === 'boolean' ? ep.is_correct : resolvedFromReward(outcome.reward);
  if (typeof ep.is_correct !== 'boolean' && outcome.resolved !== null) derived.push('outcome.resolved');
  outcome.status = ep.termination_reason ?? null;
  outcome.source = typeof ep.is_correct === 'boolean' ? 'is_correct' : outcome.reward !== null ? 'trajectories[].reward' : null;
  const metadata: Record<string, unknown> = {
    trajectories: trajEntries.map(([k, t]) => ({ name: t.name ?? String(k), uid: t.uid ?? null, steps: t.steps.length, reward: t.reward ?? null })),
    stepRewards,
  };
  if (ep.metrics !== undefined && ep.metrics !== null) metadata.metrics = ep.metrics;
  if (ep.training_step != null) metadata.trainingStep = ep.training_step;
  if (ep.epoch != null) metadata.epoch = ep.epoch;
  if (ep.task_hash) metadata.taskHash = ep.task_hash;
  const names = [...new Set(trajEntries.map(([k, t]) => t.name ?? String(k)))];
  return {
    ...(derived.length ? { derived } : {}),
    id: id ?? fallbackId(input, ref),
    format: 'rllm-episode',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id: taskId ?? ep.task_hash ?? null, instruction: rllmInstruction(ep.task) ?? firstUserText(conv.steps) },
    agent: { name: names.length === 1 ? names[0] : null, version: null, model: null },
    environment: { image: null, workdir: null },
    outcome,
    groupId: taskId ?? ep.task_hash ?? null,
    steps: conv.steps,
    metadata,
  };
}

/**
 * rLLM episodes (module docs above): `Episode.to_dict()` or an `EpisodeLogger` episode file, one
 * JSON object per file, JSONL of episodes, or a JSON array.
 *
 * Mapping: every trajectory's steps in order (multi-agent episodes: trajectories one after another;
 * `sourceId` = `<trajectory name>/<step>`). An rLLM step is one model call: its `observation` (the
 * environment's output before the call) → on the first step a user step, later the observation of
 * the previous agent step (the output of its action); when the first step has no observation, the
 * system/user messages of its `chat_completions` before the first assistant message are the prompt.
 * The agent step: message = `model_response` (else the last assistant message of `chat_completions`),
 * reasoning = `thought` (else that message's `reasoning`, else a `<think>` block); actions from
 * `action`: ToolCall dicts `{name, arguments}` / OpenAI tool calls → tool actions (shell rules in the
 * rlConversation.ts module docs), any other non-empty action (an answer, an environment move) → one `tool` action with
 * `tool: null` and the action as `arguments`. Step rewards and `done` → `metadata.stepRewards`.
 * Outcome: resolved = `is_correct`; reward = the trajectory reward when one trajectory has one (or
 * all agree), rewards = by trajectory name when several; status = `termination_reason`. Id = `id`
 * (`<task_id>:<rollout_idx>`) / `episode_id`; groupId = task id = the part before the last `:`
 * (rLLM's GRPO groups are `task:role`, so every rollout of a task shares it), else `task_hash`.
 * @throws RolloutLoadError when no episode is valid (bad rows otherwise go to `input.issues`).
 */
export const rllmEpisodeLoader: FormatLoader = {
  id: 'rllm-episode',
  label: RLLM_LABEL,
  detect(input): Detection {
    if (input.bytes) return { accept: false, reason: 'a binary archive' };
    const { value, where } = firstRow(input);
    if (!isObject(value)) return { accept: false, reason: `${where} is not a JSON object` };
    const trajs = value.trajectories;
    if (!(Array.isArray(trajs) || isObject(trajs))) return { accept: false, reason: `${where} has no "trajectories"` };
    if (!('termination_reason' in value || 'is_correct' in value)) return { accept: false, reason: `${where} has "trajectories" but no "termination_reason"/"is_correct"` };
    return { accept: true, confidence: 'id' in value || 'episode_id' in value ? 0.9 : 0.7 };
  },
  async load(input) {
    return loadRows(input, RLLM_LABEL, (ref) => rllmEpisodeRollout(input, ref));
  },
};
