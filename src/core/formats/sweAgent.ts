/**
 * SWE-agent `.traj` loader (SWE-agent 1.x and the 0.7 layout).
 *
 * Source of the format: SWE-agent/SWE-agent `sweagent/types.py` (`TrajectoryStep`, `HistoryItem`,
 * `AgentInfo`) and `sweagent/agent/agents.py` (`DefaultAgent.get_trajectory_data`,
 * `save_trajectory`, `add_step_to_trajectory`, `add_step_to_history`; `RetryAgent.get_trajectory_data`).
 * A file is one JSON object:
 * `{trajectory: TrajectoryStep[], history: HistoryItem[], info: AgentInfo, replay_config: str(JSON)|dict|null, environment: str}`
 * (0.7 files have no `replay_config` and a JSON-*string* `state`).
 *
 * Mapping to the rollout model (one rollout per file):
 * - Leading steps: the `history` items before the first (non-demonstration) assistant message, with
 *   demonstrations (`is_demo`, `message_type: "demonstration"`) left out: the system prompt becomes a
 *   `system` step, the instance prompt (problem statement) a `user` step; their range is the history item.
 * - Then one `agent` step per `trajectory` entry, in order (requeried/failed attempts that SWE-agent
 *   records in the trajectory but not in the history are kept as steps too):
 *   `message` = `response` (raw LM text), `reasoning` = `reasoning_content` when recorded, else
 *   `thought` (null when it is empty or equal to the message);
 *   one action with `command` = `action` (exactly the string SWE-agent sent to the shell: its special
 *   commands are shell scripts inside the container), `kind` = `finish` for `submit`/`exit`/`exit_forfeit`,
 *   `file_edit` for editing commands (`edit`, `insert`, `append`, `create`, `str_replace_editor
 *   create|str_replace|insert|undo_edit`, `edit_file`), else `shell`; `tool`/`arguments`/`callId` come
 *   from the matching history assistant message's function-calling `tool_calls` when there is one
 *   (matched in order by equal `action`), else null; no action when `action` is empty (format error,
 *   autosubmission); one observation with `output` = `observation`, `exitCode` null (SWE-agent does
 *   not record one), `truncated` false (the trajectory keeps the full text; truncation happens only
 *   in the prompt); `durationSec` = `execution_time` (1.x); range = the trajectory entry.
 * - `state` (a dict in 1.x, a JSON string in 0.7) is parsed; per-step states (minus the bulky
 *   `diff` key) go to `metadata.stepStates` keyed by step index, the first `working_dir` is
 *   `environment.workdir`, and the open file is the `path` of windowed-editor `file_edit` actions.
 *   Note: 0.7 records the state *before* the action runs, 1.x the state *after* it.
 * - Rollout: `id`/`task.id` = `replay_config.problem_statement.id`, else the file name without
 *   `.traj`; `task.instruction` = `replay_config.problem_statement.text`, else the first user
 *   message of the history (the rendered instance prompt); `environment.image` =
 *   `replay_config.env.deployment.image`; `agent.model` = `replay_config.agent.model.name`;
 *   `agent.version` = `info.swe_agent_version`; `outcome.status` = `info.exit_status`, reward and
 *   resolved null (evaluation lives outside the file).
 * - History-only files (SWE-agent's `trajectories/demonstrations/*.traj`, which hold only `history`):
 *   after the leading steps, each assistant history item is an agent step (`message` = content,
 *   `reasoning` = `thought`, the action as above) and the following `tool`/`user` items are its
 *   observations as the model saw them (rendered templates, including SWE-agent's prompt suffix);
 *   range = the history item; `metadata.historyOnly` = true.
 * - `schemaVersion`: SWE-agent files declare none, so the layout is derived: `"1.x"` when the file has a
 *   `replay_config` key or any step has `execution_time`; `"0.7"` when a step's `state` is a string;
 *   otherwise null.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { makeStep, type Action, type Rollout, type Step } from '../model';
import { parseArguments } from './toolCalls';
import type { FormatLoader, LoadInput } from './types';
import { contentText, getIn, isObject, maybeJson, num, singleDoc, str } from './util';

const FORMAT = 'SWE-agent .traj';

const ToolCallSchema = z.looseObject({
  id: z.string().nullable().optional(),
  function: z
    .looseObject({
      name: z.string().nullable().optional(),
      arguments: z.unknown().optional(),
    })
    .nullable()
    .optional(),
});

/** One `trajectory` entry (`sweagent/types.py` `TrajectoryStep`); unknown keys are kept. */
export const SweAgentTrajectoryStep = z.looseObject({
  action: z.string(),
  observation: z.string(),
  response: z.string().optional(),
  thought: z.string().optional(),
  state: z.union([z.string(), z.record(z.string(), z.unknown())]).nullable().optional(),
  execution_time: z.number().nullable().optional(),
  reasoning_content: z.string().nullable().optional(),
});

/** One `history` item (`sweagent/types.py` `HistoryItem`); unknown keys are kept. */
export const SweAgentHistoryItem = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(z.unknown())]).nullable().optional(),
  message_type: z.string().nullable().optional(),
  agent: z.string().nullable().optional(),
  is_demo: z.boolean().nullable().optional(),
  thought: z.string().nullable().optional(),
  action: z.string().nullable().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  tool_call_ids: z.array(z.string()).nullable().optional(),
});

/** The `.traj` root object. `trajectory` is required; the rest is optional but typed when present. */
export const SweAgentTraj = z.looseObject({
  trajectory: z.array(SweAgentTrajectoryStep).optional(),
  history: z.array(SweAgentHistoryItem).optional(),
  info: z
    .looseObject({
      exit_status: z.union([z.string(), z.number()]).nullable().optional(),
      submission: z.unknown().optional(),
      model_stats: z.record(z.string(), z.unknown()).nullable().optional(),
      swe_agent_version: z.string().nullable().optional(),
      swe_agent_hash: z.string().nullable().optional(),
      swe_rex_version: z.string().nullable().optional(),
    })
    .optional(),
  replay_config: z.union([z.string(), z.record(z.string(), z.unknown())]).nullable().optional(),
  environment: z.string().nullable().optional(),
  attempts: z.array(z.unknown()).optional(),
});
type SweAgentTraj = z.infer<typeof SweAgentTraj>;
type HistoryItem = z.infer<typeof SweAgentHistoryItem>;
type TrajStep = z.infer<typeof SweAgentTrajectoryStep>;

/** Splits the first line of a command into shell words (single/double quotes, backslash escapes). */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/**
 * Sub-commands of SWE-agent's own `str_replace_editor` that write; the rest (`view`) run as shell.
 * SWE-agent's editor only has these, so the wider toolCalls.ts EDITING_SUBCOMMANDS is not used.
 */
const EDITOR_WRITE_SUBCOMMANDS = new Set(['create', 'str_replace', 'insert', 'undo_edit']);
const WINDOWED_EDIT_COMMANDS = new Set(['edit', 'insert', 'append']);

/** Parsed SWE-agent `state`: an object, or null when absent or not a JSON object. */
function parseState(state: TrajStep['state']): Record<string, unknown> | null {
  const v = typeof state === 'string' ? maybeJson(state.trim()) : state;
  return isObject(v) ? v : null;
}

/** The open file named by a state (`open_file`), null for SWE-agent's `"n/a"`. */
function openFileOf(state: Record<string, unknown> | null): string | null {
  const f = state ? str(state.open_file) : null;
  return f && f !== 'n/a' && f !== 'None' ? f : null;
}

/** Function-calling details found in the history for one trajectory entry. */
interface CallInfo {
  tool: string | null;
  arguments: unknown;
  callId: string | null;
}

function callInfoOf(item: HistoryItem | undefined): CallInfo | null {
  const call = item?.tool_calls?.[0];
  if (!call) return null;
  return {
    tool: call.function?.name ?? null,
    arguments: parseArguments(call.function?.arguments),
    callId: call.id ?? null,
  };
}

/**
 * Classifies one SWE-agent action string (see the module docs for the rules).
 * @param action the trajectory entry's `action` (non-empty)
 * @param call function-calling details from the history, when known
 * @param state the entry's parsed state (for the open file of windowed edits)
 */
export function sweAgentAction(action: string, call: CallInfo | null, state: Record<string, unknown> | null): Action {
  const trimmed = action.trim();
  const words = shellWords(trimmed.split('\n')[0] ?? '');
  const cmd = call?.tool ?? words[0] ?? '';
  const args = isObject(call?.arguments) ? call.arguments : null;
  const base = { command: action, tool: call?.tool ?? null, callId: call?.callId ?? null } as const;
  const withArgs = call && call.arguments !== undefined ? { arguments: call.arguments } : {};
  if (trimmed === 'submit' || trimmed === 'exit' || cmd === 'submit' || cmd === 'exit_forfeit') {
    return { kind: 'finish', ...base, ...withArgs };
  }
  if (cmd === 'str_replace_editor' || cmd === 'edit_file') {
    const sub = args ? str(args.command) : words[1] ?? null;
    const p = args ? str(args.path) : words[2] ?? null;
    if (cmd === 'edit_file' || (sub !== null && EDITOR_WRITE_SUBCOMMANDS.has(sub))) {
      return { kind: 'file_edit', ...base, ...withArgs, path: p ?? null };
    }
    return { kind: 'shell', ...base, ...withArgs };
  }
  if (cmd === 'create') {
    const p = args ? str(args.filename) ?? str(args.path) : words[1] ?? null;
    return { kind: 'file_edit', ...base, ...withArgs, path: p ?? null };
  }
  if (WINDOWED_EDIT_COMMANDS.has(cmd)) {
    return { kind: 'file_edit', ...base, ...withArgs, path: openFileOf(state) };
  }
  return { kind: 'shell', ...base, ...withArgs };
}

function fileStem(p: string): string {
  return path.basename(p).replace(/\.traj(\.json)?$/i, '').replace(/\.json$/i, '');
}

/** Model name from a replay config's agent section (DefaultAgent, or RetryAgent when all configs agree). */
function modelName(agent: unknown): string | null {
  const direct = str(getIn(agent, 'model', 'name'));
  if (direct) return direct;
  const configs = getIn(agent, 'agent_configs');
  if (Array.isArray(configs) && configs.length) {
    const names = new Set(configs.map((c) => str(getIn(c, 'model', 'name'))));
    if (names.size === 1) return [...names][0] ?? null;
  }
  return null;
}

function isDemo(h: HistoryItem): boolean {
  return h.is_demo === true || h.message_type === 'demonstration';
}

/** Derives the layout version (see the module docs). */
function layoutVersion(raw: Record<string, unknown>, traj: SweAgentTraj): string | null {
  const entries = traj.trajectory ?? [];
  if ('replay_config' in raw || entries.some((t) => typeof t.execution_time === 'number')) return '1.x';
  if (entries.some((t) => typeof t.state === 'string')) return '0.7';
  return null;
}

/** Turns a validated `.traj` into a rollout. */
function toRollout(input: LoadInput, raw: Record<string, unknown>, traj: SweAgentTraj): Rollout {
  const doc = input.doc!;
  const history = traj.history ?? [];
  const metadata: Record<string, unknown> = {};

  let replay: unknown = traj.replay_config;
  if (typeof replay === 'string') {
    replay = maybeJson(replay);
    if (replay === undefined) metadata.replayConfigError = 'replay_config is a string that is not JSON';
  }
  const problem = getIn(replay, 'problem_statement');
  const recordedTask = str(getIn(problem, 'id'));
  // Without `problem_statement.id` the file name (`<instance_id>.traj`) stands in: derived, not recorded.
  const taskId = recordedTask ?? fileStem(input.path);

  const steps: Step[] = [];
  // Leading system / instance prompt steps from the history.
  let firstUser: string | null = null;
  let k = 0;
  for (; k < history.length; k++) {
    const h = history[k];
    if (isDemo(h)) continue;
    if (h.role === 'assistant') break;
    const role = h.role === 'system' ? 'system' : h.role === 'user' ? 'user' : 'environment';
    const text = contentText(h.content);
    if (role === 'user' && firstUser === null) firstUser = text;
    steps.push(makeStep(steps.length, role, { message: text, range: doc.rangeOf(['history', k]) }));
  }

  // Assistant history items in order, to find function-calling details for each trajectory entry.
  const assistants = history.filter((h) => h.role === 'assistant' && !isDemo(h) && typeof h.action === 'string');
  let ap = 0;
  const stepStates: Record<string, unknown> = {};
  let workdir: string | null = null;

  (traj.trajectory ?? []).forEach((t, i) => {
    let call: CallInfo | null = null;
    if (t.action.trim() !== '') {
      for (let j = ap; j < assistants.length; j++) {
        if (assistants[j].action === t.action) {
          call = callInfoOf(assistants[j]);
          ap = j + 1;
          break;
        }
      }
    }
    const state = parseState(t.state);
    const index = steps.length;
    if (state) {
      const { diff: _diff, ...rest } = state;
      stepStates[String(index)] = rest;
      if (workdir === null) workdir = str(state.working_dir);
    }
    const message = t.response ?? '';
    const reasoningSrc = t.reasoning_content && t.reasoning_content.trim() !== '' ? t.reasoning_content : t.thought ?? '';
    const reasoning = reasoningSrc.trim() === '' || reasoningSrc.trim() === message.trim() ? null : reasoningSrc;
    const hasAction = t.action.trim() !== '';
    steps.push(
      makeStep(index, 'agent', {
        message,
        reasoning,
        actions: hasAction ? [sweAgentAction(t.action, call, state)] : [],
        observations:
          hasAction || t.observation !== ''
            ? [{ callId: call?.callId ?? null, output: t.observation, exitCode: null, truncated: false,
                 // 1.x records the state after the action (its cwd is the command's); 0.7's string state is from before.
                 cwd: typeof t.state === 'string' ? null : str(state?.working_dir) }]
            : [],
        durationSec: num(t.execution_time),
        range: doc.rangeOf(['trajectory', i]),
      }),
    );
  });
  if (Object.keys(stepStates).length) metadata.stepStates = stepStates;
  if (!traj.trajectory) {
    // History-only file (SWE-agent demonstrations): the agent steps come from the history itself.
    metadata.historyOnly = true;
    let cur: Step | null = null;
    for (let j = k; j < history.length; j++) {
      const h = history[j];
      if (isDemo(h)) continue;
      const range = doc.rangeOf(['history', j]);
      const text = contentText(h.content);
      if (h.role === 'assistant') {
        const action = h.action ?? '';
        const thought = h.thought ?? '';
        cur = makeStep(steps.length, 'agent', {
          message: text,
          reasoning: thought.trim() === '' || thought.trim() === text.trim() ? null : thought,
          actions: action.trim() !== '' ? [sweAgentAction(action, callInfoOf(h), null)] : [],
          range,
        });
        steps.push(cur);
      } else if (cur && (h.role === 'tool' || h.role === 'user')) {
        cur.observations.push({ callId: h.tool_call_ids?.[0] ?? null, output: text, exitCode: null, truncated: false });
      } else {
        steps.push(makeStep(steps.length, h.role === 'system' ? 'system' : h.role === 'user' ? 'user' : 'environment', { message: text, range }));
      }
    }
  }

  const info = traj.info ?? {};
  const status = info.exit_status === null || info.exit_status === undefined ? null : String(info.exit_status);
  if (info.model_stats) metadata.modelStats = info.model_stats;
  if (info.submission !== undefined && info.submission !== null) {
    metadata.submissionChars = typeof info.submission === 'string' ? info.submission.length : JSON.stringify(info.submission).length;
  }
  if (traj.environment) metadata.environmentName = traj.environment;
  if (info.swe_agent_hash) metadata.sweAgentHash = info.swe_agent_hash;
  if (info.swe_rex_version) metadata.sweRexVersion = info.swe_rex_version;
  if (traj.attempts) metadata.attempts = traj.attempts.length;
  const best = num((info as Record<string, unknown>).best_attempt_idx);
  if (best !== null) metadata.bestAttemptIdx = best;
  metadata.historyItems = history.length;

  return {
    ...(recordedTask === null ? { derived: ['task.id'] } : {}),
    id: taskId,
    format: 'swe-agent',
    schemaVersion: layoutVersion(raw, traj),
    source: { path: input.path, range: null, line: null },
    task: { id: taskId, instruction: str(getIn(problem, 'text')) ?? firstUser },
    agent: { name: 'SWE-agent', version: info.swe_agent_version ?? null, model: modelName(getIn(replay, 'agent')) },
    environment: { image: str(getIn(replay, 'env', 'deployment', 'image')), workdir },
    outcome: { reward: null, rewards: null, resolved: null, status, source: status !== null ? 'info.exit_status' : null },
    groupId: null,
    steps,
    metadata,
  };
}

/**
 * True for a SWE-agent history list (demonstration files have only `history`): items with a string
 * `role` and SWE-agent's `agent` or `message_type` keys, at least one of them an assistant action.
 */
function isHistoryOnly(history: unknown[]): boolean {
  return (
    history.length > 0 &&
    history.every((h) => isObject(h) && typeof h.role === 'string' && ('agent' in h || 'message_type' in h)) &&
    history.some((h) => isObject(h) && h.role === 'assistant' && typeof h.action === 'string')
  );
}

/** Loader for SWE-agent `.traj` files (format id `swe-agent`). */
export const sweAgentLoader: FormatLoader = {
  id: 'swe-agent',
  label: 'SWE-agent trajectory (.traj)',
  /**
   * Accepts a JSON object with a `trajectory` array whose entries carry both `action` and
   * `observation`, plus `history` and/or `info`, and no `trajectory_format` (that is mini-swe-agent);
   * or (confidence 0.6) a history-only demonstration file: no `trajectory`, a SWE-agent `history`.
   */
  detect(input) {
    const v = input.doc?.value;
    if (!isObject(v)) return { accept: false, reason: 'not a JSON object' };
    if ('trajectory_format' in v) return { accept: false, reason: 'has trajectory_format (mini-swe-agent)' };
    const hasHistory = Array.isArray(v.history);
    if (!('trajectory' in v) && hasHistory && isHistoryOnly(v.history as unknown[])) return { accept: true, confidence: 0.6 };
    if (!Array.isArray(v.trajectory)) return { accept: false, reason: 'no "trajectory" array (and no SWE-agent history)' };
    const hasInfo = isObject(v.info);
    if (!hasHistory && !hasInfo) return { accept: false, reason: 'no "history" or "info" next to "trajectory"' };
    const first = v.trajectory[0];
    if (first === undefined) {
      return hasHistory && hasInfo ? { accept: true, confidence: 0.6 } : { accept: false, reason: 'empty "trajectory" and no history+info' };
    }
    if (!isObject(first) || !('action' in first) || !('observation' in first)) {
      return { accept: false, reason: 'trajectory entries lack "action" and "observation"' };
    }
    return { accept: true, confidence: hasHistory && hasInfo ? 0.9 : 0.8 };
  },
  /** Reads the one rollout of a `.traj` file. Throws RolloutLoadError with located issues. */
  async load(input) {
    const doc = singleDoc(input, FORMAT);
    const traj = doc.validate(SweAgentTraj, FORMAT);
    return [toRollout(input, doc.value as Record<string, unknown>, traj)];
  },
};
