/**
 * The Sessions list: the Claude Code and Codex CLI sessions whose recorded cwd lies in one of a set
 * of folders, newest first, each with its title, start, and (once counted) turns, tool calls,
 * failed commands and tokens. Only the head of a file is read to list it; the counts need one pass
 * over the file and are made on demand (`countSession`), both cached (SessionCache). Shared by the
 * extension's Sessions view and `trajectory-inspector sessions`. No vscode.
 */
import { promises as fs } from 'node:fs';
import { isObject } from '../formats/util';
import { ClaudeCounter, ClaudeHead, type ClaudeCountState } from './claudeScan';
import { CodexCounter, CodexHead, type CodexCountState } from './codexScan';
import { readHead, scanLines } from './lines';
import { findSessionFiles, isWithin, type FoundSession } from './roots';
import type { SessionCache, FileFacts } from './cache';
import type { SessionCounts, SessionEntry, SessionFormat, SessionHead, SessionRoot } from './types';

/** Most bytes read for a head. */
export const HEAD_MAX_BYTES = 1024 * 1024;

type Rec = Record<string, unknown>;

const CLAUDE_TYPES = new Set(['user', 'assistant', 'system', 'summary', 'progress', 'file-history-snapshot', 'queue-operation', 'custom-title', 'ai-title', 'attachment', 'agent-name']);

/** The format a session file's first JSON record belongs to, else null (not a session file). */
export function sniffFormat(rec: Rec): SessionFormat | null {
  const t = rec.type;
  if (t === 'session_meta' || t === 'response_item' || t === 'event_msg' || t === 'turn_context' || 'record_type' in rec) return 'codex-cli';
  if (t === undefined && typeof rec.id === 'string' && typeof rec.timestamp === 'string') return 'codex-cli';
  if ('sessionId' in rec || 'parentUuid' in rec || (typeof t === 'string' && CLAUDE_TYPES.has(t))) return 'claude-code';
  return null;
}

function parseObject(line: string): Rec | null | undefined {
  const t = line.trim();
  if (!t) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** A head and whether the reader finished (false: the file ended first, it may still be written). */
export interface HeadResult {
  head: SessionHead;
  done: boolean;
}

/**
 * Reads the head of one session file (at most HEAD_MAX_BYTES). `format` null: told by the first
 * JSON record. Null when the file is not a session file of either kind (or is empty).
 * @throws the fs error when the file cannot be read
 */
export async function readSessionHead(file: string, format: SessionFormat | null): Promise<HeadResult | null> {
  let reader: ClaudeHead | CodexHead | null = format === 'claude-code' ? new ClaudeHead() : format === 'codex-cli' ? new CodexHead() : null;
  let decided = format !== null;
  let finished = false;
  const r = await readHead(file, (line) => {
    const rec = parseObject(line);
    if (!rec) return true;
    if (!decided) {
      decided = true;
      const f = sniffFormat(rec);
      if (f === null) return false;
      reader = f === 'claude-code' ? new ClaudeHead() : new CodexHead();
    }
    if (reader!.take(rec)) {
      finished = true;
      return false;
    }
    return true;
  }, HEAD_MAX_BYTES);
  if (!reader) return null;
  const rd = reader as ClaudeHead | CodexHead;
  if (r.partial !== null) rd.partial(r.partial);
  return { head: rd.result(r.bytes), done: finished || !r.eof };
}

function counterFor(head: SessionHead, state?: unknown): ClaudeCounter | CodexCounter {
  return head.format === 'claude-code' ? new ClaudeCounter(head.sidechain, head.sessionId, state as ClaudeCountState | undefined) : new CodexCounter(state as CodexCountState | undefined);
}

/** Hex of the first and of the last (at most) 64 bytes before `end`: a file that only grew past `end` keeps both. */
async function fingerprint(file: string, end: number): Promise<string> {
  const fh = await fs.open(file, 'r');
  try {
    const part = async (from: number, n: number) => {
      const b = Buffer.alloc(n);
      const { bytesRead } = await fh.read(b, 0, n, from);
      return b.subarray(0, bytesRead).toString('hex');
    };
    const n = Math.min(64, end);
    return `${await part(0, n)}:${await part(end - n, n)}`;
  } finally {
    await fh.close();
  }
}

/**
 * Counts a session file (rules: SessionCounts) in one streaming pass. With a cache: counts made at
 * this exact size and mtime are returned unread; a file that grew since its last count (same file,
 * the bytes before the old end unchanged) is read from the old end only.
 * @throws the fs error when the file cannot be read
 */
export async function countSession(
  f: FileFacts,
  head: SessionHead,
  cache?: SessionCache,
  signal?: { aborted: boolean },
): Promise<SessionCounts> {
  const hit = cache?.counts(f);
  if (hit) return hit;
  let start = 0;
  let counter = counterFor(head);
  const resume = cache?.resumable(f);
  if (resume && resume.counts.scannedBytes > 0 && (await fingerprint(f.path, resume.counts.scannedBytes)) === resume.tail) {
    start = resume.counts.scannedBytes;
    counter = counterFor(head, resume.state);
  }
  const r = await scanLines(f.path, start, (line, final) => {
    const t = line.trim();
    if (!t) return true;
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      if (final) return false; // a record still being written
      counter.bad();
      return true;
    }
    if (isObject(v)) counter.take(v);
    else counter.bad();
    return true;
  }, { signal });
  const counts = counter.counts(r.end);
  counts.badLines += r.skippedLong;
  if (cache && !signal?.aborted) cache.putCounts(f, counts, counter.state(), await fingerprint(f.path, r.end));
  return counts;
}

/** The title a session goes by: a title record (custom title over summary) found by the full pass, else the head's. */
export function sessionTitle(e: Pick<SessionEntry, 'head' | 'counts'>): { title: string | null; from: SessionHead['titleFrom'] } {
  const rank = (t: SessionHead['titleFrom']) => (t === 'custom-title' ? 3 : t === 'summary' ? 2 : t === 'first-request' ? 1 : t === 'command' ? 0 : -1);
  const c = e.counts;
  if (c?.title && rank(c.titleFrom) >= rank(e.head.titleFrom)) return { title: c.title, from: c.titleFrom };
  return { title: e.head.title, from: e.head.titleFrom };
}

/** Sort key of a session: its recorded start (ms), else the file's mtime. */
export function startKey(e: Pick<SessionEntry, 'head' | 'mtimeMs'>): number {
  const t = e.head.startedAt ? Date.parse(e.head.startedAt) : NaN;
  return Number.isFinite(t) ? t : e.mtimeMs;
}

/** Newest first: by start, then by path. */
export function compareSessions(a: SessionEntry, b: SessionEntry): number {
  return startKey(b) - startKey(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

export interface ListOptions {
  roots: readonly SessionRoot[];
  /** Sessions whose recorded cwd is one of these folders or below one are listed. */
  folders: readonly string[];
  cache?: SessionCache;
  /** How many sessions make the first page (default 50). */
  pageSize?: number;
  /** Called once, as soon as the newest `pageSize` sessions are known (or the list is complete). */
  onFirstPage?: (page: SessionEntry[]) => void;
  /** Files whose head is read at the same time (default 16). */
  concurrency?: number;
  signal?: { aborted: boolean };
}

export interface ListResult {
  /** The sessions in the folders, newest first (counts filled from the cache where it has them). */
  sessions: SessionEntry[];
  /** Session files found under the roots. */
  files: number;
  /** Heads read from disk (the rest came from the cache). */
  headsRead: number;
  /** Session files whose head records no cwd (not listed). */
  withoutCwd: number;
  /** Files that could not be read, or are not sessions of either kind. */
  unreadable: number;
}

/**
 * Lists the sessions under `roots` whose recorded cwd lies in `folders`, newest first. Reads the
 * files in mtime order (a session starts before its file was last written), so the first page is
 * known after reading the newest files only; Claude Code project folders whose name cannot come
 * from the folders are read last. Never throws for a bad file (counted in `unreadable`).
 */
export async function listSessions(o: ListOptions): Promise<ListResult> {
  const pageSize = o.pageSize ?? 50;
  const folders = o.folders.map((f) => f);
  // Recorded cwds are real paths more often than not (macOS /private/tmp, symlinked homes): match both.
  for (const f of o.folders) {
    const real = await fs.realpath(f).catch(() => null);
    if (real && !folders.includes(real)) folders.push(real);
  }
  const found = await findSessionFiles(o.roots, folders);
  found.sort((a, b) => Number(b.likely) - Number(a.likely) || b.mtimeMs - a.mtimeMs);
  const sessions: SessionEntry[] = [];
  let headsRead = 0;
  let withoutCwd = 0;
  let unreadable = 0;
  let paged = !o.onFirstPage;
  const firstPage = (): void => {
    if (paged) return;
    paged = true;
    o.onFirstPage!([...sessions].sort(compareSessions).slice(0, pageSize));
  };
  const one = async (f: FoundSession): Promise<void> => {
    let head = o.cache?.head(f) ?? null;
    if (!head) {
      try {
        const r = await readSessionHead(f.path, f.format);
        headsRead++;
        if (!r) {
          unreadable++;
          return;
        }
        head = r.head;
        o.cache?.putHead(f, head, r.done);
      } catch {
        unreadable++;
        return;
      }
    }
    if (head.sidechain) return;
    if (head.cwd === null) {
      withoutCwd++;
      return;
    }
    if (!folders.some((d) => isWithin(head!.cwd!, d))) return;
    sessions.push({ path: f.path, size: f.size, mtimeMs: f.mtimeMs, ino: f.ino, head, counts: o.cache?.counts(f) ?? null });
  };
  const conc = Math.max(1, o.concurrency ?? 16);
  for (let i = 0; i < found.length; i += conc) {
    if (o.signal?.aborted) break;
    await Promise.all(found.slice(i, i + conc).map(one));
    if (!paged) {
      const next = found[i + conc];
      if (!next || !next.likely) firstPage();
      else if (sessions.length >= pageSize) {
        // No file written before the page's oldest start can hold a newer session.
        const kth = sessions.map(startKey).sort((a, b) => b - a)[pageSize - 1];
        if (next.mtimeMs < kth) firstPage();
      }
    }
  }
  firstPage();
  sessions.sort(compareSessions);
  return { sessions, files: found.length, headsRead, withoutCwd, unreadable };
}

