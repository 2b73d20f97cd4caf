/**
 * Step labels in VS Code: one `LabelSession` (core's journal store plus the unsaved queue)
 * per open rollout file, shared by every timeline of that file; the annotator name from the
 * settings; a file watcher per journal folder so labels another window (or `git pull`) appends show
 * up; write errors as notifications with a Retry.
 *
 * Where labels go (core `journalPathFor`): `<workspace folder>/.trajectory-labels/<path of the
 * rollout file in the folder>.labels.jsonl`, or for a file outside every workspace folder
 * `<global storage>/labels/<sha256 of its path>.labels.jsonl`. The rollout file is never written.
 *
 * Workspace trust: labelling works in an untrusted workspace too. It runs nothing from the
 * workspace and writes only journal lines, and only under `.trajectory-labels/` of the folder (a
 * `.trajectory-labels` that is a link leading out of the folder is refused) or the extension's
 * own storage.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LABELS_DIR, journalPathFor } from '../core/labels/journal';
import type { Rollout } from '../core/model';
import { LabelSession, checkJournalLocation } from './labelSession';
import { readSettings, type SettingsWatcher } from './config';
import { notifyWithLog } from './notify';

/** The annotator name: the setting (`trajectoryInspector.labels.annotator`) when set, else the OS user name, else `anonymous`. */
export function readAnnotator(): string {
  return readSettings().labels.annotator || osUserName();
}

export function osUserName(): string {
  try {
    const u = os.userInfo().username;
    if (u) return u;
  } catch {
    // no passwd entry (containers): fall through
  }
  return process.env.USER || process.env.USERNAME || 'anonymous';
}

/** An open session and how many timelines use it (the first to ask opens it; the others share it). */
interface Entry {
  session: LabelSession;
  users: number;
}

/** How often open journals are re-read in case a file watcher missed another window's append (ms). */
const JOURNAL_POLL_MS = 2000;

export class LabelService implements vscode.Disposable {
  private readonly sessions = new Map<string, Promise<Entry>>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Watched journal folders (a workspace folder's `.trajectory-labels`, or global storage). */
  private readonly watched = new Set<string>();
  private annotator = readAnnotator();
  /** Listeners told when the annotator changed (every timeline reopens its labels). */
  private readonly reopenListeners = new Set<() => void>();

  constructor(
    private readonly globalStorage: vscode.Uri,
    readonly output: vscode.LogOutputChannel,
    settings: Pick<SettingsWatcher, 'onDidChange'>,
  ) {
    this.disposables.push(
      settings.onDidChange((e) => {
        if (!e.affects('labels.annotator')) return;
        const next = readAnnotator();
        if (next === this.annotator) return;
        this.output.info(`labels: annotator is now ${JSON.stringify(next)}`);
        this.annotator = next;
        for (const fn of [...this.reopenListeners]) fn();
      }),
    );
    // File watchers can miss events (some remote and network file systems, code-server under load):
    // every open journal is also re-read every few seconds. A reload reads only what was appended.
    const timer = setInterval(() => this.reloadAll(), JOURNAL_POLL_MS);
    this.disposables.push({ dispose: () => clearInterval(timer) });
  }

  /** Re-reads every open session's journal (the watcher's fallback). */
  private reloadAll(): void {
    for (const p of this.sessions.values()) {
      void p.then(
        (entry) => entry.session.reload().then((changed) => {
          if (changed) this.output.debug(`labels: ${entry.session.journal} changed on disk; reloaded`);
        }),
        () => undefined,
      ).catch((e) => this.output.warn(`labels: re-reading a journal failed: ${String(e)}`));
    }
  }

  /** The name new labels are written with. */
  get currentAnnotator(): string {
    return this.annotator;
  }

  /** Calls `fn` when the sessions must be opened again (the annotator changed). */
  onReopen(fn: () => void): vscode.Disposable {
    this.reopenListeners.add(fn);
    return new vscode.Disposable(() => this.reopenListeners.delete(fn));
  }

  /** Journal of a rollout file, and the folder it must stay in. */
  locate(file: string): { journal: string; root: string } {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
    const wsRoot = folder?.uri.scheme === 'file' ? folder.uri.fsPath : null;
    const journal = journalPathFor(file, wsRoot, this.globalStorage.fsPath);
    const inside = wsRoot !== null && journal.startsWith(path.join(wsRoot, LABELS_DIR) + path.sep);
    return { journal, root: inside ? wsRoot! : this.globalStorage.fsPath };
  }

  /**
   * The label session of a rollout file, opened on first use (the journal is read, not created).
   * Each call must be paired with `release`.
   */
  async acquire(file: string, rollouts: Rollout[]): Promise<LabelSession> {
    const { journal, root } = this.locate(file);
    const key = `${this.annotator}\n${journal}`;
    let p = this.sessions.get(key);
    if (!p) {
      p = (async () => {
        await checkJournalLocation(journal, root);
        const session = await LabelSession.open(journal, this.annotator, rollouts);
        this.watch(journal, root);
        this.output.info(`labels: ${file} → ${journal} (annotator ${JSON.stringify(this.annotator)}, ${session.warnings.length} warnings)`);
        for (const w of session.warnings) this.output.warn(`labels: ${w}`);
        return { session, users: 0 };
      })();
      this.sessions.set(key, p);
      p.catch(() => this.sessions.delete(key));
    }
    const entry = await p;
    entry.users++;
    entry.session.setRollouts(rollouts);
    return entry.session;
  }

  /** One user of the session is gone; the last one closes it (telling the user when changes are unsaved). */
  release(session: LabelSession): void {
    for (const [key, p] of this.sessions) {
      void p.then((entry) => {
        if (entry.session !== session) return;
        entry.users--;
        if (entry.users > 0) return;
        this.sessions.delete(key);
        if (session.unsavedCount) this.reportLost(session);
      }, () => undefined);
    }
  }

  /** Changes that were never written: logged in full (so they can be recovered) and shown. */
  private reportLost(session: LabelSession): void {
    this.output.error(`labels: ${session.unsavedCount} label change(s) could not be written to ${session.journal}: ${session.unsavedJson()}`);
    void notifyWithLog(
      this.output,
      'error',
      `Trajectory Inspector: ${session.unsavedCount} label change(s) could not be written to ${session.journal} (${session.error ?? 'write failed'}). They are in the Trajectory Inspector log.`,
    );
  }

  /** When each session's write error was last shown (a key pressed on a full disk must not stack notifications). */
  private readonly reported = new WeakMap<LabelSession, { error: string; at: number }>();

  /** Shows a write error with Retry (the same error of a session at most every 20 s; the webview shows it all the time). */
  reportWriteError(session: LabelSession): void {
    if (!session.error) return;
    this.output.error(`labels: writing ${session.journal} failed: ${session.error}`);
    const last = this.reported.get(session);
    if (last && last.error === session.error && Date.now() - last.at < 20_000) return;
    this.reported.set(session, { error: session.error, at: Date.now() });
    void notifyWithLog(
      this.output,
      'error',
      `Trajectory Inspector could not save labels to ${session.journal}: ${session.error}. ${session.unsavedCount} change(s) are kept in memory and written with your next change.`,
      'Retry',
    ).then(async (a) => {
      if (a === 'Retry' && !(await session.retry())) {
        this.reported.delete(session);
        this.reportWriteError(session);
      }
    });
  }

  /** Watches the journals of one folder (one watcher per folder, shared by its sessions). */
  private watch(journal: string, root: string): void {
    const isWorkspace = root !== this.globalStorage.fsPath;
    const base = isWorkspace ? root : path.dirname(journal);
    if (this.watched.has(base)) return;
    this.watched.add(base);
    if (!isWorkspace) fs.mkdirSync(base, { recursive: true });
    const pattern = isWorkspace ? `${LABELS_DIR}/**/*.labels.jsonl` : '*.labels.jsonl';
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(base), pattern));
    const onEvent = (uri: vscode.Uri): void => {
      for (const p of this.sessions.values()) {
        void p.then(
          (entry) => {
            if (path.resolve(entry.session.journal) !== path.resolve(uri.fsPath)) return;
            return entry.session.reload().then((changed) => {
              if (changed) this.output.debug(`labels: ${uri.fsPath} changed on disk; reloaded`);
            });
          },
          () => undefined,
        );
      }
    };
    this.disposables.push(w, w.onDidChange(onEvent), w.onDidCreate(onEvent), w.onDidDelete(onEvent));
  }

  dispose(): void {
    for (const p of this.sessions.values()) void p.then((e) => e.session.unsavedCount && this.reportLost(e.session), () => undefined);
    this.sessions.clear();
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}
