/**
 * The steps of an Inspect AI sample: its messages mapped to steps, with the model, tool and sandbox
 * events of the sample's transcript joined to them (times, tokens, exit codes). Mapping: module docs
 * of inspect.ts.
 *
 * This module never imports `vscode`.
 */
import { makeStep, type Action, type Observation, type SourceRange, type Step, type TokenCounts } from '../model';
import { resolveDeep, type AttachmentStats, type EventBase, type Message, type ModelEvent, type SandboxEvent, type SpanBegin, type ToolEvent } from './inspectLog';
import { isObject, maybeJson, num, secondsBetween, str } from './util';

// ---------------------------------------------------------------------------------------------
// Messages → steps

const THINK_RE = /^\s*<think>([\s\S]*?)<\/think>\s*/;
const TRUNCATION_RE = /The output of your call to \S+ was too long to be displayed\.\s*\nHere is a truncated version:/;

interface ContentParts {
  text: string;
  reasoning: string[];
  toolUses: Record<string, unknown>[];
}

/** Splits message content into visible text, reasoning and server-side tool uses. */
export function splitContent(content: unknown, assistant: boolean): ContentParts {
  const out: ContentParts = { text: '', reasoning: [], toolUses: [] };
  if (typeof content === 'string') {
    const m = assistant ? THINK_RE.exec(content) : null;
    if (m) {
      out.reasoning.push(m[1].trim());
      out.text = content.slice(m[0].length);
    } else out.text = content;
    return out;
  }
  if (!Array.isArray(content)) return out;
  const texts: string[] = [];
  for (const p of content) {
    if (!isObject(p)) continue;
    switch (p.type) {
      case 'text':
        if (typeof p.text === 'string') texts.push(p.text);
        break;
      case 'reasoning': {
        const r = p.redacted === true ? str(p.summary) : (str(p.reasoning) ?? str(p.summary));
        if (r && r.trim()) out.reasoning.push(r);
        break;
      }
      case 'tool_use':
        out.toolUses.push(p);
        break;
      case 'data':
        break;
      default:
        if (typeof p.type === 'string') texts.push(`[${p.type}]`);
    }
  }
  out.text = texts.join('\n');
  return out;
}

/** Action for an Inspect tool call (see the module comment for the mapping). */
function actionOf(fn: string, rawArgs: unknown, callId: string | null): Action {
  const parsed = typeof rawArgs === 'string' ? maybeJson(rawArgs) : rawArgs;
  const args = isObject(parsed) ? parsed : null;
  const base = { tool: fn, arguments: parsed === undefined ? rawArgs : parsed, callId };
  if (fn === 'bash' && args && typeof args.cmd === 'string') return { kind: 'shell', command: args.cmd, ...base };
  if (fn === 'submit') return { kind: 'finish', command: null, ...base };
  if (fn === 'text_editor' && args && typeof args.command === 'string' && args.command !== 'view') {
    return { kind: 'file_edit', command: null, path: str(args.path), ...base };
  }
  return { kind: 'tool', command: null, ...base };
}

/** Seconds an event took: its `working_time`, else (model events) `output.time`, else `completed − timestamp`. */
function eventSeconds(ev: { working_time?: number | null; completed?: string | null; timestamp?: string | null; output?: unknown }): number | null {
  if (typeof ev.working_time === 'number') return ev.working_time;
  const t = isObject(ev.output) ? num(ev.output.time) : null;
  if (t !== null) return t;
  return secondsBetween(ev.timestamp ?? null, ev.completed ?? null);
}

/** Event indexes used to enrich the message steps. */
interface EventIndex {
  /** Timestamp of the first event in which a message id appears (sample_init state, state changes, model input). */
  firstSeen: Map<string, string>;
  modelByMessageId: Map<string, ModelEvent>;
  modelEvents: ModelEvent[];
  toolById: Map<string, ToolEvent>;
  execsByCall: Map<string, SandboxEvent[]>;
  execTotal: number;
}

/** Finds each tool call's sandbox exec events (see the module comment for the span rules). */
function indexEvents(events: EventBase[]): EventIndex {
  const idx: EventIndex = { firstSeen: new Map(), modelByMessageId: new Map(), modelEvents: [], toolById: new Map(), execsByCall: new Map(), execTotal: 0 };
  const spans = new Map<string, SpanBegin>();
  const tools: ToolEvent[] = [];
  const execs: SandboxEvent[] = [];
  for (const ev of events) {
    noteMessageIds(ev, idx.firstSeen);
    if (ev.event === 'model') {
      const m = ev as ModelEvent;
      idx.modelEvents.push(m);
      const id = m.output?.choices?.[0]?.message?.id;
      if (id) idx.modelByMessageId.set(id, m);
    } else if (ev.event === 'tool') {
      const t = ev as ToolEvent;
      tools.push(t);
      idx.toolById.set(t.id, t);
    } else if (ev.event === 'span_begin') {
      const s = ev as SpanBegin;
      spans.set(s.id, s);
    } else if (ev.event === 'sandbox' && (ev as SandboxEvent).action === 'exec') {
      execs.push(ev as SandboxEvent);
    }
  }
  idx.execTotal = execs.length;
  // Tool span of each call: (a) the tool event sits inside it; (b) it opens beside the tool event.
  const spanToCall = new Map<string, string>();
  const claimed = new Set<string>();
  const inOwnSpan = new Map<string, number>();
  for (const t of tools) if (t.span_id) inOwnSpan.set(t.span_id, (inOwnSpan.get(t.span_id) ?? 0) + 1);
  const pending: ToolEvent[] = [];
  for (const t of tools) {
    const s = t.span_id ? spans.get(t.span_id) : undefined;
    if (s && s.type === 'tool' && s.name === t.function && inOwnSpan.get(s.id) === 1) {
      spanToCall.set(s.id, t.id);
      claimed.add(s.id);
    } else pending.push(t);
  }
  const key = (parent: string | null | undefined, name: string | null | undefined) => `${parent ?? ''}\u0000${name ?? ''}`;
  const callsByKey = new Map<string, ToolEvent[]>();
  for (const t of pending) {
    const k = key(t.span_id, t.function);
    callsByKey.set(k, [...(callsByKey.get(k) ?? []), t]);
  }
  const spansByKey = new Map<string, SpanBegin[]>();
  for (const s of spans.values()) {
    if (s.type !== 'tool' || claimed.has(s.id)) continue;
    const k = key(s.parent_id, s.name);
    spansByKey.set(k, [...(spansByKey.get(k) ?? []), s]);
  }
  for (const [k, calls] of callsByKey) {
    const ss = spansByKey.get(k);
    if (ss && ss.length === calls.length) ss.forEach((s, i) => spanToCall.set(s.id, calls[i].id));
  }
  const push = (callId: string, e: SandboxEvent) => idx.execsByCall.set(callId, [...(idx.execsByCall.get(callId) ?? []), e]);
  for (const e of execs) {
    let s = e.span_id ?? null;
    for (let hops = 0; s && hops < 1000; hops++) {
      const call = spanToCall.get(s);
      if (call) {
        push(call, e);
        break;
      }
      s = spans.get(s)?.parent_id ?? null;
    }
  }
  // Logs older than spans: the execs nest in the tool event's own transcript.
  for (const t of tools) {
    if (idx.execsByCall.has(t.id) || !Array.isArray(t.events)) continue;
    for (const n of t.events) {
      if (isObject(n) && n.event === 'sandbox' && n.action === 'exec') {
        idx.execTotal++;
        push(t.id, { event: 'sandbox', action: 'exec', cmd: str(n.cmd), result: num(n.result), output: str(n.output), timestamp: str(n.timestamp) });
      }
    }
  }
  return idx;
}

const MESSAGE_PATH_RE = /^\/messages\/\d+$/;
const MESSAGE_ID_PATH_RE = /^\/messages\/\d+\/id$/;

/**
 * Records when message ids enter the conversation: `sample_init` state messages, `state` event
 * changes that add a message (`/messages/<n>`) or set its id (`/messages/<n>/id`), model inputs
 * and outputs. First occurrence wins.
 */
function noteMessageIds(ev: EventBase, seen: Map<string, string>): void {
  const ts = ev.timestamp;
  if (!ts) return;
  const see = (id: unknown) => {
    if (typeof id === 'string' && !seen.has(id)) seen.set(id, ts);
  };
  const raw = ev as Record<string, unknown>;
  if (ev.event === 'sample_init' && isObject(raw.state) && Array.isArray(raw.state.messages)) {
    for (const m of raw.state.messages) if (isObject(m)) see(m.id);
  } else if (ev.event === 'state' && Array.isArray(raw.changes)) {
    for (const c of raw.changes) {
      if (!isObject(c) || typeof c.path !== 'string') continue;
      if (MESSAGE_PATH_RE.test(c.path) && isObject(c.value)) see(c.value.id);
      else if (MESSAGE_ID_PATH_RE.test(c.path)) see(c.value);
    }
  } else if (ev.event === 'model') {
    if (Array.isArray(raw.input)) for (const m of raw.input) if (isObject(m)) see(m.id);
  }
}

/** Exit code of a call from its sandbox execs: the only one, or the only one whose cmd holds the shell command. */
function exitCodeOf(execs: SandboxEvent[] | undefined, command: string | null): number | null {
  if (!execs?.length) return null;
  let pick: SandboxEvent | undefined;
  if (execs.length === 1) pick = execs[0];
  else if (command) {
    const m = execs.filter((e) => typeof e.cmd === 'string' && e.cmd.includes(command));
    if (m.length === 1) pick = m[0];
  }
  const r = pick?.result;
  return typeof r === 'number' && Number.isInteger(r) ? r : null;
}

function tokensOf(m: ModelEvent | undefined): TokenCounts | null {
  const u = m?.output?.usage;
  if (!u) return null;
  return { prompt: u.input_tokens ?? null, completion: u.output_tokens ?? null, cached: u.input_tokens_cache_read ?? null };
}

/** Facts gathered while building the steps. */
export interface BuildInfo {
  attachments: AttachmentStats;
  execTotal: number;
  execMatched: number;
  modelEventsMatched: number;
  modelEvents: number;
}

/** What identifies an assistant message's content: its content (attachments resolved) and tool call ids. */
function contentKey(m: unknown, lookup: (key: string) => string | undefined): string {
  if (!isObject(m)) return '';
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => (isObject(c) ? c.id : null)) : [];
  return JSON.stringify([resolveDeep(m.content ?? null, lookup, { resolved: 0, unresolved: 0 }), calls]);
}

/**
 * Model events of assistant messages without an id (logs before message ids, 2024): the first
 * unused model event, in order, whose output message has the same content and tool call ids.
 */
function matchByContent(messages: Message[], idx: EventIndex, lookup: (key: string) => string | undefined): Map<Message, ModelEvent> {
  const out = new Map<Message, ModelEvent>();
  const pending = messages.filter((m) => m.role === 'assistant' && !m.id);
  if (!pending.length) return out;
  const used = new Set<ModelEvent>();
  const keys = new Map<ModelEvent, string>();
  for (const ev of idx.modelEvents) keys.set(ev, contentKey(ev.output?.choices?.[0]?.message, lookup));
  for (const m of pending) {
    const k = contentKey(m, lookup);
    const ev = idx.modelEvents.find((e) => !used.has(e) && keys.get(e) === k);
    if (ev) {
      used.add(ev);
      out.set(m, ev);
    }
  }
  return out;
}

/**
 * Builds the steps of one sample from its (attachment-resolved) messages and events.
 * @param rangeOf source range of message k, or null
 */
export function buildSteps(
  messages: Message[],
  events: EventBase[],
  rangeOf: (k: number) => SourceRange | null,
  lookup: (key: string) => string | undefined,
  info: BuildInfo,
): Step[] {
  const idx = indexEvents(events);
  info.execTotal = idx.execTotal;
  info.modelEvents = idx.modelEvents.length;
  const byContent = matchByContent(messages, idx, lookup);
  const steps: Step[] = [];
  const stepOfCall = new Map<string, Step>();
  const commandOfCall = new Map<string, string | null>();
  const matchedCalls = new Set<string>();

  const observe = (m: Message, callId: string | null, command: string | null): Observation => {
    const text = splitContent(m.content, false).text;
    const error = m.error ?? (m.tool_error ? { type: 'unknown', message: m.tool_error } : null);
    const output = error ? `${text && text !== error.message ? `${text}\n\n` : ''}Error (${error.type}): ${error.message}` : text;
    const tev = callId ? idx.toolById.get(callId) : undefined;
    const truncated = (tev?.truncated !== null && tev?.truncated !== undefined) || error?.type === 'output_limit' || TRUNCATION_RE.test(text);
    const execs = callId ? idx.execsByCall.get(callId) : undefined;
    const exitCode = exitCodeOf(execs, command);
    if (exitCode !== null && callId) matchedCalls.add(callId);
    return { callId, output, exitCode, truncated };
  };

  messages.forEach((m, k) => {
    const base = { sourceId: m.id ?? null, range: rangeOf(k) };
    if (m.role === 'system' || m.role === 'user') {
      const timestamp = m.id ? (idx.firstSeen.get(m.id) ?? null) : null;
      steps.push(makeStep(steps.length, m.role, { ...base, message: splitContent(m.content, false).text, timestamp }));
      return;
    }
    if (m.role === 'assistant') {
      const parts = splitContent(m.content, true);
      const reasoning = [...(m.reasoning ? [m.reasoning] : []), ...parts.reasoning];
      const actions: Action[] = (m.tool_calls ?? []).map((tc) => actionOf(tc.function, tc.arguments, tc.id));
      const observations: Observation[] = [];
      for (const u of parts.toolUses) {
        const id = str(u.id);
        actions.push(actionOf(str(u.name) ?? 'tool_use', u.arguments, id));
        const err = str(u.error);
        const result = str(u.result) ?? '';
        observations.push({ callId: id, output: err ? (result ? `${result}\n\nError: ${err}` : `Error: ${err}`) : result, exitCode: null, truncated: false });
      }
      const model = (m.id ? idx.modelByMessageId.get(m.id) : undefined) ?? byContent.get(m);
      if (model) info.modelEventsMatched++;
      let duration: number | null = null;
      if (model) {
        duration = eventSeconds(model);
        for (const tc of m.tool_calls ?? []) {
          const t = idx.toolById.get(tc.id);
          const s = t ? eventSeconds(t) : null;
          if (s !== null) duration = (duration ?? 0) + s;
        }
      }
      const step = makeStep(steps.length, 'agent', {
        ...base,
        message: parts.text,
        reasoning: reasoning.length ? reasoning.join('\n\n') : null,
        actions,
        observations,
        timestamp: model?.timestamp ?? null,
        durationSec: duration,
        tokens: tokensOf(model),
        costUsd: model?.output?.usage?.total_cost ?? null,
      });
      for (const a of actions) {
        if (a.callId) {
          stepOfCall.set(a.callId, step);
          commandOfCall.set(a.callId, a.command);
        }
      }
      steps.push(step);
      return;
    }
    // tool message
    const callId = typeof m.tool_call_id === 'string' ? m.tool_call_id : null;
    const owner = callId ? stepOfCall.get(callId) : undefined;
    const obs = observe(m, callId, callId ? (commandOfCall.get(callId) ?? null) : null);
    if (owner) {
      owner.observations.push(obs);
      return;
    }
    const tev = callId ? idx.toolById.get(callId) : undefined;
    steps.push(
      makeStep(steps.length, 'environment', {
        ...base,
        observations: [obs],
        timestamp: tev?.timestamp ?? (m.id ? (idx.firstSeen.get(m.id) ?? null) : null),
        durationSec: tev ? eventSeconds(tev) : null,
      }),
    );
  });
  info.execMatched = [...matchedCalls].reduce((n, c) => n + (idx.execsByCall.get(c)?.length ?? 0), 0);
  return steps;
}
