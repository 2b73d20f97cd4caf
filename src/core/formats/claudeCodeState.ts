/**
 * The state of a Claude Code transcript stream (the base of the loader's reader, claudeCode.ts
 * `ClaudeCodeStream`): the rollouts read so far (the session, its sidechains and subagents) and
 * their step builders, the subagent calls and what ties each to its transcript (agentIds, meta
 * files, sidechain prompts), the folder listings that tell whether a subagent file exists, and the
 * snapshot that turns it all into rollouts with their links. The mapping is in the module docs of
 * claudeCode.ts.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { formatIssue, type LocatedIssue } from '../errors';
import type { JsonDoc, JsonlLine } from '../json';
import { makeStep, unknownOutcome, type Action, type Observation, type Role, type Rollout, type RolloutLink, type Step, type StepEvent, type TokenCounts } from '../model';
import { AGENT_FILE, AGENT_META, SUBAGENT_TOOLS, UUID_NAME, type RecordEnvelope } from './claudeCodeRecords';
import type { FileAccess, StreamStart, StreamedRollout } from './types';
import { isObject, secondsBetween, str } from './util';

// ---------------------------------------------------------------------------------------------
// Rollout states

/** A step being read: the records that make it so far. */
export interface StepBuilder {
  index: number;
  role: Role;
  sourceId: string | number | null;
  texts: string[];
  thoughts: string[];
  /** Fixed message (non-agent steps); agent steps join `texts`. */
  message: string | null;
  actions: Action[];
  observations: Observation[];
  event: StepEvent | null;
  firstTs: string | null;
  lastTs: string | null;
  records: number;
  start: number;
  end: number;
  tokens: TokenCounts | null;
  cost: number | null;
  /** Subagent calls of this step, by call id. */
  calls: string[];
}

/** A tool call of a step (tool_use), its result and, for a subagent call, its subagent. */
export interface CallInfo {
  rollout: RolloutState;
  step: number;
  name: string;
  input: unknown;
  line: number;
  /** Set when the result has arrived. */
  answered: boolean;
  /** Subagent calls: what ties the call to its subagent. */
  agentId: string | null;
  agentIdLine: number | null;
  /** The listing generation that must complete before a missing file counts as missing. */
  listGen: number;
  child: RolloutState | null;
  warned: boolean;
}

/** A rollout being read: the session, a sidechain or a subagent in the file. */
export interface RolloutState {
  id: string;
  agentId: string | null;
  steps: StepBuilder[];
  cache: (Step | undefined)[];
  dirtyFrom: number;
  byMessage: Map<string, StepBuilder>;
  calls: Map<string, CallInfo>;
  parentCall: CallInfo | null;
  sessionIds: string[];
  versions: string[];
  models: string[];
  cwd: string | null;
  gitBranch: string | null;
  slug: string | null;
  permissionMode: string | null;
}

/** An `agent-<id>.meta.json` of the subagents folder. */
export interface AgentMeta {
  toolUseId: string | null;
  agentType: string | null;
  description: string | null;
}

/**
 * What a Claude Code transcript stream has read (see the module docs) and its snapshot; the
 * subclass (claudeCode.ts `ClaudeCodeStream`) reads the records into it. The constructor starts
 * the folder listings; `settle()` waits for them.
 */
export abstract class ClaudeCodeState {
  readonly issues: LocatedIssue[] = [];
  protected readonly file: string;
  private readonly files: FileAccess;
  protected readonly parseLine: (l: JsonlLine) => JsonDoc;
  private readonly dir: string;
  private readonly base: string;
  /** Where this session's subagent transcripts are (2.1.x layout). */
  private readonly subagentsDir: string;
  /** The folder of the parent session file (for a subagent transcript in `<sid>/subagents/`). */
  private readonly parentDir: string;
  private readonly inSubagentsDir: boolean;

  private main: RolloutState | null = null;
  private readonly children: RolloutState[] = [];
  private readonly childByAgent = new Map<string, RolloutState>();
  /** Sidechains without an agentId seen so far (their ids are numbered). */
  private sidechains = 0;
  protected readonly uuidOwner = new Map<string, RolloutState>();
  protected readonly seenUuid = new Map<string, number>();
  protected readonly repeated: number[] = [];
  /** true when the file is itself a subagent transcript (records with isSidechain and agentId). */
  protected isSubagentFile: boolean | null = null;
  protected ownAgentId: string | null = null;
  private readonly mainId: string | null;
  private mainIdFixed = false;

  protected readonly records = new Map<string, number>();
  protected titles: { custom: string | null; ai: string | null; summary: string | null } = { custom: null, ai: null, summary: null };
  protected readonly summaries: { leafUuid: string | null; summary: string }[] = [];
  protected readonly queued: { line: number; timestamp: string | null; operation: string; content: string }[] = [];
  protected readonly userTexts = new Set<string>();
  /** Calls whose subagent is named by a progress record or meta file before the call is seen. */
  protected readonly agentIdByCall = new Map<string, { agentId: string; line: number | null }>();
  /** `agent-<id>.jsonl` of every agent a call of this file is tied to (kept as they are learnt: a snapshot does not walk every call). */
  private readonly linkedAgentFiles = new Set<string>();
  private readonly meta = new Map<string, AgentMeta>();
  protected readonly pendingPrompts: CallInfo[] = [];

  // Folder listings (async): subagent files, files beside this one, files beside the parent.
  private subNames: Set<string> | null = null;
  private sibNames: Set<string> | null = null;
  private parentNames: Set<string> | null = null;
  protected listStarted = 0;
  private listDone = -1;
  private listing: Promise<void> | null = null;
  private relistWanted = false;

  constructor(start: StreamStart) {
    this.file = path.resolve(start.path);
    this.files = start.files;
    this.parseLine = start.parseLine;
    this.dir = path.dirname(this.file);
    this.base = path.basename(this.file).replace(/\.jsonl$/i, '');
    this.inSubagentsDir = path.basename(this.dir) === 'subagents';
    this.subagentsDir = this.inSubagentsDir ? this.dir : path.join(this.dir, this.base, 'subagents');
    this.parentDir = this.inSubagentsDir ? path.dirname(path.dirname(this.dir)) : this.dir;
    this.mainId = !this.inSubagentsDir && UUID_NAME.test(this.base) ? this.base : null;
    this.startListing();
  }

  // -- folder listings ------------------------------------------------------------------------

  private startListing(): void {
    if (this.listing) {
      this.relistWanted = true;
      return;
    }
    const gen = this.listStarted++;
    this.listing = (async () => {
      const [sub, sib, par] = await Promise.all([
        this.files.list(this.subagentsDir),
        this.files.list(this.dir),
        this.inSubagentsDir ? this.files.list(this.parentDir) : Promise.resolve(null),
      ]);
      for (const name of sub) {
        const m = AGENT_META.exec(name);
        if (!m || this.meta.has(m[1])) continue;
        const text = await this.files.readText(path.join(this.subagentsDir, name));
        let v: unknown = null;
        try {
          v = text === null ? null : JSON.parse(text);
        } catch {
          v = null;
        }
        const info: AgentMeta = isObject(v)
          ? { toolUseId: str(v.toolUseId), agentType: str(v.agentType), description: str(v.description) }
          : { toolUseId: null, agentType: null, description: null };
        this.meta.set(m[1], info);
        if (info.toolUseId) this.learnAgentId(info.toolUseId, m[1], null);
      }
      this.subNames = new Set(sub);
      this.sibNames = new Set(sib);
      this.parentNames = par ? new Set(par) : this.sibNames;
      this.listDone = gen;
      this.listing = null;
      // Every subagent link may now resolve (found or missing).
      for (const r of this.rollouts()) for (const c of r.calls.values()) if (SUBAGENT_TOOLS.has(c.name)) this.touch(r, c.step);
      if (this.relistWanted) {
        this.relistWanted = false;
        this.startListing();
      }
    })().catch(() => {
      this.listDone = gen;
      this.listing = null;
    });
  }

  /** Resolves when no folder listing is running or wanted (load() waits for it before its snapshot). */
  async settle(): Promise<void> {
    while (this.listing) await this.listing;
  }

  // -- rollout states -------------------------------------------------------------------------

  private newRollout(id: string): RolloutState {
    return {
      id,
      agentId: null,
      steps: [],
      cache: [],
      dirtyFrom: Infinity,
      byMessage: new Map(),
      calls: new Map(),
      parentCall: null,
      sessionIds: [],
      versions: [],
      models: [],
      cwd: null,
      gitBranch: null,
      slug: null,
      permissionMode: null,
    };
  }

  private rollouts(): RolloutState[] {
    return this.main ? [this.main, ...this.children] : [...this.children];
  }

  /**
   * The main rollout. Its id is fixed by the first record that can give it: the file name when it
   * is a session id, else the first `sessionId` (`<sessionId>/agent-<agentId>` for a subagent
   * transcript); until then (bookkeeping records without a sessionId) it is the file's path.
   */
  protected mainState(rec: RecordEnvelope | null): RolloutState {
    if (!this.main) this.main = this.newRollout(this.mainId ?? this.file);
    if (!this.mainIdFixed && rec) {
      const sid = rec.sessionId ?? null;
      if (this.isSubagentFile) {
        const s = sid ?? (this.inSubagentsDir ? path.basename(path.dirname(this.dir)) : null);
        if (s) this.main.id = `${s}/agent-${this.ownAgentId ?? this.base}`;
        this.main.agentId = this.ownAgentId;
        this.mainIdFixed = s !== null;
      } else if (this.mainId) {
        this.main.id = this.mainId;
        this.mainIdFixed = true;
      } else if (sid) {
        this.main.id = sid;
        this.mainIdFixed = true;
      }
    }
    return this.main;
  }

  /** The child rollout of a sidechain record of a main file. */
  protected childState(rec: RecordEnvelope): RolloutState {
    const main = this.mainState(rec);
    const owner = rec.parentUuid ? this.uuidOwner.get(rec.parentUuid) : undefined;
    const chained = owner && owner !== main ? owner : undefined;
    if (rec.agentId) {
      const known = this.childByAgent.get(rec.agentId);
      if (known) return known;
      // A sidechain that continues one without an agentId yet takes this agentId (its id stays).
      let c = chained && chained.agentId === null ? chained : undefined;
      if (!c) {
        c = this.newRollout(`${main.id}/agent-${rec.agentId}`);
        this.children.push(c);
      }
      c.agentId = rec.agentId;
      this.childByAgent.set(rec.agentId, c);
      for (const r of this.rollouts()) for (const call of r.calls.values()) if (call.agentId === rec.agentId) this.touch(r, call.step);
      return c;
    }
    if (chained) return chained;
    const c = this.newRollout(`${main.id}/sidechain-${++this.sidechains}`);
    this.children.push(c);
    return c;
  }

  private touch(r: RolloutState, index: number): void {
    if (index < r.dirtyFrom) r.dirtyFrom = index;
  }

  protected learnAgentId(callId: string, agentId: string, line: number | null): void {
    if (!this.agentIdByCall.has(callId)) this.agentIdByCall.set(callId, { agentId, line });
    for (const r of this.rollouts()) {
      const c = r.calls.get(callId);
      if (c && c.agentId === null) {
        c.agentId = agentId;
        this.linkedAgentFiles.add(`agent-${agentId}.jsonl`);
        c.agentIdLine = line ?? c.line;
        c.listGen = this.listStarted;
        if (!this.subNames?.has(`agent-${agentId}.jsonl`) && !this.sibNames?.has(`agent-${agentId}.jsonl`)) this.startListing();
        this.touch(r, c.step);
      }
    }
  }

  // -- issues ---------------------------------------------------------------------------------

  protected issue(i: LocatedIssue): void {
    this.issues.push(i);
  }

  /** An issue that leaves nothing out (shown raw, a missing linked file, a result without its call): a warning. */
  protected warn(i: LocatedIssue): void {
    this.issues.push({ ...i, severity: 'warning' });
  }

  protected lineIssue(l: JsonlLine, pointer: string | null, expected: string, found: string): LocatedIssue {
    return { file: this.file, line: l.line, column: 1, pointer, expected, found };
  }

  // -- steps ----------------------------------------------------------------------------------

  protected newStep(r: RolloutState, role: Role, l: JsonlLine, rec: RecordEnvelope, fields: Partial<StepBuilder> = {}): StepBuilder {
    const b: StepBuilder = {
      index: r.steps.length,
      role,
      sourceId: rec.uuid ?? null,
      texts: [],
      thoughts: [],
      message: null,
      actions: [],
      observations: [],
      event: null,
      firstTs: rec.timestamp ?? null,
      lastTs: rec.timestamp ?? null,
      records: 1,
      start: l.offset,
      end: l.offset + l.text.length,
      tokens: null,
      cost: null,
      calls: [],
      ...fields,
    };
    r.steps.push(b);
    r.cache.push(undefined);
    this.touch(r, b.index);
    return b;
  }

  /** Extends a step by one more record (a streamed block, a tool result). */
  protected extend(r: RolloutState, b: StepBuilder, l: JsonlLine, ts: string | null | undefined): void {
    b.records++;
    if (ts) {
      if (!b.firstTs) b.firstTs = ts;
      b.lastTs = ts;
    }
    b.start = Math.min(b.start, l.offset);
    b.end = Math.max(b.end, l.offset + l.text.length);
    this.touch(r, b.index);
  }

  // -- sidechain ties -------------------------------------------------------------------------

  /** Ties in-file sidechains without an agentId to the Task call whose prompt they start with. */
  private tieSidechains(): void {
    for (const c of this.children) {
      if (c.parentCall || c.agentId !== null) continue;
      const first = c.steps.find((s) => s.role === 'user' && s.event === null);
      if (!first || first !== c.steps[0]) continue;
      const text = (first.message ?? '').trim();
      for (let i = this.pendingPrompts.length - 1; i >= 0; i--) {
        const call = this.pendingPrompts[i];
        if (call.child || !isObject(call.input) || String(call.input.prompt).trim() !== text) continue;
        call.child = c;
        c.parentCall = call;
        this.pendingPrompts.splice(i, 1);
        this.touch(call.rollout, call.step);
        break;
      }
    }
    for (const c of this.children) {
      if (c.parentCall || c.agentId === null) continue;
      for (const r of this.rollouts()) {
        for (const call of r.calls.values()) {
          if (call.agentId === c.agentId && SUBAGENT_TOOLS.has(call.name)) {
            c.parentCall = call;
            call.child = c;
          }
        }
      }
    }
  }

  // -- links ----------------------------------------------------------------------------------

  private subagentLink(call: CallInfo, callId: string): RolloutLink {
    const input = isObject(call.input) ? call.input : {};
    const what = str(input.description) ?? str(input.subagent_type) ?? call.name;
    const label = `Subagent: ${what}`;
    const child = call.child ?? (call.agentId ? this.childByAgent.get(call.agentId) : undefined);
    if (child) return { relation: 'subagent', label, path: null, rolloutId: child.id, callId };
    const sessionId = this.main?.sessionIds[0] ?? this.mainId ?? this.base;
    if (call.agentId) {
      const name = `agent-${call.agentId}.jsonl`;
      const inSub = path.join(this.subagentsDir, name);
      const beside = path.join(this.dir, name);
      const rolloutId = `${sessionId}/agent-${call.agentId}`;
      if (this.subNames?.has(name)) return { relation: 'subagent', label, path: inSub, rolloutId, callId };
      if (!this.inSubagentsDir && this.sibNames?.has(name)) return { relation: 'subagent', label, path: beside, rolloutId, callId };
      if (this.listDone < call.listGen) return { relation: 'subagent', label, path: inSub, rolloutId, callId, missing: null };
      const missing = `no ${name} in ${this.subagentsDir}${this.inSubagentsDir ? '' : ` nor beside the session file`}`;
      if (!call.warned) {
        call.warned = true;
        this.warn({ file: this.file, line: call.agentIdLine ?? call.line, column: 1, pointer: null, expected: `the transcript of subagent ${call.agentId} (${inSub})`, found: 'no such file' });
      }
      return { relation: 'subagent', label, path: inSub, rolloutId, callId, missing };
    }
    // Without an agentId the call is unresolved for good once it is answered and the subagents
    // folder (meta files) has been read; unanswered, the subagent may still be running.
    if (call.answered && this.listDone >= 0 && this.listing === null) {
      const missing = 'the transcript does not say which subagent ran this call (no agentId, no sidechain starting with its prompt)';
      if (!call.warned) {
        call.warned = true;
        this.warn({ file: this.file, line: call.line, column: 1, pointer: null, expected: `the subagent transcript of ${call.name} call ${callId}`, found: 'none named (no agentId recorded, no sidechain with its prompt)' });
      }
      return { relation: 'subagent', label, path: null, rolloutId: null, callId, missing };
    }
    return { relation: 'subagent', label, path: null, rolloutId: null, callId, missing: 'no result and no agentId yet (the subagent may still be running)' };
  }

  private parentLinks(r: RolloutState): RolloutLink[] | undefined {
    if (r !== this.main) {
      if (!r.parentCall) return undefined;
      const pc = r.parentCall;
      return [{ relation: 'parent', label: 'Parent session', path: null, rolloutId: pc.rollout.id, stepIndex: pc.step, callId: [...pc.rollout.calls].find(([, c]) => c === pc)?.[0] ?? null }];
    }
    if (!this.isSubagentFile) return undefined;
    const sid = r.sessionIds[0] ?? (this.inSubagentsDir ? path.basename(path.dirname(this.dir)) : null);
    if (!sid) return undefined;
    const name = `${sid}.jsonl`;
    const p = path.join(this.parentDir, name);
    const meta = this.ownAgentId ? this.meta.get(this.ownAgentId) : undefined;
    const link: RolloutLink = { relation: 'parent', label: 'Parent session', path: p, rolloutId: sid, callId: meta?.toolUseId ?? null };
    if (this.parentNames && !this.parentNames.has(name)) link.missing = `no ${name} in ${this.parentDir}`;
    return [link];
  }

  // -- snapshot -------------------------------------------------------------------------------

  private materialize(r: RolloutState, b: StepBuilder): Step {
    let message = b.message ?? b.texts.join('\n\n');
    // An assistant message with no blocks at all is shown as such, never as an empty step.
    if (b.role === 'agent' && !message && !b.thoughts.length && !b.actions.length && !b.observations.length) message = '[empty assistant message]';
    const step = makeStep(b.index, b.role, {
      sourceId: b.sourceId,
      message,
      reasoning: b.thoughts.length ? b.thoughts.join('\n\n') : null,
      actions: b.actions.map((a) => ({ ...a })),
      observations: b.observations.map((o) => ({ ...o })),
      timestamp: b.firstTs,
      durationSec: b.records > 1 ? secondsBetween(b.firstTs, b.lastTs) : null,
      tokens: b.tokens,
      costUsd: b.cost,
      range: { start: b.start, end: b.end },
    });
    if (b.event) step.event = b.event;
    if (b.calls.length) step.links = b.calls.map((id) => this.subagentLink(r.calls.get(id) as CallInfo, id));
    return step;
  }

  private buildRollout(r: RolloutState, steps: Step[]): Rollout {
    const isMain = r === this.main;
    const instruction = steps.find((s) => s.role === 'user' && !s.event && s.message.trim() !== '')?.message ?? null;
    const metadata: Record<string, unknown> = {};
    if (r.gitBranch) metadata.gitBranch = r.gitBranch;
    if (isMain) {
      // A summary whose leaf is a record of this file names this session (1.x files also carry other sessions' summaries).
      const own = [...this.summaries].reverse().find((x) => x.leafUuid !== null && this.seenUuid.has(x.leafUuid));
      const title = this.titles.custom ?? this.titles.ai ?? own?.summary ?? this.titles.summary;
      if (title) metadata.title = title;
      if (this.summaries.length) metadata.summaries = this.summaries;
    }
    if (r.permissionMode) metadata.permissionMode = r.permissionMode;
    if (r.slug) metadata.slug = r.slug;
    if (r.sessionIds.length) metadata.sessionIds = r.sessionIds;
    if (r.versions.length > 1) metadata.versions = r.versions;
    if (r.models.length) metadata.models = r.models;
    if (r.agentId) metadata.agentId = r.agentId;
    const meta = r.agentId ? this.meta.get(r.agentId) : undefined;
    const pin = r.parentCall && isObject(r.parentCall.input) ? r.parentCall.input : null;
    const agentType = meta?.agentType ?? (pin ? str(pin.subagent_type) : null);
    const description = meta?.description ?? (pin ? str(pin.description) : null);
    if (agentType) metadata.subagentType = agentType;
    if (description) metadata.description = description;
    if (isMain) {
      metadata.records = Object.fromEntries(this.records);
      const pending = this.queued.filter((q) => !this.userTexts.has(q.content.trim()) && !q.content.trimStart().startsWith('<task-notification>'));
      if (pending.length) metadata.queuedMessages = pending;
      if (this.repeated.length) metadata.repeatedRecords = this.repeated;
      const unlinked = [...(this.subNames ?? [])].filter((n) => AGENT_FILE.test(n) && !this.linkedAgentFiles.has(n)).sort();
      if (unlinked.length && !this.inSubagentsDir) metadata.unlinkedSubagents = unlinked.map((n) => path.join(this.subagentsDir, n));
      if (this.issues.length) metadata.warnings = this.issues.map(formatIssue);
    }
    const out: Rollout = {
      id: r.id,
      format: 'claude-code',
      schemaVersion: null,
      source: { path: this.file, range: null, line: null },
      task: { id: null, instruction },
      agent: { name: 'claude-code', version: r.versions[0] ?? null, model: r.models[0] ?? null },
      environment: { image: null, workdir: r.cwd },
      outcome: unknownOutcome(),
      groupId: null,
      steps,
      metadata,
    };
    const links = this.parentLinks(r);
    if (links) out.links = links;
    return out;
  }

  snapshot(): StreamedRollout[] {
    this.tieSidechains();
    const rollouts = this.rollouts();
    // Steps first (materializing a link may add a warning), then the rollouts that list the warnings.
    const changed = rollouts.map((r) => {
      const from = Math.min(r.dirtyFrom, r.steps.length);
      for (let i = from; i < r.steps.length; i++) r.cache[i] = this.materialize(r, r.steps[i]);
      r.dirtyFrom = Infinity;
      return from;
    });
    return rollouts.map((r, i) => ({ rollout: this.buildRollout(r, r.cache.slice() as Step[]), changedFrom: changed[i] }));
  }
}
