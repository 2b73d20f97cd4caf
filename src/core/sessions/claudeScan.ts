/**
 * The Sessions list's reader of Claude Code transcripts (`~/.claude/projects/<encoded cwd>/<session
 * id>.jsonl`): the head (cwd, session id, start, title) and the counts (turns, tool calls, failed
 * tool calls, tokens) from one pass. Not a rollout loader (src/core/formats/claudeCode.ts is):
 * it reads only the fields the list shows.
 *
 * Format: records written by Claude Code (github.com/anthropics/claude-code; the transcript is
 * not documented as a format, see code.claude.com/docs/en/claude-directory for where it lives):
 * `{type: "user"|"assistant"|"system"|"progress"|"summary"|"custom-title"|…, cwd, sessionId,
 * version, gitBranch, isSidechain, isMeta, timestamp, message: {id, role, content, usage}}`.
 */
import { getIn, isObject, num, str } from '../formats/util';
import { commandText, requestText, shortTitle, stringFieldIn } from './text';
import type { SessionCounts, SessionHead, TitleSource } from './types';

type Rec = Record<string, unknown>;

/** The texts of a user message's content (a string, or its `text` blocks; tool results and images are not text). */
function userTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
}

/** True for user records a person did not type (meta records, compaction summaries, transcript-only notes). */
function notTyped(rec: Rec): boolean {
  return rec.isMeta === true || rec.isCompactSummary === true || rec.isVisibleInTranscriptOnly === true;
}

/** The title records of a transcript between passes (JSON; part of the counter's state). */
export interface TitleState {
  /** The latest `custom-title` record of this session (`/rename`). */
  customTitle: string | null;
  /** The latest `ai-title`, or `summary` whose leaf message is in this file. */
  summary: string | null;
  /** Summaries whose leaf was not seen yet (leafUuid, text), the latest PENDING_MAX. */
  pending: [string, string][];
  /** The latest record uuids seen (a summary written after its leaf, across a resume). */
  recentUuids: string[];
}

const PENDING_MAX = 32;
const RECENT_UUIDS = 64;

/**
 * Picks the title records that belong to this session. Claude Code appends `summary` records of
 * *other* sessions of the project to the transcript it is writing (each names its conversation's
 * last message, `leafUuid`); only a summary whose leaf is a record of this file is this session's.
 * `custom-title` and `ai-title` records carry a `sessionId` when they name one.
 */
class TitleRecords {
  private readonly uuids: Set<string>;

  constructor(readonly st: TitleState, private readonly sessionId: () => string | null) {
    this.uuids = new Set(st.recentUuids);
  }

  static empty(): TitleState {
    return { customTitle: null, summary: null, pending: [], recentUuids: [] };
  }

  take(rec: Rec): void {
    const st = this.st;
    const sid = this.sessionId();
    const own = typeof rec.sessionId !== 'string' || sid === null || rec.sessionId === sid;
    const type = rec.type;
    if (type === 'custom-title' && typeof rec.customTitle === 'string' && rec.customTitle.trim() && own) st.customTitle = rec.customTitle;
    else if (type === 'ai-title' && typeof rec.aiTitle === 'string' && rec.aiTitle.trim() && own) st.summary = rec.aiTitle;
    else if (type === 'summary' && typeof rec.summary === 'string' && rec.summary.trim() && typeof rec.leafUuid === 'string') {
      if (this.uuids.has(rec.leafUuid)) st.summary = rec.summary;
      else {
        st.pending = st.pending.filter(([leaf]) => leaf !== rec.leafUuid);
        st.pending.push([rec.leafUuid, rec.summary]);
        if (st.pending.length > PENDING_MAX) st.pending.shift();
      }
    }
    if (typeof rec.uuid === 'string') {
      this.uuids.add(rec.uuid);
      st.recentUuids.push(rec.uuid);
      if (st.recentUuids.length > RECENT_UUIDS) st.recentUuids.shift();
      if (st.pending.length) {
        const hit = st.pending.find(([leaf]) => leaf === rec.uuid);
        if (hit) {
          st.summary = hit[1];
          st.pending = st.pending.filter((p) => p !== hit);
        }
      }
    }
  }

  /** The title these records give, with its source, or nulls. */
  title(): [string | null, TitleSource | null] {
    if (this.st.customTitle) return [this.st.customTitle, 'custom-title'];
    if (this.st.summary) return [this.st.summary, 'summary'];
    return [null, null];
  }
}

/** Reads a transcript's head record by record (see SessionHead). */
export class ClaudeHead {
  private cwd: string | null = null;
  private sessionId: string | null = null;
  private startedAt: string | null = null;
  private version: string | null = null;
  private branch: string | null = null;
  private origin: string | null = null;
  private sawMessage = false;
  private sidechain = false;
  private request: string | null = null;
  private command: string | null = null;
  private readonly titles = new TitleRecords(TitleRecords.empty(), () => this.sessionId);

  /** Takes one record; true when the head is complete (cwd and the first request known, or a sidechain file). */
  take(rec: Rec): boolean {
    const type = rec.type;
    if (this.startedAt === null && typeof rec.timestamp === 'string') this.startedAt = rec.timestamp;
    if (this.cwd === null && typeof rec.cwd === 'string' && rec.cwd) {
      this.cwd = rec.cwd;
      this.sessionId = str(rec.sessionId);
      this.version = str(rec.version);
      this.branch = str(rec.gitBranch) || null;
      this.origin = str(rec.entrypoint);
    }
    if (this.sessionId === null && typeof rec.sessionId === 'string' && type !== 'custom-title' && type !== 'ai-title') this.sessionId = rec.sessionId;
    this.titles.take(rec);
    if ((type === 'user' || type === 'assistant') && !this.sawMessage) {
      this.sawMessage = true;
      this.sidechain = rec.isSidechain === true;
      if (this.sidechain) return true;
    }
    if (type === 'user' && rec.isSidechain !== true && !notTyped(rec) && this.request === null) {
      for (const t of userTexts(getIn(rec, 'message', 'content'))) {
        const r = requestText(t);
        if (r) {
          this.request = r;
          break;
        }
        this.command ??= commandText(t);
      }
    }
    return this.cwd !== null && this.request !== null;
  }

  /** Takes the start of a line cut by the head budget (a pasted image, a huge first prompt): its leading fields. */
  partial(piece: string): void {
    if (this.cwd === null) {
      const cwd = stringFieldIn(piece, 'cwd');
      if (cwd) {
        this.cwd = cwd;
        this.sessionId ??= stringFieldIn(piece, 'sessionId');
        this.version ??= stringFieldIn(piece, 'version');
        this.branch ??= stringFieldIn(piece, 'gitBranch') || null;
      }
    }
    // Claude Code writes `type` before `message` on user records.
    const typeAt = piece.indexOf('"type":"user"');
    const msgAt = piece.indexOf('"message":');
    if (this.request === null && typeAt >= 0 && msgAt > typeAt && !/"isSidechain":true/.test(piece.slice(0, msgAt))) {
      const c = stringFieldIn(piece.slice(msgAt), 'content') ?? stringFieldIn(piece.slice(msgAt), 'text');
      if (c) this.request = requestText(c);
    }
    if (this.startedAt === null) this.startedAt = stringFieldIn(piece, 'timestamp');
  }

  result(bytes: number): SessionHead {
    const recorded = this.titles.title();
    const [title, titleFrom]: [string | null, TitleSource | null] = recorded[0] !== null
      ? recorded
      : this.request
        ? [this.request, 'first-request']
        : this.command
          ? [this.command, 'command']
          : [null, null];
    return {
      format: 'claude-code',
      sessionId: this.sessionId,
      cwd: this.cwd,
      cwdFrom: this.cwd !== null ? 'record' : null,
      title: title !== null ? shortTitle(title) : null,
      titleFrom,
      startedAt: this.startedAt,
      cliVersion: this.version,
      gitBranch: this.branch,
      origin: this.origin,
      sidechain: this.sidechain,
      headBytes: bytes,
    };
  }
}

interface Usage {
  i: number;
  o: number;
  c: number;
}

/** The counter's state between passes (JSON; kept in the cache so an appended file is read from where it ended). */
export interface ClaudeCountState {
  turns: number;
  toolCalls: number;
  failed: number;
  tokens: Usage | null;
  /** The latest assistant message ids with their usage (counted once, replaced by later records of the id) and tool_use ids. */
  recent: { id: string; u: Usage | null; tools: string[] }[];
  titles: TitleState;
  lastActivityAt: string | null;
  badLines: number;
}

const RECENT = 8;

function usageOf(u: unknown): Usage | null {
  if (!isObject(u)) return null;
  const i = (num(u.input_tokens) ?? 0) + (num(u.cache_creation_input_tokens) ?? 0) + (num(u.cache_read_input_tokens) ?? 0);
  return { i, o: num(u.output_tokens) ?? 0, c: num(u.cache_read_input_tokens) ?? 0 };
}

/** Counts a transcript record by record (rules: SessionCounts). */
export class ClaudeCounter {
  private s: ClaudeCountState;
  private readonly titles: TitleRecords;

  /**
   * @param sidechainFile true for a subagent's own transcript (every record `isSidechain: true`):
   *   its records are counted; in a session's transcript sidechain records are not
   * @param sessionId the session's id (title records naming another session are not its own)
   * @param state the state a previous pass ended with (resume), else a fresh count
   */
  constructor(private readonly sidechainFile = false, sessionId: string | null = null, state?: ClaudeCountState) {
    this.s = state ? structuredClone(state) : { turns: 0, toolCalls: 0, failed: 0, tokens: null, recent: [], titles: TitleRecords.empty(), lastActivityAt: null, badLines: 0 };
    this.titles = new TitleRecords(this.s.titles, () => sessionId);
  }

  bad(): void {
    this.s.badLines++;
  }

  take(rec: Rec): void {
    const s = this.s;
    if (typeof rec.timestamp === 'string') s.lastActivityAt = rec.timestamp;
    const type = rec.type;
    this.titles.take(rec);
    if ((rec.isSidechain === true) !== this.sidechainFile) return;
    const message = rec.message;
    if (!isObject(message)) return;
    if (type === 'assistant') {
      const id = str(message.id) ?? str(rec.uuid) ?? `#${s.turns}`;
      const u = usageOf(message.usage);
      let entry = s.recent.find((r) => r.id === id);
      if (!entry) {
        s.turns++;
        entry = { id, u: null, tools: [] };
        s.recent.push(entry);
        if (s.recent.length > RECENT) s.recent.shift();
      }
      if (u) {
        const t = (s.tokens ??= { i: 0, o: 0, c: 0 });
        if (entry.u) {
          t.i -= entry.u.i;
          t.o -= entry.u.o;
          t.c -= entry.u.c;
        }
        t.i += u.i;
        t.o += u.o;
        t.c += u.c;
        entry.u = u;
      }
      if (Array.isArray(message.content)) {
        for (const b of message.content) {
          if (!isObject(b) || b.type !== 'tool_use') continue;
          const tid = str(b.id);
          if (tid !== null && entry.tools.includes(tid)) continue;
          if (tid !== null) entry.tools.push(tid);
          s.toolCalls++;
        }
      }
    } else if (type === 'user' && Array.isArray(message.content)) {
      for (const b of message.content) if (isObject(b) && b.type === 'tool_result' && b.is_error === true) s.failed++;
    }
  }

  /** The state to resume from (a copy). */
  state(): ClaudeCountState {
    return structuredClone(this.s);
  }

  counts(scannedBytes: number): SessionCounts {
    const s = this.s;
    const t = s.tokens;
    const [title, titleFrom] = this.titles.title();
    return {
      turns: s.turns,
      toolCalls: s.toolCalls,
      failedCommands: s.failed,
      tokens: t ? { input: t.i, output: t.o, cached: t.c, total: t.i + t.o } : null,
      title: title !== null ? shortTitle(title) : null,
      titleFrom,
      lastActivityAt: s.lastActivityAt,
      badLines: s.badLines,
      scannedBytes,
    };
  }
}
