/**
 * The steps a Codex CLI session is read into (the base of the loader's reducer, codexCli.ts
 * `CodexReducer`): step drafts and how records extend them — one agent step per model response,
 * response items paired with the events that mirror them, calls joined to their outputs and end
 * events, token counts attributed to their model response, user items told from context — and the
 * drafts built into steps. The mapping decisions are in the module docs of codexCli.ts.
 *
 * This module never imports `vscode`.
 */
import type { z } from 'zod';
import { asWarning, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonPath } from '../json';
import { makeStep, type Action, type Observation, type Role, type SourceRange, type Step, type StepEvent, type TokenCounts } from '../model';
import { contextCwd, observationOf, userContextLabel, userRequestText, type CodexOutput } from './codexCliItems';
import type { ExecCommandEndSchema, PatchApplyEndSchema, TokenCountSchema, UsageSchema } from './codexCliRecords';
import { StepPublisher, unionRange } from './sessionStream';
import { shellCommand } from './toolCalls';
import { secondsBetween } from './util';


/** Where a record sits: its document, the path of the record inside it, its range and time. */
export interface Rec {
  doc: JsonDoc;
  /** Path of the record (`[]` for a JSONL line, `['items', i]` in a TypeScript-CLI file). */
  at: JsonPath;
  /** Path of the record's payload (`['payload']`, or `at` for bare items). */
  body: JsonPath;
  range: SourceRange | null;
  ts: string | null;
}

interface TextPart {
  text: string;
  item: boolean;
  event: boolean;
}

interface ThoughtPart {
  text: string;
  item: boolean;
  /** Texts of the item (summary + content entries) that events may mirror, and how many did. */
  slots: number;
  used: number;
}

export type DraftKind = 'agent' | 'user' | 'context' | 'system' | 'event' | 'environment';

export interface Draft {
  index: number;
  kind: DraftKind;
  role: Role;
  sourceId: string | null;
  timestamp: string | null;
  range: SourceRange | null;
  parts: TextPart[];
  thoughts: ThoughtPart[];
  actions: Action[];
  observations: Observation[];
  tokens: TokenCounts | null;
  event: StepEvent | null;
  endTs: string | null;
  /** User steps: a `user_message` event confirmed it as the user's input. */
  paired: boolean;
  /** User steps made from a `user_message` event whose item has not (yet) been read. */
  fromEvent: boolean;
}

interface CallRef {
  step: Draft;
  action: Action;
  obs: Observation | null;
  /** Where `obs` came from: an output item, or an end event standing in for it. */
  origin: 'item' | 'event' | null;
}

/** A step event of `kind` with `label`. */
export function notice(kind: StepEvent['kind'], label: string): StepEvent {
  return { kind, label };
}

/**
 * The step drafts of one Codex session and the operations that build them; the subclass
 * (codexCli.ts `CodexReducer`) reads the records and calls these.
 */
export abstract class CodexSteps {
  readonly issues: LocatedIssue[] = [];
  protected readonly steps: Draft[] = [];
  protected readonly publisher = new StepPublisher<Draft>((d, i) => this.build(d, i));
  private readonly calls = new Map<string, CallRef>();
  protected open: Draft | null = null;
  /** The latest agent step since the last user message (events may still pair with its items). */
  private recentAgent: Draft | null = null;
  /** A user step made from an event, waiting for its item. */
  private eventUser: Draft | null = null;
  /** User items not (yet) confirmed by a `user_message` event. */
  private unpairedUsers: Draft[] = [];
  private sawUserEvents = false;
  protected lastCompaction: Draft | null = null;
  protected pendingTokens: TokenCounts | null = null;
  private lastTotalKey: string | null = null;
  protected contextCwd: string | null = null;
  protected totalUsage: unknown = null;
  protected contextWindow: number | null = null;
  protected readonly callDurations: Record<string, number> = {};
  protected durationsChanged = false;

  // --- steps -------------------------------------------------------------------------------

  protected add(kind: DraftKind, role: Role, rec: Rec, fields: { text?: string; event?: StepEvent; sourceId?: string | null } = {}): Draft {
    const d: Draft = {
      index: this.steps.length,
      kind,
      role,
      sourceId: fields.sourceId ?? null,
      timestamp: rec.ts,
      range: rec.range,
      parts: fields.text !== undefined ? [{ text: fields.text, item: true, event: false }] : [],
      thoughts: [],
      actions: [],
      observations: [],
      tokens: null,
      event: fields.event ?? null,
      endTs: null,
      paired: false,
      fromEvent: false,
    };
    this.steps.push(d);
    this.publisher.touch(d.index);
    return d;
  }

  /** A record kept raw (it does not conform, or its type is unknown): an `unknown_record` step showing the record's text. */
  protected rawStep(rec: Rec, what: string): void {
    this.close();
    const text = rec.at.length === 0 ? rec.doc.text : JSON.stringify(rec.doc.get(rec.at));
    this.add('event', 'system', rec, { event: notice('unknown_record', `Unread record: ${what}`), text });
  }

  protected extend(d: Draft, rec: Rec): void {
    d.range = unionRange(d.range, rec.range);
    d.timestamp ??= rec.ts;
    this.publisher.touch(d.index);
  }

  protected close(): void {
    this.open = null;
  }

  /** The agent step of the model response being read: the open one, else a new one. */
  private agentStep(rec: Rec, sourceId: string | null = null): Draft {
    this.eventUser = null;
    if (this.open) {
      this.extend(this.open, rec);
      if (sourceId !== null) this.open.sourceId ??= sourceId;
      return this.open;
    }
    const d = this.add('agent', 'agent', rec, { sourceId });
    if (this.pendingTokens) {
      d.tokens = this.pendingTokens;
      this.pendingTokens = null;
    }
    this.open = d;
    this.recentAgent = d;
    return d;
  }

  protected assistantItem(text: string, rec: Rec, id: string | null): void {
    const d = this.agentStep(rec, id);
    const part = d.parts.find((p) => p.event && !p.item);
    if (part) {
      part.text = text;
      part.item = true;
    } else {
      d.parts.push({ text, item: true, event: false });
    }
  }

  protected agentMessageEvent(text: string, rec: Rec): void {
    for (const d of [this.open, this.recentAgent]) {
      const part = d?.parts.find((p) => p.item && !p.event);
      if (d && part) {
        part.event = true;
        this.extend(d, rec);
        return;
      }
    }
    this.agentStep(rec).parts.push({ text, item: false, event: true });
  }

  protected reasoningItem(texts: string[], encrypted: boolean, rec: Rec, id: string | null): void {
    const d = this.agentStep(rec, id);
    const text = texts.length ? texts.join('\n\n') : encrypted ? '[encrypted reasoning]' : '';
    let at = -1;
    let used = 0;
    for (let i = 0; i < d.thoughts.length && used < texts.length; ) {
      if (!d.thoughts[i].item) {
        if (at < 0) at = i;
        d.thoughts.splice(i, 1);
        used++;
      } else {
        i++;
      }
    }
    if (text === '') return;
    const part: ThoughtPart = { text, item: true, slots: texts.length, used };
    if (at >= 0) d.thoughts.splice(at, 0, part);
    else d.thoughts.push(part);
  }

  protected reasoningEvent(text: string, rec: Rec): void {
    for (const d of [this.open, this.recentAgent]) {
      const part = d?.thoughts.find((p) => p.item && p.used < p.slots);
      if (d && part) {
        part.used++;
        this.extend(d, rec);
        return;
      }
    }
    this.agentStep(rec).thoughts.push({ text, item: false, slots: 0, used: 0 });
  }

  protected call(action: Action, rec: Rec, sourceId: string | null): void {
    const d = this.agentStep(rec, sourceId);
    d.actions.push(action);
    if (action.callId !== null) this.calls.set(action.callId, { step: d, action, obs: null, origin: null });
  }

  protected output(callId: string, out: CodexOutput, rec: Rec): void {
    this.close();
    if (out.durationSec !== null) {
      this.callDurations[callId] = out.durationSec;
      this.durationsChanged = true;
    }
    const obs = observationOf(callId, out);
    const ref = this.calls.get(callId);
    if (!ref) {
      this.issues.push(asWarning(rec.doc.issue([...rec.body, 'call_id'], 'the call_id of a call earlier in the session')));
      this.orphan(obs, rec);
      return;
    }
    if (ref.obs && ref.origin === 'event') {
      // The item replaces the end event's stand-in; a recorded exit code of the event stays.
      const i = ref.step.observations.indexOf(ref.obs);
      if (obs.exitCode === null || obs.exitCodeFrom === 'text') {
        if (ref.obs.exitCode !== null && ref.obs.exitCodeFrom === undefined) {
          obs.exitCode = ref.obs.exitCode;
          delete obs.exitCodeFrom;
        }
      }
      if (ref.obs.isError && !obs.isError) obs.isError = true;
      ref.step.observations[i] = obs;
    } else {
      ref.step.observations.push(obs);
    }
    ref.obs = obs;
    ref.origin = 'item';
    this.answered(ref, rec);
  }

  private answered(ref: CallRef, rec: Rec): void {
    ref.step.endTs = rec.ts ?? ref.step.endTs;
    this.extend(ref.step, rec);
  }

  /** An output whose call is not in the file: an environment step of its own. */
  private orphan(obs: Observation, rec: Rec): void {
    const d = this.add('environment', 'environment', rec);
    d.observations.push(obs);
  }

  protected patchApplyEnd(e: z.infer<typeof PatchApplyEndSchema>, rec: Rec): void {
    const text = [e.stdout ?? '', e.stderr ?? ''].filter((t) => t !== '').join('\n');
    const obs: Observation = { callId: e.call_id, output: text, exitCode: null, truncated: false };
    if (e.success === false) obs.isError = true;
    const ref = this.calls.get(e.call_id);
    if (!ref) {
      this.close();
      this.issues.push(asWarning(rec.doc.issue([...rec.body, 'call_id'], 'the call_id of an apply_patch call earlier in the session')));
      this.orphan(obs, rec);
      return;
    }
    if (!ref.obs) {
      ref.step.observations.push(obs);
      ref.obs = obs;
      ref.origin = 'event';
    } else if (e.success === false && !ref.obs.isError) {
      ref.obs.isError = true;
    }
    this.answered(ref, rec);
  }

  protected execCommandEnd(e: z.infer<typeof ExecCommandEndSchema>, rec: Rec): void {
    const text = e.aggregated_output ?? e.formatted_output ?? [e.stdout ?? '', e.stderr ?? ''].filter((t) => t !== '').join('\n');
    const obs: Observation = { callId: e.call_id, output: text, exitCode: e.exit_code ?? null, truncated: false };
    const ref = this.calls.get(e.call_id);
    if (!ref) {
      this.close();
      if (e.source === 'user_shell') {
        // The user's own `!command`.
        const d = this.add('user', 'user', rec);
        d.actions.push({ kind: 'shell', command: e.command ? shellCommand({ command: e.command }) : null, tool: 'user_shell', callId: e.call_id });
        d.observations.push(obs);
        return;
      }
      this.issues.push(asWarning(rec.doc.issue([...rec.body, 'call_id'], 'the call_id of a shell call earlier in the session')));
      this.orphan(obs, rec);
      return;
    }
    if (!ref.obs) {
      ref.step.observations.push(obs);
      ref.obs = obs;
      ref.origin = 'event';
    } else if ((ref.obs.exitCode === null || ref.obs.exitCodeFrom === 'text') && e.exit_code !== null && e.exit_code !== undefined) {
      ref.obs.exitCode = e.exit_code;
      delete ref.obs.exitCodeFrom;
    }
    this.answered(ref, rec);
  }

  protected tokenCount(t: z.infer<typeof TokenCountSchema>, rec: Rec): void {
    let last: z.infer<typeof UsageSchema> | null | undefined;
    if (t.info) {
      const key = t.info.total_token_usage ? JSON.stringify(t.info.total_token_usage) : null;
      if (key !== null && key === this.lastTotalKey) return; // the same count again
      this.lastTotalKey = key;
      if (t.info.total_token_usage) this.totalUsage = t.info.total_token_usage;
      if (typeof t.info.model_context_window === 'number') this.contextWindow = t.info.model_context_window;
      last = t.info.last_token_usage;
    } else if (typeof t.input_tokens === 'number' || typeof t.output_tokens === 'number') {
      last = t;
    }
    if (!last) return; // rate limits only, or a total without the turn's usage
    const tokens: TokenCounts = { prompt: last.input_tokens ?? null, completion: last.output_tokens ?? null, cached: last.cached_input_tokens ?? null };
    if (this.open && !this.open.tokens) {
      this.open.tokens = tokens;
      this.extend(this.open, rec);
    } else {
      this.pendingTokens = tokens;
    }
  }

  protected systemItem(text: string, rec: Rec, role: string): void {
    this.close();
    this.add('system', role === 'developer' || role === 'system' ? 'system' : 'environment', rec, { text, sourceId: role === 'developer' || role === 'system' ? null : role });
  }

  protected userItem(text: string, rec: Rec): void {
    this.close();
    this.recentAgent = null;
    if (text.trimStart().startsWith('<turn_aborted>')) {
      this.add('event', 'system', rec, { event: notice('interrupted', 'Turn aborted'), text });
      return;
    }
    const label = userContextLabel(text);
    if (label) {
      if (!this.contextCwd && label === 'Environment context') this.contextCwd = contextCwd(text);
      this.add('context', 'system', rec, { text, event: notice('notice', label) });
      return;
    }
    const ev = this.eventUser;
    if (ev && ev === this.steps[this.steps.length - 1]) {
      // The event came first: the item takes its place.
      ev.parts = [{ text, item: true, event: true }];
      ev.fromEvent = false;
      this.eventUser = null;
      this.extend(ev, rec);
      return;
    }
    this.unpairedUsers.push(this.add('user', 'user', rec, { text }));
  }

  protected userEvent(message: string, rec: Rec): void {
    this.close();
    this.recentAgent = null;
    this.sawUserEvents = true;
    const list = this.unpairedUsers;
    let at = -1;
    for (let i = list.length - 1; i >= 0 && at < 0; i--) {
      const t = list[i].parts[0]?.text ?? '';
      if (t === message || userRequestText(t) === message.trim()) at = i;
    }
    if (at < 0) at = list.length - 1;
    if (at >= 0) {
      const d = list[at];
      d.paired = true;
      if (d.parts[0]) d.parts[0].event = true;
      this.extend(d, rec);
      // Earlier user items that no event confirmed are context the harness added.
      for (const u of list.slice(0, at)) {
        u.kind = 'context';
        u.role = 'system';
        u.event = notice('notice', 'Context (no user_message event)');
        this.publisher.touch(u.index);
      }
      list.splice(0, at + 1);
      return;
    }
    const d = this.add('user', 'user', rec, { text: message });
    d.parts[0] = { text: message, item: false, event: true };
    d.paired = true;
    d.fromEvent = true;
    this.eventUser = d;
  }

  // --- snapshot ----------------------------------------------------------------------------

  private build(d: Draft, index: number): Step {
    const reasoning = d.thoughts.map((t) => t.text).filter((t) => t !== '');
    const step = makeStep(index, d.role, {
      sourceId: d.sourceId,
      message: d.parts.map((p) => p.text).join('\n\n'),
      reasoning: reasoning.length ? reasoning.join('\n\n') : null,
      actions: d.actions.slice(),
      observations: d.observations.map((o) => ({ ...o })),
      timestamp: d.timestamp,
      durationSec: d.endTs ? secondsBetween(d.timestamp, d.endTs) : null,
      tokens: d.tokens,
      range: d.range,
    });
    if (d.event) step.event = d.event;
    return step;
  }

  /**
   * The first confirmed user request (with `user_message` events), else the first user step. The
   * loop stops at it (near the start of a session): a snapshot does not walk every step again.
   */
  protected instruction(): string | null {
    let first: Draft | null = null;
    for (const d of this.steps) {
      if (d.kind !== 'user' || d.actions.length !== 0) continue;
      if (!this.sawUserEvents || d.paired) {
        first = d;
        break;
      }
      first ??= d;
    }
    return first ? userRequestText(first.parts.map((p) => p.text).join('\n\n')) : null;
  }
}
