/**
 * The "Sessions" view (in the extension's activity-bar container): the Claude Code and Codex CLI
 * sessions whose recorded cwd lies in an open workspace folder, newest first, from the tools' own
 * folders (`~/.claude/projects`, `~/.codex/sessions`, CLAUDE_CONFIG_DIR / CODEX_HOME honoured) and
 * the roots in `trajectoryInspector.sessions.roots`. Listing reads only each file's head
 * (core/sessions); the counts (turns, tool calls, failed commands, tokens) fill in afterwards, one
 * file at a time, for the rows shown, while the view is visible. Both are cached in the extension's
 * global storage by file facts, so the next start reads nothing it read before. A click opens the
 * session in the timeline. File watchers on the roots (outside the workspace) and a slow poll while
 * the view is visible keep the list current. Nothing here throws.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SessionCache } from '../core/sessions/cache';
import { compareSessions, countSession, listSessions } from '../core/sessions/list';
import { defaultSessionRoots, extraSessionRoots, uniqueRoots } from '../core/sessions/roots';
import type { SessionEntry, SessionRoot } from '../core/sessions/types';
import { readSettings, type SettingsWatcher } from './config';
import type { CommandTable } from './commandTable';
import { reportError } from './notify';
import { sessionDescription, sessionLabel, sessionTooltipLines } from './sessionsPresent';
import { TIMELINE_VIEW_TYPE } from './timelineEditor';

export const SESSIONS_VIEW_ID = 'trajectoryInspector.sessions';
/** Command ids (a contract with package.json). */
export const SESSION_COMMANDS = {
  open: 'trajectoryInspector.openSession',
  openFile: 'trajectoryInspector.openSessionFile',
  refresh: 'trajectoryInspector.refreshSessions',
  more: 'trajectoryInspector.showMoreSessions',
} as const;

/** Rows shown at first, and added by "Show more". */
const PAGE = 100;
/** Files larger than this are listed but not counted (open them to see their steps). */
const COUNT_MAX_BYTES = 512 * 1024 * 1024;
const RELIST_DEBOUNCE_MS = 1000;
const SAVE_DEBOUNCE_MS = 2000;
/** While the view is visible the roots are listed again this often (watchers can miss events, roots can appear). */
const POLL_MS = 60_000;

type CountState = 'pending' | 'counted' | 'skipped' | 'error';

/** One session row; the same object across listings (the tree keeps its selection). */
class SessionNode {
  readonly kind = 'session';
  state: CountState;
  constructor(public entry: SessionEntry) {
    this.state = entry.counts ? 'counted' : 'pending';
  }
}

class MoreNode {
  readonly kind = 'more';
}

type Node = SessionNode | MoreNode;

export class SessionsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[] = [];
  private watchers: vscode.Disposable[] = [];
  private readonly cache: Promise<SessionCache>;
  private nodes = new Map<string, SessionNode>();
  private order: SessionNode[] = [];
  private readonly more = new MoreNode();
  private shown = PAGE;
  private listed = false;
  private listing: Promise<void> | null = null;
  private relistQueued = false;
  private relistTimer: ReturnType<typeof setTimeout> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  private pumping = false;
  private readonly abort = { aborted: false };
  private roots: SessionRoot[] = [];

  constructor(
    private readonly output: vscode.LogOutputChannel,
    storage: vscode.Uri,
    settings: Pick<SettingsWatcher, 'onDidChange'>,
  ) {
    this.cache = SessionCache.load(vscode.Uri.joinPath(storage, 'sessions-cache.json').fsPath);
    this.view = vscode.window.createTreeView(SESSIONS_VIEW_ID, { treeDataProvider: this });
    this.disposables.push(
      this.view,
      this.emitter,
      this.view.onDidChangeVisibility((e) => {
        if (e.visible) {
          if (this.listed) this.scheduleRelist(0);
          void this.pump();
        }
      }),
      settings.onDidChange((e) => {
        if (e.affects('sessions')) {
          this.watch();
          this.scheduleRelist(0);
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.scheduleRelist(0)),
    );
    this.watch();
    this.pollTimer = setInterval(() => {
      if (this.view.visible && this.listed) this.scheduleRelist(0);
    }, POLL_MS);
  }

  /** The roots searched now: the tools' defaults (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME) and the setting's. */
  private currentRoots(): SessionRoot[] {
    return uniqueRoots([...defaultSessionRoots(), ...extraSessionRoots(readSettings().sessions.roots, 'setting', os.homedir())]);
  }

  /** Watches `**\/*.jsonl` under every root, with a RelativePattern on the root's URI (works outside the workspace). */
  private watch(): void {
    this.watchers.forEach((d) => d.dispose());
    this.watchers = [];
    this.roots = this.currentRoots();
    for (const r of this.roots) {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(r.path), '**/*.jsonl'));
      const changed = (uri: vscode.Uri): void => {
        this.output.trace(`Sessions: ${uri.fsPath} changed`);
        this.scheduleRelist(RELIST_DEBOUNCE_MS);
      };
      this.watchers.push(w, w.onDidCreate(changed), w.onDidChange(changed), w.onDidDelete(changed));
    }
  }

  private scheduleRelist(ms: number): void {
    if (this.relistTimer) clearTimeout(this.relistTimer);
    this.relistTimer = setTimeout(() => {
      this.relistTimer = undefined;
      void this.relist();
    }, ms);
  }

  /**
   * Paths of every session recorded in the open workspace folders, newest first (listing them
   * first when that has not happened yet): Search Rollouts searches them beside the workspace's files.
   */
  async sessionFiles(): Promise<string[]> {
    if (!this.listed) await this.relist();
    return this.order.map((n) => n.entry.path);
  }

  /** The folders sessions are listed for: the open workspace folders on disk. */
  private folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  /** Lists the roots again (heads from the cache where valid) and merges the result into the rows. */
  private relist(): Promise<void> {
    if (this.listing) {
      this.relistQueued = true;
      return this.listing;
    }
    this.listing = (async () => {
      const folders = this.folders();
      if (!folders.length) {
        this.view.message = 'Open a folder to see the Claude Code and Codex CLI sessions recorded in it.';
        this.merge([]);
        return;
      }
      if (!this.listed) this.view.message = 'Reading sessions…';
      const cache = await this.cache;
      const t0 = Date.now();
      try {
        const r = await listSessions({
          roots: this.roots,
          folders,
          cache,
          pageSize: this.shown,
          onFirstPage: (page) => {
            if (!this.listed) {
              this.merge(page, true);
              this.view.message = undefined;
            }
          },
        });
        this.merge(r.sessions);
        cache.prune();
        this.output.debug(`Sessions: ${r.sessions.length} of ${r.files} session files in ${Date.now() - t0} ms (${r.headsRead} heads read, ${r.withoutCwd} without cwd, ${r.unreadable} unreadable)`);
      } catch (e) {
        this.output.warn(`Sessions: listing failed: ${String(e)}`);
      }
      this.view.message = undefined;
      this.listed = true;
      this.scheduleSave();
    })().finally(() => {
      this.listing = null;
      if (this.relistQueued) {
        this.relistQueued = false;
        void this.relist();
      }
    });
    return this.listing;
  }

  /**
   * Takes a listing into the rows: a file seen before keeps its row object; its counts stay on
   * show (marked for a recount) until the new ones are in when the file changed.
   * @param partial the first page only: rows not in it are kept
   */
  private merge(entries: SessionEntry[], partial = false): void {
    const next = new Map<string, SessionNode>();
    const changedRows: SessionNode[] = [];
    for (const e of entries) {
      const old = this.nodes.get(e.path);
      if (old) {
        const changed = old.entry.size !== e.size || old.entry.mtimeMs !== e.mtimeMs || old.entry.ino !== e.ino;
        const before = old.state;
        old.entry = { ...e, counts: e.counts ?? old.entry.counts };
        if (e.counts) old.state = 'counted';
        else if (changed) old.state = 'pending';
        if (changed || old.state !== before) changedRows.push(old);
        next.set(e.path, old);
      } else {
        next.set(e.path, new SessionNode(e));
      }
    }
    if (partial) for (const [k, v] of this.nodes) if (!next.has(k)) next.set(k, v);
    const order = [...next.values()].sort((a, b) => compareSessions(a.entry, b.entry));
    const sameRows = order.length === this.order.length && order.every((n, i) => n === this.order[i]);
    this.nodes = next;
    this.order = order;
    this.view.description = this.order.length ? `${this.order.length}` : undefined;
    // Redraw only what changed: a click on a row races every redraw of that row (VS Code drops the
    // old row's command), and a periodic relist usually changes nothing.
    if (!sameRows) this.emitter.fire(undefined);
    else for (const n of changedRows) this.emitter.fire(n);
    void this.pump();
  }

  /** Counts the shown rows that need it, newest first, one file at a time, while the view is visible. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      const cache = await this.cache;
      for (;;) {
        if (this.abort.aborted || !this.view.visible) break;
        const node = this.order.slice(0, this.shown).find((n) => n.state === 'pending');
        if (!node) break;
        const e = node.entry;
        if (e.size > COUNT_MAX_BYTES) {
          node.state = 'skipped';
        } else {
          try {
            const counts = await countSession(e, e.head, cache, this.abort);
            if (node.entry.path === e.path && node.entry.size === e.size && node.entry.mtimeMs === e.mtimeMs) {
              node.entry = { ...node.entry, counts };
              node.state = 'counted';
            }
          } catch (err) {
            node.state = 'error';
            this.output.debug(`Sessions: counting ${e.path}: ${String(err)}`);
          }
        }
        this.emitter.fire(node);
        this.scheduleSave();
      }
    } finally {
      this.pumping = false;
    }
  }

  private scheduleSave(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.cache.then((c) => c.save()).catch((e) => this.output.debug(`Sessions: saving the cache: ${String(e)}`));
    }, SAVE_DEBOUNCE_MS);
  }

  getTreeItem(n: Node): vscode.TreeItem {
    if (n.kind === 'more') {
      const left = this.order.length - this.shown;
      const item = new vscode.TreeItem(`Show ${Math.min(PAGE, left)} more…`, vscode.TreeItemCollapsibleState.None);
      item.description = `${left} not shown`;
      item.command = { command: SESSION_COMMANDS.more, title: 'Show more' };
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      return item;
    }
    const e = n.entry;
    const item = new vscode.TreeItem(sessionLabel(e), vscode.TreeItemCollapsibleState.None);
    item.id = e.path;
    item.description = sessionDescription(e, n.state === 'counted' && !e.counts ? 'pending' : n.state);
    item.tooltip = sessionTooltipLines(e).join('\n');
    item.iconPath = new vscode.ThemeIcon(e.head.format === 'claude-code' ? 'comment-discussion' : 'terminal');
    item.contextValue = 'session';
    item.command = { command: SESSION_COMMANDS.open, title: 'Open Session', arguments: [vscode.Uri.file(e.path)] };
    return item;
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (n) return [];
    if (!this.listed && !this.listing) void this.relist();
    const rows: Node[] = this.order.slice(0, this.shown);
    if (this.order.length > this.shown) rows.push(this.more);
    return rows;
  }

  /** Opens a session (a tree node, a URI, a path) in the timeline, or as text. */
  private async open(arg: unknown, asText: boolean): Promise<void> {
    const uri = arg instanceof vscode.Uri ? arg : arg instanceof SessionNode ? vscode.Uri.file(arg.entry.path) : typeof arg === 'string' ? vscode.Uri.file(arg) : undefined;
    const target = uri ?? (this.view.selection[0] instanceof SessionNode ? vscode.Uri.file(this.view.selection[0].entry.path) : undefined);
    if (!target) return;
    try {
      if (asText) await vscode.window.showTextDocument(target, { preview: true });
      else await vscode.commands.executeCommand('vscode.openWith', target, TIMELINE_VIEW_TYPE);
    } catch (e) {
      void reportError(this.output, `opening ${path.basename(target.fsPath)}`, e);
    }
  }

  /** The Sessions view's commands. */
  commands(): CommandTable {
    return [
      { id: SESSION_COMMANDS.open, run: (arg?: unknown) => this.open(arg, false) },
      { id: SESSION_COMMANDS.openFile, run: (arg?: unknown) => this.open(arg, true) },
      { id: SESSION_COMMANDS.refresh, run: () => this.scheduleRelist(0) },
      {
        id: SESSION_COMMANDS.more,
        run: () => {
          this.shown += PAGE;
          this.emitter.fire(undefined);
          void this.pump();
        },
      },
    ];
  }

  dispose(): void {
    this.abort.aborted = true;
    clearTimeout(this.relistTimer);
    clearInterval(this.pollTimer);
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      void this.cache.then((c) => c.save()).catch(() => undefined);
    }
    this.watchers.forEach((d) => d.dispose());
    this.disposables.forEach((d) => d.dispose());
  }
}
