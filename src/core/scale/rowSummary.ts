/**
 * What the Rollouts view lists of one row of a rollout dump (id, task, GRPO group, reward,
 * resolved, step count), read without building the row: a targeted byte scan (jsonScan.ts) for the
 * formats the index knows (NeMo-Gym Responses rollouts `openai-responses`; OpenAI chat rows with
 * `messages`, `openai-chat`), and the real loader on that one line for every other row.
 *
 * The fast summary replays the loader's step mapping (openAiResponses.ts `nemoRowRollout` /
 * `responsesSteps`, rlConversation.ts `Conversation`) on the items' `type`, `role`, `call_id` and the emptiness of
 * assistant texts only; a text that could hold a `<think>` block or a text tool call (Hermes
 * `<tool_call>`, XML `<function=…>`) is decoded and passed to the loader's own helpers. test/unit/scale/rolloutIndex.test.ts checks it
 * against the full loader on the real samples (same ids, groups, rewards, resolved, step counts).
 * This module never imports `vscode`.
 */
import { chatPromptText } from '../formats/openAiChat';
import { nemoTaskId } from '../formats/openAiResponses';
import { promptGroup, splitThink } from '../formats/rlConversation';
import { textToolCalls } from '../formats/textToolCalls';
import { toolCallAction } from '../formats/toolCalls';
import { contentText, isObject, resolvedFromReward } from '../formats/util';
import { byteAt, forEachItem, forEachMember, keyEquals, KeySet, parseSpan, readScalar, spanIncludes, valueEnd } from './jsonScan';

/** The summary of one row, before ids are made unique across the file. */
export interface RowSummary {
  /** The id the loader gives the row (before `#line<N>` for repeats). */
  baseId: string;
  taskId: string | null;
  groupId: string | null;
  reward: number | null;
  resolved: boolean | null;
  steps: number;
}

/**
 * Summarises one row (the bytes of one JSONL line, or from the start of a JSON array item on)
 * whose 1-based line in `file` is `line`. Throws ScanError (or Error: not what the scan expects).
 * @param out when given, gets the position just after the row object's `}` (the array index
 *   delimits items with it instead of a second scan)
 */
export type RowSummarizer = (row: Buffer, file: string, line: number, out?: { end: number }) => RowSummary;

// ---------------------------------------------------------------------------------------------
// The step replay: Conversation (rlConversation.ts) reduced to what decides the number of steps

interface MiniStep {
  agent: boolean;
  /** The agent step's message is '' (a reasoning item or an assistant text may then reuse it). */
  emptyMessage: boolean;
  actions: number;
  observations: number;
}

class StepCounter {
  readonly steps: MiniStep[] = [];
  private pending: { step: MiniStep; callId: string | null }[] = [];
  /** rlConversation.ts Conversation.awaitsTextResult: the next user message is the output of text tool calls. */
  textCallsPending = false;

  add(agent: boolean): MiniStep {
    const s = { agent, emptyMessage: true, actions: 0, observations: 0 };
    this.steps.push(s);
    this.textCallsPending = false;
    return s;
  }

  lastAgent(): MiniStep | null {
    const s = this.steps[this.steps.length - 1];
    return s && s.agent ? s : null;
  }

  addAction(step: MiniStep, kind: string, callId: string | null, fromText = false): void {
    step.actions++;
    if (kind !== 'finish' || callId !== null || fromText) {
      this.pending.push({ step, callId });
      if (fromText && step === this.lastAgent()) this.textCallsPending = true;
    }
  }

  observe(callId: string | null): void {
    this.textCallsPending = false;
    let i = callId !== null ? this.pending.findIndex((p) => p.callId === callId) : -1;
    if (i < 0 && callId === null) {
      let last: MiniStep | null = null;
      for (let k = this.steps.length - 1; k >= 0; k--) {
        if (this.steps[k].agent) {
          last = this.steps[k];
          break;
        }
      }
      i = last ? this.pending.findIndex((p) => p.step === last) : -1;
    }
    if (i >= 0) {
      this.pending[i].step.observations++;
      this.pending.splice(i, 1);
      return;
    }
    this.add(false).observations = 1;
  }
}

/** A JSON string or number id as the loaders print it (`String(v)`), else null. */
function idText(v: unknown): string | null {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : null;
}

/** Texts that the loader would change (`<think>` blocks, Hermes tool calls, escaped `<` or `/`): decode those. */
function needsDecoding(b: Buffer, s: number, e: number): boolean {
  return spanIncludes(b, s, e, 'think>', '<tool_call>', '<function=', 'u003c', 'u003C');
}

/** Whether the JSON string bytes [s, e) (inside the quotes) are all whitespace as `\s` sees it; null when undecidable without decoding. */
function blankRaw(b: Buffer, s: number, e: number): boolean | null {
  for (let i = s; i < e; i++) {
    const c = b[i];
    if (c === 32 || c === 9) continue;
    if (c === 92) {
      const d = b[++i];
      if (d === 110 || d === 116 || d === 114 || d === 102) continue; // \n \t \r \f
      return d === 117 ? null : false; // \uXXXX could be a Unicode space
    }
    return c >= 0x80 ? null : false;
  }
  return true;
}

const THINK = Buffer.from('<think>');
const THINK_END = Buffer.from('</think>');

/**
 * Whether the message splitThink leaves of the JSON string at [s, e) (with its quotes) is '', read
 * from the bytes; null when only decoding can tell (Hermes tool calls, escapes near the tags).
 */
function thinkOnlyRaw(b: Buffer, s: number, e: number): boolean | null {
  const view = b.subarray(s + 1, e - 1);
  if (view.includes('<tool_call>') || view.includes('<function=') || view.includes('u003') || view.includes('<\\/')) return null;
  const openAt = view.indexOf(THINK);
  const close = view.indexOf(THINK_END);
  const base = s + 1;
  const open = openAt >= 0 ? blankRaw(b, base, base + openAt) : false;
  if (open === null) return null;
  if (open) return close < 0 ? true : blankRaw(b, base + close + THINK_END.length, e - 1);
  if (close >= 0 && openAt < 0) return blankRaw(b, base + close + THINK_END.length, e - 1);
  return e - s === 2;
}

/** The one `text` string of a content list with a single part object, or null. */
function singleTextPart(b: Buffer, s: number): [number, number] | null {
  let text: [number, number] | null = null;
  let parts = 0;
  forEachItem(b, s, (is) => {
    parts++;
    if (parts > 1 || byteAt(b, is) !== 123) return -1;
    return forEachMember(b, is, (ks, ke, vs) => {
      if (!keyEquals(b, ks, ke, 'text')) return -1;
      const ve = valueEnd(b, vs);
      if (byteAt(b, vs) === 34) text = [vs, ve];
      return ve;
    });
  });
  return parts === 1 ? text : null;
}

/** splitThink + textToolCalls of an assistant content at [s, e): whether the message is '' (null: decode it). */
function assistantEmptyRaw(b: Buffer, s: number, e: number): boolean | null {
  const c = byteAt(b, s);
  if (c === 34) return thinkOnlyRaw(b, s, e);
  if (c === 91) {
    const t = singleTextPart(b, s);
    return t ? thinkOnlyRaw(b, t[0], t[1]) : null;
  }
  return null;
}

const PART_KEYS = new KeySet(['text', 'type']);
const ITEM_KEYS = new KeySet(['type', 'role', 'call_id', 'id', 'name', 'content']);
const ROW_KEYS = new KeySet(['reward', 'reward_components', 'resolved', 'instance_id', 'task_id', '_ng_task_index', '_ng_rollout_index', 'responses_create_params', 'response', 'metadata', 'instance_config']);
const RCP_KEYS = new KeySet(['instructions', 'input', 'metadata']);
/** The members of a row's metadata objects that can name its task (openAiResponses.ts nemoTaskId). */
const TASK_KEYS = new KeySet(['instance_id', 'task_id', 'task_name', 'problem_id', 'instance_dict']);

/** The task-naming scalar members of the object at `vs` (nothing else decoded), or undefined when it is no object. */
function taskMembers(b: Buffer, vs: number): Record<string, unknown> | undefined {
  if (byteAt(b, vs) !== 123) return undefined;
  const out: Record<string, unknown> = {};
  forEachMember(b, vs, (ks, ke, mvs) => {
    const k = TASK_KEYS.match(b, ks, ke);
    if (k === null) return -1;
    const c = byteAt(b, mvs);
    // Scalars only (objects and lists name no task here): their end is where a scalar ends.
    if (c === 123 || c === 91) return -1;
    const mve = valueEnd(b, mvs);
    out[k] = readScalar(b, mvs, mve);
    return mve;
  });
  return out;
}

/**
 * Whether contentText(content) of the value at [s, e) is '' without decoding it: a string is empty
 * only as `""`; a list of parts is empty when every part gives '' (a string part `""`, an object
 * part with `text: ""`, or without `text` and `type`).
 */
function contentEmpty(b: Buffer, s: number, e: number): boolean {
  const c = byteAt(b, s);
  if (c === 34) return e - s === 2;
  if (c === 110 /* n */) return true;
  if (c !== 91) return contentText(parseSpan(b, s, e)) === '';
  let empty = true;
  forEachItem(b, s, (is) => {
    const ie = valueEnd(b, is);
    if (!empty) return ie;
    const ic = byteAt(b, is);
    if (ic === 34) empty = ie - is === 2;
    else if (ic === 123) {
      let text: [number, number] | null = null;
      let hasType = false;
      forEachMember(b, is, (ks, ke, vs) => {
        const k = PART_KEYS.match(b, ks, ke);
        if (k === 'text' && byteAt(b, vs) === 34) {
          const ve = valueEnd(b, vs);
          text = [vs, ve];
          return ve;
        }
        if (k === 'type' && byteAt(b, vs) === 34) hasType = true;
        return -1;
      });
      const t = text as [number, number] | null;
      empty = t ? t[1] - t[0] === 2 : !hasType;
    } else empty = contentText([parseSpan(b, is, ie)]) === '';
    return ie;
  });
  return empty;
}

/** One Responses API item read for the replay (see responsesSteps in openAiResponses.ts). */
function responsesItem(b: Buffer, s: number, conv: StepCounter): number {
  if (byteAt(b, s) !== 123) throw new Error('a Responses API item object expected');
  let type: string | null = null;
  let hasRole = false;
  let role: string | null = null;
  let callId: string | null = null;
  let id: string | null = null;
  let name: string | null = null;
  let content: [number, number] | null = null;
  const end = forEachMember(b, s, (ks, ke, vs) => {
    const k = ITEM_KEYS.match(b, ks, ke);
    switch (k) {
      case 'type':
      case 'role':
      case 'call_id':
      case 'id':
      case 'name': {
        const ve = valueEnd(b, vs);
        const v = readScalar(b, vs, ve);
        const sv = typeof v === 'string' ? v : null;
        if (k === 'type') type = sv;
        else if (k === 'role') {
          hasRole = true;
          role = sv;
        } else if (k === 'call_id') callId = sv;
        else if (k === 'id') id = sv;
        else name = sv;
        return ve;
      }
      case 'content': {
        const ve = valueEnd(b, vs);
        content = [vs, ve];
        return ve;
      }
      default:
        return -1;
    }
  });
  const t: string | null = type ?? (hasRole ? 'message' : null);
  // What the loader's schemas require of the items the count depends on (else: the loader decides).
  if (t === 'message' && typeof role !== 'string') throw new Error('a message without a role');
  if (t === 'function_call' && typeof name !== 'string') throw new Error('a function call without a name');
  const cur = conv.lastAgent();
  const reusable = cur !== null && cur.emptyMessage && cur.actions === 0 && cur.observations === 0;
  if (t === 'message') {
    const r = ((role as string | null) ?? '').toLowerCase();
    if (r === 'assistant') {
      const step = reusable ? cur : conv.add(true);
      const span = content as [number, number] | null;
      const raw = span ? assistantEmptyRaw(b, span[0], span[1]) : true;
      if (raw !== null) {
        step.emptyMessage = raw;
      } else if (span && needsDecoding(b, span[0], span[1])) {
        const text = splitThink(contentText(parseSpan(b, span[0], span[1]))).text;
        const parsed = textToolCalls(text);
        step.emptyMessage = (parsed ? parsed.text : text) === '';
        for (const a of parsed?.actions ?? []) conv.addAction(step, a.kind, a.callId);
      } else {
        step.emptyMessage = span ? contentEmpty(b, span[0], span[1]) : true;
      }
    } else {
      conv.add(false);
    }
  } else if (t === 'reasoning') {
    if (!reusable) conv.add(true);
  } else if (t === 'function_call') {
    const step = cur && cur.observations === 0 ? cur : conv.add(true);
    const cid = callId ?? id;
    const kind = cid !== null ? 'tool' : toolCallAction((name as string | null) ?? '', undefined, null).kind;
    conv.addAction(step, kind, cid);
  } else if (t !== null && (t === 'function_call_output' || (t as string).endsWith('_call_output'))) {
    conv.observe(callId);
  } else if (t !== null && (t as string).endsWith('_call')) {
    const step = cur && cur.observations === 0 ? cur : conv.add(true);
    const cid = callId ?? id;
    let kind = 'tool';
    if (cid === null && t !== 'local_shell_call') {
      const item = parseSpan(b, s, end) as Record<string, unknown>;
      kind = toolCallAction(typeof item.name === 'string' ? item.name : t, item.arguments ?? item.input ?? item.action, null).kind;
    }
    conv.addAction(step, kind, cid);
  }
  return end;
}

/**
 * NeMo-Gym Responses rollouts (`openai-responses`; openAiResponses.ts `nemoRowRollout`): id
 * `<instance_id | task-<n>>#rollout-<r>`, task, group `ng-task-<n>`, reward, resolved (`resolved`,
 * `metadata.eval_report[instance].resolved`, else from the reward unless it is a sum of
 * components), steps from `instructions`, `input` and `response.output`.
 */
export const nemoRowSummary: RowSummarizer = (b, file, line, out) => {
  const conv = new StepCounter();
  const f: Record<string, unknown> = {};
  let rcp = null as number | null;
  let response = null as number | null;
  let metadata = null as [number, number] | null;
  let instanceConfig: Record<string, unknown> | undefined;
  const start = b.indexOf(123);
  const rowEnd = forEachMember(b, start < 0 ? 0 : start, (ks, ke, vs) => {
    const k = ROW_KEYS.match(b, ks, ke);
    if (k === null) return -1;
    if (k === 'reward_components') {
      const ve = valueEnd(b, vs);
      f[k] = parseSpan(b, vs, ve);
      return ve;
    }
    if (k === 'instance_config') {
      instanceConfig = taskMembers(b, vs);
      return -1;
    }
    if (k !== 'responses_create_params' && k !== 'response' && k !== 'metadata') {
      const ve = valueEnd(b, vs);
      f[k] = readScalar(b, vs, ve);
      return ve;
    }
    if (k === 'responses_create_params') {
      rcp = vs;
      return -1;
    }
    if (k === 'response') {
      response = vs;
      return -1;
    }
    if (k === 'metadata') {
      const ve = valueEnd(b, vs);
      metadata = [vs, ve];
      return ve;
    }
    return -1;
  });
  if (out) out.end = rowEnd;
  // What the loader's schema requires (NemoRowSchema); anything else goes to the loader, which says why.
  const typed = (k: string, ok: (v: unknown) => boolean): void => {
    if (f[k] !== undefined && f[k] !== null && !ok(f[k])) throw new Error(`unexpected ${k}`);
  };
  typed('reward', (v) => Number.isFinite(v));
  typed('resolved', (v) => typeof v === 'boolean');
  typed('reward_components', (v) => isObject(v) && Object.values(v).every((x) => Number.isFinite(x)));
  typed('_ng_task_index', (v) => Number.isInteger(v));
  typed('_ng_rollout_index', (v) => Number.isInteger(v));
  typed('instance_id', (v) => typeof v === 'string' || typeof v === 'number');
  typed('task_id', (v) => typeof v === 'string' || typeof v === 'number');
  if (rcp === null || byteAt(b, rcp) !== 123 || response === null || byteAt(b, response) !== 123) throw new Error('not a NeMo-Gym row');
  // Steps in the loader's order: instructions, input, then the response's output.
  let rcpMetadata: Record<string, unknown> | undefined;
  {
    let instructions = false;
    let input: number | null = null;
    forEachMember(b, rcp, (ks, ke, vs) => {
      const k = RCP_KEYS.match(b, ks, ke);
      if (k === 'metadata') {
        rcpMetadata = taskMembers(b, vs);
        return -1;
      }
      if (k === 'instructions') {
        const ve = valueEnd(b, vs);
        const c = byteAt(b, vs);
        if (c !== 34 && c !== 110) throw new Error('instructions is not a string');
        instructions = c === 34 && ve - vs > 2;
        return ve;
      }
      if (k === 'input') {
        const c = byteAt(b, vs);
        if (c !== 34 && c !== 91 && c !== 110) throw new Error('input is not a string or list');
        input = vs;
      }
      return -1;
    });
    if (instructions) conv.add(false);
    if (input !== null) {
      const c = byteAt(b, input);
      if (c === 34) conv.add(false);
      else if (c === 91) forEachItem(b, input, (is) => responsesItem(b, is, conv));
    }
  }
  let output = false;
  forEachMember(b, response, (ks, ke, vs) => {
    if (!keyEquals(b, ks, ke, 'output')) return -1;
    if (byteAt(b, vs) !== 91) throw new Error('response.output is not a list');
    output = true;
    return forEachItem(b, vs, (is) => responsesItem(b, is, conv));
  });
  if (!output) throw new Error('no response.output');
  const t = idText(f._ng_task_index ?? null);
  const r = idText(f._ng_rollout_index ?? null);
  const instance = nemoTaskId({ instanceId: f.instance_id, taskId: f.task_id, rcpMetadata, instanceConfig, metadata: metadata ? taskMembers(b, metadata[0]) : undefined });
  const base = instance !== null ? instance : t !== null ? `task-${t}` : null;
  const reward = typeof f.reward === 'number' ? f.reward : null;
  let resolved: boolean | null = typeof f.resolved === 'boolean' ? f.resolved : null;
  if (resolved === null && metadata && instance !== null) {
    // metadata.eval_report[instance].resolved, walked to (the rest of the metadata is not decoded).
    const [ms] = metadata;
    if (byteAt(b, ms) === 123) {
      forEachMember(b, ms, (ks, ke, vs) => {
        if (!keyEquals(b, ks, ke, 'eval_report') || byteAt(b, vs) !== 123) return -1;
        return forEachMember(b, vs, (eks, eke, evs) => {
          if (!keyEquals(b, eks, eke, instance)) return -1;
          const eve = valueEnd(b, evs);
          const entry = parseSpan(b, evs, eve);
          if (isObject(entry) && typeof entry.resolved === 'boolean') resolved = entry.resolved;
          return eve;
        });
      });
    }
  }
  const components = f.reward_components ?? null;
  return {
    baseId: base !== null ? (r !== null ? `${base}#rollout-${r}` : base) : `${file}:${line}`,
    taskId: instance !== null ? instance : t,
    groupId: t !== null ? `ng-task-${t}` : null,
    reward,
    resolved: resolved ?? (components ? null : resolvedFromReward(reward)),
    steps: conv.steps.length,
  };
};

/** The fast summarizers by format id. */
export const FAST_SUMMARIZERS: Partial<Record<string, RowSummarizer>> = {
  'openai-responses': nemoRowSummary,
};

const CHAT_ROW_KEYS = new KeySet([
  'messages', 'id', 'rollout_id', 'trajectory_id', 'request_id', 'uid', 'group_id', 'group_uid', 'prompt_id',
  'reward', 'score', 'resolved', 'is_correct', 'instance_id', 'task_id',
]);
const MESSAGE_KEYS = new KeySet(['role', 'content', 'tool_calls', 'tool_call_id', 'function_call']);
const TOOL_CALL_KEYS = new KeySet(['id', 'function', 'name']);

/** One tool call of an assistant message: its id, and whether its name makes it a `finish` action (when it has no id). */
function chatToolCall(b: Buffer, s: number): { id: string | null; kind: string } {
  if (byteAt(b, s) !== 123) throw new Error('a tool call object expected');
  let id: string | null = null;
  let fn: [number, number] | null = null;
  let name: string | null = null;
  forEachMember(b, s, (ks, ke, vs) => {
    const k = TOOL_CALL_KEYS.match(b, ks, ke);
    if (k === null) return -1;
    const ve = valueEnd(b, vs);
    if (k === 'id') {
      const v = readScalar(b, vs, ve);
      if (v !== null && typeof v !== 'string') throw new Error('a tool call id that is not a string');
      id = v as string | null;
    } else if (k === 'function') fn = [vs, ve];
    else {
      const v = readScalar(b, vs, ve);
      name = typeof v === 'string' ? v : null;
    }
    return ve;
  });
  const f = fn as [number, number] | null;
  if (f) {
    const v = parseSpan(b, f[0], f[1]);
    if (!isObject(v) || typeof v.name !== 'string') throw new Error('a tool call without function.name');
    name = v.name;
  }
  if (typeof name !== 'string') throw new Error('a tool call without a name');
  return { id, kind: id !== null ? 'tool' : toolCallAction(name, undefined, null).kind };
}

/**
 * OpenAI chat rollout rows with `messages` (`openai-chat`; openAiChat.ts `chatRowRollout` / `chatSteps`
 * / `rlRollout`): id (`id` / `rollout_id` / `trajectory_id` / `request_id`, else `<path>:<line>`),
 * task (`instance_id` / `task_id`), group (`uid` / `group_id` / `group_uid` / `prompt_id`, else the
 * prompt hash over the messages before the first assistant message, which are decoded), reward
 * (`reward`, else a numeric `score`), resolved (`resolved` / `is_correct`, else from the reward),
 * steps from the roles. Rows without `messages` (prompt/completion, flat text pairs) go to the loader.
 */
export const chatRowSummary: RowSummarizer = (b, file, line, out) => {
  const f: Record<string, unknown> = {};
  let messages = null as number | null;
  const start = b.indexOf(123);
  const rowEnd = forEachMember(b, start < 0 ? 0 : start, (ks, ke, vs) => {
    const k = CHAT_ROW_KEYS.match(b, ks, ke);
    if (k === null) return -1;
    if (k === 'messages') {
      messages = vs;
      return -1;
    }
    const ve = valueEnd(b, vs);
    f[k] = k === 'score' ? parseSpan(b, vs, ve) : readScalar(b, vs, ve);
    return ve;
  });
  if (out) out.end = rowEnd;
  if (messages === null || byteAt(b, messages) !== 91) throw new Error('no messages list');
  const id = (k: string): boolean => f[k] === undefined || f[k] === null || typeof f[k] === 'string' || typeof f[k] === 'number';
  for (const k of ['id', 'rollout_id', 'trajectory_id', 'request_id', 'uid', 'group_id', 'group_uid', 'prompt_id', 'instance_id', 'task_id']) if (!id(k)) throw new Error(`unexpected ${k}`);
  for (const k of ['resolved', 'is_correct']) if (f[k] !== undefined && f[k] !== null && typeof f[k] !== 'boolean') throw new Error(`unexpected ${k}`);
  if (f.reward !== undefined && f.reward !== null && !Number.isFinite(f.reward)) throw new Error('unexpected reward');
  const score = f.score;
  // Numbers must be finite (1e400 parses as Infinity, which the loader's schema rejects).
  if (score !== undefined && score !== null && !Number.isFinite(score) && !(Array.isArray(score) && score.every((x) => Number.isFinite(x)))) throw new Error('unexpected score');

  const conv = new StepCounter();
  const prompt: unknown[] = [];
  let inPrompt = true;
  forEachItem(b, messages, (is) => {
    if (byteAt(b, is) !== 123) throw new Error('a message object expected');
    let role: unknown;
    let content: [number, number] | null = null;
    let calls: { id: string | null; kind: string }[] = [];
    let hasCalls = false;
    let toolCallId: string | null = null;
    let functionCall: [number, number] | null = null;
    const end = forEachMember(b, is, (ks, ke, vs) => {
      const k = MESSAGE_KEYS.match(b, ks, ke);
      if (k === null) return -1;
      if (k === 'tool_calls') {
        if (byteAt(b, vs) === 110) return valueEnd(b, vs);
        if (byteAt(b, vs) !== 91) throw new Error('tool_calls is not a list');
        calls = [];
        hasCalls = true;
        return forEachItem(b, vs, (ts) => {
          calls.push(chatToolCall(b, ts));
          return valueEnd(b, ts);
        });
      }
      const ve = valueEnd(b, vs);
      if (k === 'role') role = readScalar(b, vs, ve);
      else if (k === 'content') content = [vs, ve];
      else if (k === 'tool_call_id') {
        const v = readScalar(b, vs, ve);
        if (v !== null && typeof v !== 'string') throw new Error('tool_call_id is not a string');
        toolCallId = v as string | null;
      } else if (byteAt(b, vs) !== 110) functionCall = [vs, ve];
      return ve;
    });
    if (typeof role !== 'string') throw new Error('a message without a role');
    if (role === 'assistant') inPrompt = false;
    if (inPrompt) prompt.push(parseSpan(b, is, end));
    const r = role.toLowerCase();
    if (r === 'user' && conv.textCallsPending) conv.observe(null);
    else if (r === 'system' || r === 'developer' || r === 'user') conv.add(false);
    else if (r === 'assistant') {
      const step = conv.add(true);
      const actions = hasCalls ? [...calls] : [];
      const fc = functionCall as [number, number] | null;
      if (fc) {
        const v = parseSpan(b, fc[0], fc[1]);
        if (!isObject(v) || typeof v.name !== 'string') throw new Error('a function_call without a name');
        actions.push({ id: null, kind: toolCallAction(v.name, v.arguments, null).kind });
      }
      const span = content as [number, number] | null;
      let fromText = false;
      if (actions.length === 0 && span && spanIncludes(b, span[0], span[1], '<tool_call>', '<function=', 'u003c', 'u003C')) {
        const text = splitThink(contentText(parseSpan(b, span[0], span[1]))).text;
        for (const a of textToolCalls(text)?.actions ?? []) actions.push({ id: a.callId, kind: a.kind });
        fromText = actions.length > 0;
      }
      for (const a of actions) conv.addAction(step, a.kind, a.id, fromText);
    } else if (r === 'tool' || r === 'function' || r === 'ipython' || r === 'observation' || r === 'environment') conv.observe(toolCallId);
    else conv.add(false);
    return end;
  });

  const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  const explicitId = f.id ?? f.rollout_id ?? f.trajectory_id ?? f.request_id;
  const explicitGroup = f.uid ?? f.group_id ?? f.group_uid ?? f.prompt_id;
  const reward = typeof f.reward === 'number' ? f.reward : typeof score === 'number' ? score : null;
  const resolved = typeof f.resolved === 'boolean' ? f.resolved : typeof f.is_correct === 'boolean' ? f.is_correct : resolvedFromReward(reward);
  return {
    baseId: str(explicitId) ?? `${file}:${line}`,
    taskId: str(f.instance_id ?? f.task_id),
    groupId: str(explicitGroup) ?? promptGroup(chatPromptText(prompt as Parameters<typeof chatPromptText>[0])),
    reward,
    resolved,
    steps: conv.steps.length,
  };
};

FAST_SUMMARIZERS['openai-chat'] = chatRowSummary;

const PB_KEYS = new KeySet(['id', 'generator', 'problem', 'steps', 'final_answer_correct', 'label']);

/**
 * ProcessBench items (`processbench`; processBench.ts `pbRollout`): id and task `id`, resolved
 * `final_answer_correct`, steps = the problem + one per entry of `steps`; no group, no reward.
 * Checks what the loader's schema checks (ProcessBenchItem, `label` in −1…n−1); an item without an
 * `id` (its id is its ordinal in the file, which the scan does not know) goes to the loader.
 */
export const processBenchSummary: RowSummarizer = (b, _file, _line, out) => {
  const f: Record<string, unknown> = {};
  let steps = -1;
  let stepsOk = true;
  const start = b.indexOf(123);
  const rowEnd = forEachMember(b, start < 0 ? 0 : start, (ks, ke, vs) => {
    const k = PB_KEYS.match(b, ks, ke);
    if (k === null) return -1;
    if (k === 'steps') {
      if (byteAt(b, vs) !== 91) {
        stepsOk = false;
        return -1;
      }
      steps = 0;
      stepsOk = true;
      return forEachItem(b, vs, (is) => {
        steps++;
        if (byteAt(b, is) !== 34) stepsOk = false;
        return -1;
      });
    }
    const ve = valueEnd(b, vs);
    if (k === 'problem') f.problem = byteAt(b, vs) === 34 ? '' : null; // only its type matters
    else f[k] = readScalar(b, vs, ve);
    return ve;
  });
  if (out) out.end = rowEnd;
  const id = f.id;
  if (typeof id !== 'string' && typeof id !== 'number') throw new Error('no id');
  if (f.problem !== '' || !stepsOk || steps < 0) throw new Error('not a ProcessBench item');
  if (f.generator !== undefined && f.generator !== null && typeof f.generator !== 'string') throw new Error('unexpected generator');
  const fac = f.final_answer_correct;
  if (fac !== undefined && fac !== null && typeof fac !== 'boolean') throw new Error('unexpected final_answer_correct');
  const label = f.label;
  if (typeof label !== 'number' || !Number.isInteger(label) || label < -1 || label >= steps) throw new Error('unexpected label');
  return { baseId: String(id), taskId: String(id), groupId: null, reward: null, resolved: typeof fac === 'boolean' ? fac : null, steps: 1 + steps };
};

FAST_SUMMARIZERS.processbench = processBenchSummary;
