/**
 * mini-swe-agent `.traj.json` loader (`trajectory_format` `mini-swe-agent-1` and `mini-swe-agent-1.1`).
 *
 * Source of the format: SWE-agent/mini-swe-agent `src/minisweagent/agents/default.py`
 * (`DefaultAgent.run/step/serialize/save`; v1: `add_message`, `parse_action`, `has_finished`),
 * `src/minisweagent/models/litellm_model.py` and `models/utils/actions_toolcall.py`,
 * `actions_toolcall_response.py`, `actions_text.py` (v2 message shapes), `environments/local.py`
 * (`Submitted` exit message), `docs/usage/output_files.md`, `docs/advanced/v2_migration.md`.
 * A file is one JSON object `{info, messages, trajectory_format}` (older files may lack
 * `trajectory_format`; they are recognised by `info.mini_version`); the oldest files are the bare
 * `messages` list itself (see bareMessageList), read the same way with no info.
 *
 * Mapping (one rollout per file; both versions go through the same walk over `messages`):
 * - `system` and `user` messages before the first model message become `system` / `user` steps; the
 *   first user message (the rendered instance prompt) is `task.instruction`.
 * - Each model message (`role: "assistant"`, or a Responses-API object `object: "response"`) is
 *   one `agent` step; range = that message. `message` = its text (the raw LM reply); `reasoning` =
 *   `reasoning_content` / Responses reasoning summaries when recorded, else, for text replies with a
 *   command block, the text before the block with its `THOUGHT:` prefix removed (null when empty or
 *   equal to the message).
 *   Actions: v1.1 `extra.actions[{command, tool_call_id}]` (tool name and arguments taken from the
 *   message's `tool_calls` / `function_call` items with the same id); without `extra.actions`, the
 *   `tool_calls`; otherwise the single command block found with the run's `action_regex` (from
 *   `info.config`, used only when it is a fence regex like the defaults, else named in
 *   `metadata.actionRegexIgnored`; default ```` ```bash ```` / ```` ```mswea_bash_command ````), as mini-swe-agent
 *   itself parses it (zero or several blocks = format error = no action). A command that echoes
 *   `MINI_SWE_AGENT_FINAL_OUTPUT` or `COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` is a `finish` action,
 *   every other command a `shell` action.
 * - Messages after a model message (`role: "tool"`, Responses `function_call_output`, `role: "user"`)
 *   are observations of that step, linked by `tool_call_id` when there is one. Exit code =
 *   `extra.returncode`, else the `<returncode>N</returncode>` in the text, else null. Output =
 *   `extra.raw_output` (the full command output) when recorded and no exception is attached, else the
 *   text inside `<output>…</output>` when the message has the returncode/output template (the text
 *   after `<returncode>` when there is no `<output>` block, e.g. the long-output warning), else the
 *   whole text; `truncated` = the text used carries mini-swe-agent's `<output_head>`/`<elided_chars>`
 *   cut. User messages that are not command results (format-error feedback, the v1 submission text)
 *   are observations too, with a null exit code.
 * - A v1.1 format-error message that carries the rejected reply (`extra.model_response`) becomes an
 *   agent step without actions whose observation is the feedback.
 * - The exit message (`role: "exit"`, or any message with `extra.exit_status`): its text (the
 *   submission) is the observation of the preceding `finish` action when that has none yet; otherwise
 *   it is a `system` step.
 * - Time: `extra.timestamp` (unix seconds) as ISO-8601 (v1 has none; its `extra.response.created`, the
 *   provider's response time, is used instead when present); `durationSec` = last observation
 *   timestamp − model message timestamp (v1.1). Tokens from `extra.response.usage` (or the Responses
 *   object's `usage`), cost from `extra.cost`.
 * - Rollout: `task.id` = root `instance_id`, else `<instance_id>` from a `<instance_id>.traj.json` file
 *   name, else null; `id` = task id, else `<path>#0`; `agent.model` = `info.config.model.model_name`;
 *   `environment.image` / `workdir` = `info.config.environment.image` / `cwd` when recorded;
 *   `outcome.status` = `info.exit_status` (reward/resolved null); `schemaVersion` = `trajectory_format`.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { makeStep, type Action, type Observation, type Rollout, type Step, type TokenCounts } from '../model';
import { parseArguments } from './toolCalls';
import type { FormatLoader, LoadInput } from './types';
import { contentText, getIn, isObject, num, singleDoc, str } from './util';

const FORMAT = 'mini-swe-agent .traj.json';

const ToolCallSchema = z.looseObject({
  id: z.string().nullable().optional(),
  function: z
    .looseObject({ name: z.string().nullable().optional(), arguments: z.unknown().optional() })
    .nullable()
    .optional(),
});

/** `extra` of a message (fields mini-swe-agent writes; others kept). */
export const MiniExtra = z.looseObject({
  actions: z
    .array(z.looseObject({ command: z.string(), tool_call_id: z.string().nullable().optional() }))
    .nullable()
    .optional(),
  returncode: z.number().int().nullable().optional(),
  raw_output: z.string().nullable().optional(),
  exception_info: z.string().nullable().optional(),
  timestamp: z.number().nullable().optional(),
  cost: z.number().nullable().optional(),
  exit_status: z.string().nullable().optional(),
  interrupt_type: z.string().nullable().optional(),
  model_response: z.string().nullable().optional(),
});

/** One entry of `messages`: a chat message, a Responses-API object or output item, plus `extra`. */
export const MiniMessage = z.looseObject({
  role: z.string().optional(),
  content: z.union([z.string(), z.array(z.unknown())]).nullable().optional(),
  extra: MiniExtra.nullable().optional(),
  tool_call_id: z.string().nullable().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  reasoning_content: z.string().nullable().optional(),
  type: z.string().optional(),
  object: z.string().optional(),
  call_id: z.string().nullable().optional(),
});

/** The `.traj.json` root. */
export const MiniTraj = z.looseObject({
  trajectory_format: z.string().optional(),
  instance_id: z.string().optional(),
  info: z
    .looseObject({
      exit_status: z.string().nullable().optional(),
      submission: z.unknown().optional(),
      model_stats: z.record(z.string(), z.unknown()).nullable().optional(),
      mini_version: z.string().nullable().optional(),
      config: z.record(z.string(), z.unknown()).nullable().optional(),
    })
    .optional(),
  messages: z.array(MiniMessage),
});
type MiniMessage = z.infer<typeof MiniMessage>;
type MiniTraj = z.infer<typeof MiniTraj>;

const FINISH = /(^|[\s;&|(])echo\s+["']?(MINI_SWE_AGENT_FINAL_OUTPUT|COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT)\b/m;
const DEFAULT_ACTION_REGEX = /```(?:bash|mswea_bash_command)\s*\n(.*?)\n```/gs;

/** True for a mini-swe-agent submit command (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`, v1 `echo MINI_SWE_AGENT_FINAL_OUTPUT`). */
export function isMiniFinishCommand(command: string): boolean {
  return FINISH.test(command);
}

/**
 * Shape of the fence regexes mini-swe-agent runs use: ```` ```<lang>\s*\n(.*?)\n``` ```` with a word
 * or a `(?:a|b)` list of words as the language. The pattern comes from the file and JavaScript cannot
 * time-limit a regex, so any other pattern (`^(a+)+$` backtracks exponentially) is not run.
 */
const FENCE_REGEX_SHAPE = /^```(?:\w+|\(\?:\w+(?:\|\w+)*\))\\s\*\\n\(\.\*\?\)\\n```$/;

/**
 * The run's action regex (`info.config.agent.action_regex` v1, `info.config.model.action_regex` v2)
 * as a JS regex when it has the fence shape; else the defaults, with the pattern in `ignored`.
 */
function actionRegex(config: unknown): { re: RegExp; ignored: string | null } {
  const src = str(getIn(config, 'model', 'action_regex')) ?? str(getIn(config, 'agent', 'action_regex'));
  if (src && FENCE_REGEX_SHAPE.test(src)) return { re: new RegExp(src, 'gs'), ignored: null };
  return { re: DEFAULT_ACTION_REGEX, ignored: src };
}

/** Unix seconds → ISO-8601, or null. */
function isoFromUnix(v: unknown): string | null {
  const n = num(v);
  if (n === null) return null;
  const d = new Date(n * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** Token counts from an OpenAI chat (`prompt_tokens`…) or Responses (`input_tokens`…) usage object. */
function tokensOf(usage: unknown): TokenCounts | null {
  if (!isObject(usage)) return null;
  const prompt = num(usage.prompt_tokens) ?? num(usage.input_tokens);
  const completion = num(usage.completion_tokens) ?? num(usage.output_tokens);
  const cached =
    num(getIn(usage, 'prompt_tokens_details', 'cached_tokens')) ??
    num(getIn(usage, 'input_tokens_details', 'cached_tokens')) ??
    num(usage.cache_read_input_tokens);
  if (prompt === null && completion === null && cached === null) return null;
  return { prompt, completion, cached };
}

/** Text and reasoning of a Responses-API object (`object: "response"`, `output[]` items). */
function responseObjectText(m: MiniMessage): { text: string; reasoning: string | null } {
  const out = (m as Record<string, unknown>).output;
  const texts: string[] = [];
  const reasons: string[] = [];
  if (Array.isArray(out)) {
    for (const item of out) {
      if (!isObject(item)) continue;
      if (item.type === 'message') texts.push(contentText(item.content));
      else if (item.type === 'reasoning') {
        const summary = item.summary;
        if (Array.isArray(summary)) reasons.push(contentText(summary));
        else if (item.content !== undefined) reasons.push(contentText(item.content));
      }
    }
  }
  const r = reasons.join('\n').trim();
  return { text: texts.join('\n'), reasoning: r === '' ? null : r };
}

/** Tool name / arguments recorded for a call id (chat `tool_calls` or Responses `function_call` items). */
function toolCallsOf(m: MiniMessage): Map<string, { name: string | null; args: unknown }> {
  const map = new Map<string, { name: string | null; args: unknown }>();
  for (const c of m.tool_calls ?? []) {
    if (c.id) map.set(c.id, { name: c.function?.name ?? null, args: parseArguments(c.function?.arguments) });
  }
  const out = (m as Record<string, unknown>).output;
  if (Array.isArray(out)) {
    for (const item of out) {
      if (isObject(item) && item.type === 'function_call') {
        const id = str(item.call_id) ?? str(item.id);
        if (id) map.set(id, { name: str(item.name), args: parseArguments(item.arguments) });
      }
    }
  }
  return map;
}

function commandAction(command: string, callId: string | null, tool: string | null, args: unknown): Action {
  const a: Action = { kind: isMiniFinishCommand(command) ? 'finish' : 'shell', command, tool, callId };
  if (args !== undefined) a.arguments = args;
  return a;
}

/** Actions of a model message (see the module docs for the order of sources). */
function actionsOf(m: MiniMessage, text: string, re: RegExp): Action[] {
  const calls = toolCallsOf(m);
  const extraActions = m.extra?.actions;
  if (extraActions) {
    return extraActions.map((a) => {
      const id = a.tool_call_id ?? null;
      const call = id ? calls.get(id) : undefined;
      return commandAction(a.command, id, call?.name ?? null, call?.args);
    });
  }
  if (calls.size) {
    return [...calls].map(([id, c]) => {
      const cmd = isObject(c.args) ? str(c.args.command) : null;
      if (cmd !== null) return commandAction(cmd, id, c.name, c.args);
      return { kind: 'tool', command: null, tool: c.name, arguments: c.args, callId: id } satisfies Action;
    });
  }
  const found = [...text.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g'))];
  if (found.length !== 1) return [];
  return [commandAction((found[0][1] ?? found[0][0]).trim(), null, null, undefined)];
}

/** The THOUGHT part of a text reply: text before the first command block, `THOUGHT:` removed. */
function thoughtOf(text: string, re: RegExp): string | null {
  const m = new RegExp(re.source, re.flags.replace('g', '')).exec(text);
  if (!m) return null;
  const before = text.slice(0, m.index).replace(/^\s*THOUGHT:\s*/i, '').trim();
  return before === '' ? null : before;
}

const RETURNCODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;

/** Parses an observation message into an Observation (see the module docs). */
function observationOf(text: string, extra: MiniMessage['extra'], callId: string | null): Observation {
  const rc = RETURNCODE.exec(text);
  const exitCode = typeof extra?.returncode === 'number' ? extra.returncode : rc ? Number(rc[1]) : null;
  const exception = typeof extra?.exception_info === 'string' && extra.exception_info !== '';
  if (typeof extra?.raw_output === 'string' && !exception) {
    return { callId, output: extra.raw_output, exitCode, truncated: false };
  }
  let output = text;
  if (rc) {
    const after = text.slice(rc.index + rc[0].length);
    const open = after.indexOf('<output>');
    const close = after.lastIndexOf('</output>');
    if (!exception && !/<exception>/.test(text)) {
      output =
        open >= 0 && close > open
          ? after.slice(open + '<output>'.length, close).replace(/^\r?\n/, '')
          : after.replace(/^\r?\n/, '');
    }
  }
  const truncated = /<output_head>/.test(output) || /<elided_chars>/.test(output);
  return { callId, output, exitCode, truncated };
}

/** True for a message that ends the run (`role: "exit"`, or an `extra.exit_status` without a returncode). */
function isExitMessage(m: MiniMessage): boolean {
  if (m.role === 'exit') return true;
  const e = m.extra;
  return !!e && typeof e.exit_status === 'string' && (e.returncode === undefined || e.returncode === null);
}

function isModelMessage(m: MiniMessage): boolean {
  return m.role === 'assistant' || m.object === 'response';
}

function messageText(m: MiniMessage): string {
  if (m.type === 'function_call_output') {
    const o = (m as Record<string, unknown>).output;
    return typeof o === 'string' ? o : contentText(o);
  }
  return contentText(m.content);
}

/** Task id from the root `instance_id`, else from a `<instance_id>.traj.json` file name (`fromName`: listed in `derived`). */
function taskIdOf(traj: { instance_id?: string }, file: string): { id: string | null; fromName: boolean } {
  if (traj.instance_id) return { id: traj.instance_id, fromName: false };
  const m = /^(.+)\.traj\.json$/i.exec(path.basename(file));
  return m ? { id: m[1], fromName: true } : { id: null, fromName: false };
}

/**
 * @param at where `messages` is in the document: `['messages']` in a `{info, messages}` file, `[]`
 *   in the older bare message list
 */
function toRollout(input: LoadInput, traj: MiniTraj, at: (string | number)[] = ['messages']): Rollout {
  const doc = input.doc!;
  const info = traj.info ?? {};
  const config = info.config ?? null;
  const { re, ignored: ignoredRegex } = actionRegex(config);
  const steps: Step[] = [];
  let cur: Step | null = null;
  let curTime: number | null = null;
  let lastObsTime: number | null = null;
  let instruction: string | null = null;
  let exitStatusFromMessage: string | null = null;

  const closeStep = () => {
    if (cur && curTime !== null && lastObsTime !== null && lastObsTime >= curTime) cur.durationSec = lastObsTime - curTime;
    lastObsTime = null;
  };

  traj.messages.forEach((m, k) => {
    const range = doc.rangeOf([...at, k]);
    const extra = m.extra ?? null;
    if (isExitMessage(m)) {
      if (extra?.exit_status) exitStatusFromMessage = extra.exit_status;
      const text = messageText(m);
      const step: Step | null = cur;
      const finish = step?.actions.find(
        (a) => a.kind === 'finish' && (a.callId !== null ? !step.observations.some((o) => o.callId === a.callId) : step.observations.length === 0),
      );
      if (step && finish) {
        step.observations.push({ callId: finish.callId, output: text, exitCode: null, truncated: false });
      } else {
        closeStep();
        cur = null;
        steps.push(makeStep(steps.length, 'system', { message: text, range, timestamp: isoFromUnix(extra?.timestamp) }));
      }
      return;
    }
    if (isModelMessage(m)) {
      closeStep();
      const r = m.object === 'response' ? responseObjectText(m) : { text: messageText(m), reasoning: null };
      const recorded = r.reasoning ?? (m.reasoning_content && m.reasoning_content.trim() !== '' ? m.reasoning_content : null);
      const actions = actionsOf(m, r.text, re);
      let reasoning = recorded ?? (extra?.actions || (m.tool_calls ?? []).length ? null : thoughtOf(r.text, re));
      if (reasoning !== null && reasoning.trim() === r.text.trim()) reasoning = null;
      const response = getIn(extra, 'response');
      curTime = num(extra?.timestamp);
      cur = makeStep(steps.length, 'agent', {
        message: r.text,
        reasoning,
        actions,
        timestamp: isoFromUnix(extra?.timestamp) ?? isoFromUnix(getIn(response, 'created')) ?? isoFromUnix((m as Record<string, unknown>).created_at),
        tokens: tokensOf(getIn(response, 'usage') ?? (m as Record<string, unknown>).usage),
        costUsd: num(extra?.cost),
        range,
      });
      steps.push(cur);
      return;
    }
    if (m.role === 'user' && typeof extra?.model_response === 'string') {
      // v1.1 format error: the rejected reply is only kept here.
      closeStep();
      cur = makeStep(steps.length, 'agent', {
        message: extra.model_response,
        observations: [{ callId: null, output: messageText(m), exitCode: null, truncated: false }],
        timestamp: isoFromUnix(extra.timestamp),
        range,
      });
      curTime = null;
      steps.push(cur);
      return;
    }
    const isToolResult = m.role === 'tool' || m.type === 'function_call_output';
    if (cur && (isToolResult || m.role === 'user')) {
      const callId = m.tool_call_id ?? m.call_id ?? null;
      cur.observations.push(observationOf(messageText(m), extra, callId));
      const t = num(extra?.timestamp);
      if (t !== null) lastObsTime = Math.max(lastObsTime ?? t, t);
      return;
    }
    // Before the first model message (or an unattached message): a step of its own.
    const role = m.role === 'system' || m.role === 'developer' ? 'system' : m.role === 'user' ? 'user' : 'environment';
    const text = messageText(m);
    if (role === 'user' && instruction === null) instruction = text;
    if (role === 'environment') {
      steps.push(
        makeStep(steps.length, role, {
          observations: [observationOf(text, extra, m.tool_call_id ?? m.call_id ?? null)],
          range,
        }),
      );
    } else {
      steps.push(makeStep(steps.length, role, { message: text, range, timestamp: isoFromUnix(extra?.timestamp) }));
    }
  });
  closeStep();

  const { id: taskId, fromName } = taskIdOf(traj, input.path);
  const status = info.exit_status ?? exitStatusFromMessage;
  const metadata: Record<string, unknown> = {};
  if (info.model_stats) metadata.modelStats = info.model_stats;
  if (ignoredRegex !== null) metadata.actionRegexIgnored = ignoredRegex;
  if (info.submission !== undefined && info.submission !== null) {
    metadata.submissionChars = typeof info.submission === 'string' ? info.submission.length : JSON.stringify(info.submission).length;
  }
  for (const [k, key] of [
    ['agent_type', 'agentType'],
    ['model_type', 'modelType'],
    ['environment_type', 'environmentType'],
  ] as const) {
    const v = str(getIn(config, k));
    if (v) metadata[key] = v;
  }
  const cwd = str(getIn(config, 'environment', 'cwd'));

  return {
    // A task read out of the file name (`<instance_id>.traj.json`) is derived, not recorded.
    ...(fromName ? { derived: ['task.id'] } : {}),
    id: taskId ?? `${input.path}#0`,
    format: 'mini-swe-agent',
    schemaVersion: traj.trajectory_format ?? null,
    source: { path: input.path, range: null, line: null },
    task: { id: taskId, instruction },
    agent: { name: 'mini-swe-agent', version: info.mini_version ?? null, model: str(getIn(config, 'model', 'model_name')) },
    environment: { image: str(getIn(config, 'environment', 'image')), workdir: cwd && cwd !== '' ? cwd : null },
    outcome: {
      reward: null,
      rewards: null,
      resolved: null,
      status,
      source: info.exit_status ? 'info.exit_status' : status !== null ? 'exit message extra.exit_status' : null,
    },
    groupId: null,
    steps,
    metadata,
  };
}

/**
 * The older mini-swe-agent trajectory: a bare list of `{role, content}` chat messages (what the
 * early `save` wrote, `json.dumps(agent.messages)`; e.g. SWE-agent/mini-swe-agent
 * `tests/test_data/local.traj.json` before `trajectory_format` existed). Recognised when every item
 * is such a message (text, or a list of parts) and the file is named `*.traj.json` (0.75) or the messages
 * hold mini-swe-agent's own markers, a `<returncode>` reply to a fenced command (0.7).
 */
function bareMessageList(input: LoadInput): { accept: true; confidence: number } | { accept: false; reason: string } {
  const v = input.doc?.value;
  if (!Array.isArray(v) || v.length === 0) return { accept: false, reason: 'not a JSON object (nor a bare message list)' };
  const chat = v.every((m) => isObject(m) && typeof m.role === 'string' && (typeof m.content === 'string' || m.content === null || Array.isArray(m.content)));
  if (!chat) return { accept: false, reason: 'a JSON list, but not of {role, content} messages' };
  if (/\.traj\.json$/i.test(input.path)) return { accept: true, confidence: 0.75 };
  const said = (role: string, re: RegExp) => v.some((m) => m.role === role && re.test(contentText(m.content)));
  if (said('assistant', /```(?:bash|mswea_bash_command)\s*\n/) && said('user', /<returncode>-?\d+<\/returncode>/)) return { accept: true, confidence: 0.7 };
  return { accept: false, reason: 'a list of chat messages without mini-swe-agent\'s markers (a .traj.json name, or ```bash commands answered by <returncode>)' };
}

/** Loader for mini-swe-agent `.traj.json` files (format id `mini-swe-agent`). */
export const miniSweAgentLoader: FormatLoader = {
  id: 'mini-swe-agent',
  label: 'mini-swe-agent trajectory (.traj.json)',
  /**
   * Accepts `trajectory_format` starting with `mini-swe-agent` (confidence 1), a `messages` array
   * with `info.mini_version` (0.8), or the older bare message list (bareMessageList, 0.7–0.75).
   */
  detect(input) {
    const v = input.doc?.value;
    if (Array.isArray(v)) return bareMessageList(input);
    if (!isObject(v)) return { accept: false, reason: 'not a JSON object' };
    const tf = v.trajectory_format;
    if (typeof tf === 'string' && tf.startsWith('mini-swe-agent')) return { accept: true, confidence: 1 };
    if (Array.isArray(v.messages) && isObject(v.info) && typeof v.info.mini_version === 'string') return { accept: true, confidence: 0.8 };
    return { accept: false, reason: 'no trajectory_format "mini-swe-agent-…" and no messages + info.mini_version' };
  },
  /** Reads the one rollout of a `.traj.json` file (or bare message list). Throws RolloutLoadError with located issues. */
  async load(input) {
    const doc = singleDoc(input, FORMAT);
    if (Array.isArray(doc.value)) {
      const messages = doc.validate(z.array(MiniMessage), FORMAT);
      const r = toRollout(input, { messages }, []);
      r.metadata.layout = 'bare message list (before trajectory_format)';
      return [r];
    }
    return [toRollout(input, doc.validate(MiniTraj, FORMAT))];
  },
};
