/**
 * The scoring service of the extension host: one core `ScorerManager` for the configured scorer
 * (the built-in one unless `trajectoryInspector.scorer.command` is set — and a command of the
 * user's own runs only in a trusted workspace), the step scores of every rollout file the user has
 * open, and who to tell when they change (timelines, raw-file decorations, the status bar).
 *
 * Only validated, final scores are kept: when a request fails or is cancelled, the scores that
 * arrived early for its rollouts (`$/progress`) are dropped and the rollout says why; the manager
 * caches nothing of such a request. Failures are shown to the user with the reason.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Rollout, Score } from '../../core/model';
import { builtinScorerCommand, configuredCommand } from '../../core/scoring/builtin';
import { ScoreCache, type ScorerIdentity } from '../../core/scoring/cache';
import { ScorerError, type ScorerCommand } from '../../core/scoring/client';
import { contentHash, toScoreRollout } from '../../core/scoring/input';
import { ScorerManager, type ScoreRun, type ScorerState } from '../../core/scoring/manager';
import type { StepScore } from '../../core/scoring/protocol';
import type { ScoresMessage } from '../../shared/scoresProtocol';
import type { TimelineFeature, TimelineView } from '../timelineFeature';
import { readSettings, type Settings, type SettingsWatcher } from '../config';
import { notifyWarning, notifyWithLog } from '../notify';
import { byWindowsNotice, stepsByWindows } from '../pagedRollout';

/** The scorer settings (`trajectoryInspector.scorer.*`, timeouts in ms), as host/config.ts reads them. */
export type ScorerConfig = Settings['scorer'];

/** What the service needs of an open timeline. */
export type ScoredPanel = Pick<TimelineView, 'uri' | 'rolloutIndex' | 'rollout' | 'loadedFile' | 'postMessage'>;

/** Scores of one rollout as the service keeps them. */
export interface RolloutScoreState {
  state: ScoresMessage['state'];
  scorer: ScorerIdentity | null;
  steps: Map<number, StepScore>;
  cached: boolean;
  error: string | null;
  /** Content hash of the rollout these scores are for (core `contentHash`). */
  hash: string;
}

interface FileEntry {
  rollouts: Rollout[];
  scores: Map<string, RolloutScoreState>;
  abort: AbortController | null;
}

const key = (file: string): string => path.resolve(file);

/** Owns the scorer and the scores of open files; a feature of the timelines (it posts their step scores). */
export class ScoringService implements vscode.Disposable, TimelineFeature {
  private mgr: ScorerManager | null = null;
  private mgrCommand: ScorerCommand | null = null;
  private readonly files = new Map<string, FileEntry>();
  private readonly panels = new Set<ScoredPanel>();
  private readonly changed = new vscode.EventEmitter<string>();
  private readonly stateChanged = new vscode.EventEmitter<ScorerState>();
  /** Fires with the file path whose scores changed. */
  readonly onDidChangeScores = this.changed.event;
  /** Fires when the scorer's state changes (status bar). */
  readonly onDidChangeState = this.stateChanged.event;
  readonly cache: ScoreCache;
  private readonly disposables: vscode.Disposable[] = [];
  private config = readSettings().scorer;
  private lastState: ScorerState = { kind: 'stopped' };

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
    settings: Pick<SettingsWatcher, 'onDidChange'>,
  ) {
    this.cache = new ScoreCache(vscode.Uri.joinPath(context.globalStorageUri, 'scores').fsPath);
    this.disposables.push(
      this.changed,
      this.stateChanged,
      settings.onDidChange((e) => {
        if (e.affects('scorer')) this.reloadConfig();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.resetManager()),
    );
  }

  /** Re-reads the scorer settings; a changed command, options or timeouts stop the running scorer (the next request starts the new one). */
  reloadConfig(): void {
    const before = JSON.stringify([this.config.command, this.config.options, this.config.requestTimeoutMs, this.config.startTimeoutMs, this.config.idleShutdownMs]);
    this.config = readSettings().scorer;
    const after = JSON.stringify([this.config.command, this.config.options, this.config.requestTimeoutMs, this.config.startTimeoutMs, this.config.idleShutdownMs]);
    if (before !== after) this.resetManager();
    // Other settings (e.g. inline) change how scores show: redraw.
    for (const f of this.files.keys()) this.changed.fire(f);
  }

  get settings(): ScorerConfig {
    return this.config;
  }

  get state(): ScorerState {
    return this.lastState;
  }

  /** True when the configured scorer is a command of the user's own (not the built-in). */
  get isCustom(): boolean {
    return this.config.command.length > 0;
  }

  /** A short name of the configured scorer for the UI. */
  get scorerLabel(): string {
    return this.isCustom ? path.basename(this.config.command[this.config.command.length > 1 && /python|node|uv|conda/.test(path.basename(this.config.command[0])) ? 1 : 0]) : 'built-in';
  }

  /** The command that runs; throws a user-facing Error when a custom command may not run here. */
  private command(): ScorerCommand {
    const custom = configuredCommand(this.config.command, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
    if (custom) {
      if (!vscode.workspace.isTrusted) {
        throw new Error('A scorer command of your own (trajectoryInspector.scorer.command) runs only in a trusted workspace. Trust the workspace, or clear the setting to use the built-in scorer.');
      }
      return custom;
    }
    return builtinScorerCommand(vscode.Uri.joinPath(this.context.extensionUri, 'dist').fsPath);
  }

  private manager(): ScorerManager {
    const command = this.command();
    if (this.mgr && JSON.stringify(this.mgrCommand) === JSON.stringify(command)) return this.mgr;
    this.resetManager();
    const m = new ScorerManager({
      command,
      options: this.config.options,
      client: { name: 'trajectory-inspector', version: String(this.context.extension.packageJSON.version ?? '0') },
      cache: this.cache,
      initTimeoutMs: this.config.startTimeoutMs,
      requestTimeoutMs: this.config.requestTimeoutMs,
      idleShutdownMs: this.config.idleShutdownMs,
      log: (l) => (l.startsWith('[scorer]') ? this.output.debug(l) : this.output.info(l)),
    });
    m.onState((s) => {
      this.lastState = s;
      this.stateChanged.fire(s);
    });
    m.onNotice((msg, level) => {
      // A failure about to be retried is in the log and the status bar; the request's own error
      // (scoreRollouts) and the restart (info) are the toasts.
      if (level === 'warning') {
        this.output.warn(msg);
        return;
      }
      const text = `Trajectory Inspector: ${msg}`;
      void notifyWithLog(this.output, level === 'error' ? 'error' : 'info', text, ...(level === 'error' ? ['Restart Scorer'] : [])).then((a) => {
        if (a === 'Restart Scorer') this.restart();
      });
    });
    this.mgr = m;
    this.mgrCommand = command;
    return m;
  }

  private resetManager(): void {
    this.cancelAll();
    const m = this.mgr;
    this.mgr = null;
    this.mgrCommand = null;
    if (m) void m.dispose();
    this.lastState = { kind: 'stopped' };
    this.stateChanged.fire(this.lastState);
  }

  /** Clears a failed scorer and starts afresh on the next request. */
  restart(): void {
    if (this.mgr) this.mgr.restart();
    else this.resetManager();
  }

  // ------------------------------------------------------------ files and scores

  /**
   * Remembers the rollouts of a file (their step ranges place the raw-file decorations). Scores of
   * a rollout whose content changed (the file was rewritten) are dropped: they may no longer fit.
   */
  fileLoaded(file: string, rollouts: Rollout[]): void {
    const e = this.files.get(key(file));
    if (!e) {
      this.files.set(key(file), { rollouts, scores: new Map(), abort: null });
      return;
    }
    if (e.rollouts === rollouts) return;
    e.rollouts = rollouts;
    let dropped = false;
    for (const r of rollouts) {
      const st = e.scores.get(r.id);
      if (st && st.state !== 'scoring' && st.hash !== contentHash(toScoreRollout(r))) {
        e.scores.delete(r.id);
        dropped = true;
      }
    }
    if (dropped) this.fire(file);
  }

  /**
   * Rollouts of a followed file changed by their last steps (live follow): `changedFrom`
   * maps a rollout id to its first new or changed step. The scores of the steps before it are kept
   * (those steps did not change), the later ones dropped, and the rollout's scores no longer claim
   * to be of its whole content (Score again scores it as it is now); no scoring starts by itself.
   */
  rolloutsChanged(view: Pick<TimelineView, 'uri'>, rollouts: Rollout[], changedFrom: ReadonlyMap<string, number>): void {
    const file = view.uri.fsPath;
    const e = this.files.get(key(file));
    if (!e) return;
    e.rollouts = rollouts;
    let dropped = false;
    for (const [id, from] of changedFrom) {
      const st = e.scores.get(id);
      if (!st || st.state === 'scoring') continue;
      for (const i of [...st.steps.keys()]) {
        if (i >= from) {
          st.steps.delete(i);
          dropped = true;
        }
      }
      st.hash = '';
    }
    if (dropped) this.fire(file);
  }

  /** The rollouts and scores known for a file, or undefined. */
  entry(file: string): { rollouts: Rollout[]; scores: ReadonlyMap<string, RolloutScoreState> } | undefined {
    return this.files.get(key(file));
  }

  /** Every file with rollouts known (for decorations). */
  knownFiles(): string[] {
    return [...this.files.keys()];
  }

  /** The `scores` message of a rollout for a timeline. */
  message(file: string, rolloutIndex: number, rollout: Rollout): ScoresMessage {
    const st = this.files.get(key(file))?.scores.get(rollout.id);
    const sc = st?.scorer ?? null;
    return {
      type: 'scores',
      rolloutIndex,
      rolloutId: rollout.id,
      state: st?.state ?? 'idle',
      scorer: sc ? { name: sc.name, version: sc.version, model: sc.model } : null,
      range: sc?.scoreRange ?? [0, 1],
      steps: st ? [...st.steps.values()].filter((s): s is StepScore & { value: number } => s.value !== null).map((s) => ({ index: s.index, value: s.value, label: s.label ?? null, explanation: s.explanation ?? null })) : [],
      cached: st?.cached ?? false,
      error: st?.error ?? null,
      ...unscoredView(st),
    };
  }

  private fire(file: string): void {
    this.changed.fire(key(file));
    for (const p of this.panels) {
      const r = p.rollout;
      if (r && key(p.uri.fsPath) === key(file)) p.postMessage(this.message(file, p.rolloutIndex, r));
    }
  }

  /**
   * Scores rollouts of a file (cache first). Resolves with the manager's run; never throws for
   * scorer failures (they are put on the rollouts and shown to the user once). Rollouts read by
   * windows (pagedRollout.ts: no steps in memory) are left out; null when none is left.
   */
  async scoreRollouts(file: string, all: Rollout[], opts: { force?: boolean; signal?: AbortSignal; quiet?: boolean; onProgress?: (done: number, total: number) => void } = {}): Promise<ScoreRun | null> {
    // A rollout read by windows holds no steps to send (onShown says why it is not scored).
    const rollouts = all.filter((r) => stepsByWindows(r) === null);
    if (!rollouts.length) return null;
    const k = key(file);
    let e = this.files.get(k);
    if (!e) {
      e = { rollouts, scores: new Map(), abort: null };
      this.files.set(k, e);
    }
    const entry = e;
    let manager: ScorerManager;
    try {
      manager = this.manager();
    } catch (err) {
      for (const r of rollouts) entry.scores.set(r.id, { state: 'error', scorer: null, steps: new Map(), cached: false, error: (err as Error).message, hash: '' });
      this.fire(file);
      if (!opts.quiet) void notifyWarning(`Trajectory Inspector: ${(err as Error).message}`);
      return null;
    }
    const ac = new AbortController();
    const onOuterAbort = (): void => ac.abort();
    opts.signal?.addEventListener('abort', onOuterAbort);
    entry.abort?.abort();
    entry.abort = ac;
    const inputs = rollouts.map(toScoreRollout);
    const hashes = new Map(inputs.map((r) => [r.id, contentHash(r)]));
    for (const r of rollouts) {
      const prev = entry.scores.get(r.id);
      const same = prev?.hash === hashes.get(r.id);
      entry.scores.set(r.id, { state: 'scoring', scorer: prev?.scorer ?? null, steps: opts.force || !same ? new Map() : (prev?.steps ?? new Map()), cached: false, error: null, hash: hashes.get(r.id)! });
    }
    this.fire(file);
    let run: ScoreRun;
    try {
      run = await manager.score(inputs, {
        signal: ac.signal,
        noCacheRead: opts.force,
        onProgress: opts.onProgress,
        onResult: (res, scorer) => {
          entry.scores.set(res.id, { state: res.fromCache ? 'done' : 'scoring', scorer, steps: new Map(res.steps.map((s) => [s.index, s])), cached: res.fromCache, error: null, hash: hashes.get(res.id) ?? '' });
          this.fire(file);
        },
      });
    } catch (err) {
      // The manager reports scorer failures in the run; anything thrown is a bug, shown the same way.
      this.output.error(`scoring ${file}: ${(err as Error).stack ?? String(err)}`);
      run = { scorer: null, results: [], failures: [{ ids: rollouts.map((r) => r.id), error: new ScorerError('crashed', `scoring failed: ${(err as Error).message}`) }], cancelled: false };
    } finally {
      opts.signal?.removeEventListener('abort', onOuterAbort);
      if (entry.abort === ac) entry.abort = null;
    }
    // Only final results stay; partial scores of failed or cancelled rollouts are dropped.
    const final = new Map(run.results.map((r) => [r.id, r]));
    const failedWhy = new Map<string, string>();
    for (const f of run.failures) for (const id of f.ids) failedWhy.set(id, f.error.message);
    for (const r of rollouts) {
      const res = final.get(r.id);
      const hash = hashes.get(r.id)!;
      if (res) entry.scores.set(r.id, { state: 'done', scorer: run.scorer, steps: new Map(res.steps.map((s) => [s.index, s])), cached: res.fromCache, error: null, hash });
      else if (failedWhy.has(r.id)) entry.scores.set(r.id, { state: 'error', scorer: run.scorer, steps: new Map(), cached: false, error: failedWhy.get(r.id)!, hash });
      else entry.scores.set(r.id, { state: run.cancelled ? 'cancelled' : 'idle', scorer: run.scorer, steps: new Map(), cached: false, error: null, hash });
    }
    this.fire(file);
    if (run.failures.length && !opts.quiet) {
      const first = run.failures[0].error;
      this.output.error(`scoring ${file}: ${run.failures.map((f) => `${f.ids.length} rollout(s): ${f.error.message}`).join(' | ')}`);
      void notifyWithLog(this.output, 'error', `Trajectory Inspector: scoring failed: ${first.message}`, 'Restart Scorer').then((a) => {
        if (a === 'Restart Scorer') this.restart();
      });
    }
    return run;
  }

  /**
   * Per-step scores of rollouts shown outside a timeline (compare panels), as core `Score`s keyed
   * by rollout id: the scores already held for an open file when they are final, else the
   * configured scorer (cache first; the built-in scorer by default). Leaves the open files' state
   * alone; a scorer that cannot run or fails gives no scores for those rollouts (logged), never
   * a partial or unvalidated one. Resolves to an empty map when auto-scoring is off.
   */
  async scoresFor(items: readonly { file: string; rollout: Rollout }[]): Promise<Map<string, Score[]>> {
    const out = new Map<string, Score[]>();
    const toScore: Rollout[] = [];
    for (const { file, rollout } of items) {
      const st = this.files.get(key(file))?.scores.get(rollout.id);
      if (st?.state === 'done' && st.scorer && st.hash === contentHash(toScoreRollout(rollout))) out.set(rollout.id, toScores(rollout.id, st.steps.values(), st.scorer));
      else if (!toScore.some((r) => r.id === rollout.id)) toScore.push(rollout);
    }
    if (!toScore.length || !this.config.autoScore) return out;
    try {
      const run = await this.manager().score(toScore.map(toScoreRollout));
      for (const f of run.failures) this.output.warn(`scores for compare: ${f.ids.length} rollout(s): ${f.error.message}`);
      if (run.scorer) for (const r of run.results) out.set(r.id, toScores(r.id, r.steps, run.scorer));
    } catch (err) {
      this.output.warn(`scores for compare: ${(err as Error).message}`);
    }
    return out;
  }

  /** Cancels the scoring of a file (its timeline closed). */
  cancel(file: string): void {
    this.files.get(key(file))?.abort?.abort();
  }

  /** Cancels every scoring in flight. */
  cancelAll(): void {
    for (const e of this.files.values()) e.abort?.abort();
  }

  // ------------------------------------------------------------ timelines

  /** A timeline shows (or re-shows) a rollout: post what is known, score it when auto-scoring is on. */
  onShown(p: ScoredPanel): void {
    this.panels.add(p);
    const r = p.rollout;
    const loaded = p.loadedFile;
    if (!r || !loaded) return;
    const file = p.uri.fsPath;
    const byWindows = stepsByWindows(r);
    if (byWindows !== null) {
      // The scorer protocol takes a whole rollout (and the cache keys it by its content): not scored, said why.
      p.postMessage({ ...this.message(file, p.rolloutIndex, r), state: 'error', error: notScoredByWindows(byWindows) });
      return;
    }
    this.fileLoaded(file, loaded.rollouts);
    const st = this.files.get(key(file))?.scores.get(r.id);
    p.postMessage(this.message(file, p.rolloutIndex, r));
    if (!st || st.state === 'idle') {
      if (this.config.autoScore) void this.scoreRollouts(file, [r], { quiet: false });
    }
  }

  /** A timeline closed: cancel its file's scoring unless another timeline still shows the file. */
  onClosed(p: ScoredPanel): void {
    this.panels.delete(p);
    const file = key(p.uri.fsPath);
    if (![...this.panels].some((o) => key(o.uri.fsPath) === file)) this.cancel(file);
  }

  /** Timelines open now. */
  openPanels(): ScoredPanel[] {
    return [...this.panels];
  }

  dispose(): void {
    this.cancelAll();
    const m = this.mgr;
    this.mgr = null;
    if (m) void m.dispose();
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}

/** Why a rollout read by windows (pagedRollout.ts) is not scored: one line for the timeline and the Score command. */
export function notScoredByWindows(steps: number): string {
  return byWindowsNotice('Scoring', steps, 'a scorer is sent the whole rollout at once (its cache keys the whole rollout too)');
}

/** A scorer's step scores of one rollout as core `Score`s (steps it did not score are left out). */
function toScores(rolloutId: string, steps: Iterable<StepScore>, scorer: ScorerIdentity): Score[] {
  const out: Score[] = [];
  for (const s of steps) {
    if (s.value === null) continue;
    out.push({ rolloutId, stepIndex: s.index, value: s.value, range: scorer.scoreRange, label: s.label ?? null, explanation: s.explanation ?? null, scorer: { name: scorer.name, version: scorer.version, model: scorer.model } });
  }
  return out;
}

/**
 * The steps a finished scoring left unscored with a reason (past the model's context…), and
 * "not scorable" with the reason when no step has a value (a rollout with no agent step, or none
 * inside the context), for the timeline's score line.
 */
function unscoredView(st: RolloutScoreState | undefined): Pick<ScoresMessage, 'unscored' | 'notScorable'> {
  if (!st || st.state !== 'done') return {};
  const all = [...st.steps.values()];
  const unscored = all.filter((s) => s.value === null && s.explanation).map((s) => ({ index: s.index, reason: s.explanation! }));
  const notScorable = all.some((s) => s.value !== null) ? null : (unscored[0]?.reason ?? 'no agent step to score');
  return { ...(unscored.length ? { unscored } : {}), notScorable };
}
