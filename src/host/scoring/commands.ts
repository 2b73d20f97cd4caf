/**
 * Scoring commands and the scorer's status bar item:
 * - Score Rollout: rescore the rollout the active timeline shows (or every rollout of the rollout
 *   file in the active text editor), bypassing the cache;
 * - Score All Rollouts in Folder…: every rollout file under a folder (the Rollouts view's include /
 *   exclude globs), with a progress notification that can be cancelled; results land in the cache;
 * - Select Scorer…: the built-in scorer or a command of your own (the setting), restart, log;
 * - Restart Scorer, Cancel Scoring, Clear Score Cache.
 */
import { parseCommandLine } from '../../core/scoring/commandLine';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Command, CommandTable } from '../commandTable';
import { readSettings, updateUserSetting } from '../config';
import type { RolloutLoader } from '../loadWorker';
import { notifyError, notifyWithLog, notifyInfo } from '../notify';
import { joinGlobs } from '../globs';
import type { TimelineEditorProvider } from '../timelineEditor';
import { EXPLAIN_COMMAND, OPEN_STEP_COMMAND } from './inline';
import { notScoredByWindows, type ScoringService } from './service';
import { stepsByWindows } from '../pagedRollout';

/** At most this many files are scored by one Score All Rollouts in Folder. */
const MAX_FOLDER_FILES = 5000;

/** The status bar item: scorer name and state, progress while scoring. */
export class ScorerStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('trajectoryInspector.scorer', vscode.StatusBarAlignment.Right, 90);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly service: ScoringService) {
    this.item.name = 'Trajectory Inspector Scorer';
    this.item.command = 'trajectoryInspector.selectScorer';
    this.disposables.push(this.item, service.onDidChangeState(() => this.update()), service.onDidChangeScores(() => this.update()));
    this.update();
  }

  update(): void {
    const s = this.service.state;
    const name = this.service.scorerLabel;
    const show = this.service.openPanels().length > 0 || s.kind !== 'stopped';
    let text: string;
    let tip: string;
    this.item.backgroundColor = undefined;
    switch (s.kind) {
      case 'stopped':
        text = `$(pulse) ${name}`;
        tip = `Step scorer: ${name} (not running; starts when a rollout is scored)`;
        break;
      case 'starting':
        text = `$(loading~spin) ${name}: starting`;
        tip = `Step scorer ${name} is starting (loading its model)`;
        break;
      case 'ready':
        text = `$(pulse) ${s.info.scorer.name}`;
        tip = `Step scorer ${s.info.scorer.name} ${s.info.scorer.version} ready — model ${s.info.model ?? 'none (rules)'}, device ${s.info.device ?? 'unknown'}`;
        break;
      case 'busy':
        text = `$(loading~spin) ${s.info.scorer.name}: ${s.done}/${s.total} steps`;
        tip = `Scoring with ${s.info.scorer.name} ${s.info.scorer.version}: ${s.done} of ${s.total} steps`;
        break;
      case 'restarting':
        text = `$(warning) ${name}: restarting`;
        tip = `The scorer failed (${s.reason}); restart ${s.attempt} in ${(s.delayMs / 1000).toFixed(1)} s`;
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        break;
      case 'failed':
        text = `$(error) ${name}: failed`;
        tip = `The scorer stopped: ${s.reason}. Click to restart or choose another scorer.`;
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        break;
    }
    this.item.text = text;
    this.item.tooltip = `${tip}\n(step scores are a scorer's opinion of each step, not the rollout's outcome reward)`;
    if (show) this.item.show();
    else this.item.hide();
  }

  dispose(): void {
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}

async function rolloutFilesIn(folder: vscode.Uri): Promise<vscode.Uri[]> {
  const cfg = readSettings(folder).rollouts;
  const include = joinGlobs(cfg.include);
  const exclude = joinGlobs(cfg.exclude);
  if (include === null) return [];
  const ex = exclude === null ? null : Array.isArray(exclude) ? `{${exclude.join(',')}}` : exclude;
  const found = new Map<string, vscode.Uri>();
  for (const glob of Array.isArray(include) ? include : [include]) {
    for (const uri of await vscode.workspace.findFiles(new vscode.RelativePattern(folder, glob), ex, MAX_FOLDER_FILES + 1)) found.set(uri.toString(), uri);
  }
  return [...found.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}

/** The scoring commands (read rollout files with `loader`). */
export function scoringCommands(service: ScoringService, timelines: TimelineEditorProvider, loader: RolloutLoader): CommandTable {
  const table: Command[] = [];
  const reg = (id: string, run: Command['run']): void => void table.push({ id, run });

  reg('trajectoryInspector.scoreRollout', async () => {
    const p = timelines.activePanel;
    const byWindows = p?.rollout ? stepsByWindows(p.rollout) : null;
    if (byWindows !== null) {
      void notifyInfo(`Trajectory Inspector: ${notScoredByWindows(byWindows)}`);
      return;
    }
    if (p?.rollout && p.loadedFile) {
      service.fileLoaded(p.uri.fsPath, p.loadedFile.rollouts);
      await service.scoreRollouts(p.uri.fsPath, [p.rollout], { force: true });
      return;
    }
    const doc = vscode.window.activeTextEditor?.document;
    if (doc && doc.uri.scheme === 'file') {
      let rollouts;
      try {
        rollouts = (await loader.load(doc.uri.fsPath)).rollouts;
      } catch (e) {
        void notifyError(`Trajectory Inspector: ${path.basename(doc.uri.fsPath)} is not a rollout file this extension reads: ${(e as Error).message.split('\n')[0]}`);
        return;
      }
      service.fileLoaded(doc.uri.fsPath, rollouts);
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Scoring ${path.basename(doc.uri.fsPath)}`, cancellable: true }, async (progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        let last = 0;
        await service.scoreRollouts(doc.uri.fsPath, rollouts, {
          force: true,
          signal: ac.signal,
          onProgress: (done, total) => {
            const pct = total ? (100 * done) / total : 100;
            progress.report({ increment: pct - last, message: `${done}/${total} steps` });
            last = pct;
          },
        });
      });
      return;
    }
    void notifyInfo('Trajectory Inspector: open a rollout (timeline or raw file) to score it.');
  });

  reg('trajectoryInspector.scoreFolder', async (arg?: unknown) => {
    let folder = arg instanceof vscode.Uri ? arg : undefined;
    if (!folder) {
      const pick = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Score Rollouts', defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri });
      folder = pick?.[0];
    }
    if (!folder) return;
    const target = folder;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Scoring rollouts in ${path.basename(target.fsPath)}`, cancellable: true }, async (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      const files = await rolloutFilesIn(target);
      if (!files.length) {
        void notifyInfo(`Trajectory Inspector: no rollout files in ${target.fsPath} (see trajectoryInspector.rollouts.include).`);
        return;
      }
      let rollouts = 0;
      let steps = 0;
      let cached = 0;
      let failed = 0;
      let unreadable = 0;
      const errors: string[] = [];
      for (const [i, f] of files.slice(0, MAX_FOLDER_FILES).entries()) {
        if (ac.signal.aborted) break;
        progress.report({ increment: 100 / Math.min(files.length, MAX_FOLDER_FILES), message: `${i + 1}/${files.length}: ${path.basename(f.fsPath)}` });
        let loaded;
        try {
          loaded = await loader.load(f.fsPath);
        } catch {
          unreadable++;
          continue;
        }
        if (!loaded.rollouts.length) continue;
        service.fileLoaded(f.fsPath, loaded.rollouts);
        const run = await service.scoreRollouts(f.fsPath, loaded.rollouts, { signal: ac.signal, quiet: true });
        if (!run) {
          failed += loaded.rollouts.length;
          errors.push('the scorer cannot run here');
          break;
        }
        for (const r of run.results) {
          rollouts++;
          steps += r.steps.length;
          if (r.fromCache) cached++;
        }
        for (const fl of run.failures) {
          failed += fl.ids.length;
          if (errors.length < 3) errors.push(`${path.basename(f.fsPath)}: ${fl.error.message}`);
        }
        if (service.state.kind === 'failed') break;
      }
      const summary = `scored ${rollouts} rollout(s), ${steps} steps (${cached} from the cache)${failed ? `; ${failed} failed` : ''}${unreadable ? `; ${unreadable} file(s) not readable as rollouts` : ''}${ac.signal.aborted ? '; cancelled' : ''}`;
      service.output.info(`Score All Rollouts in ${target.fsPath}: ${summary}${errors.length ? ` — ${errors.join(' | ')}` : ''}`);
      if (failed) void notifyWithLog(service.output, 'error', `Trajectory Inspector: ${summary}. ${errors[0] ?? ''}`);
      else void notifyInfo(`Trajectory Inspector: ${summary}.`);
    });
  });

  reg('trajectoryInspector.selectScorer', async () => {
    type Item = vscode.QuickPickItem & { id: string };
    const cfg = service.settings;
    const items: Item[] = [
      { id: 'builtin', label: `${cfg.command.length ? '' : '$(check) '}Built-in rules (CPU)`, description: 'exit codes, error text, failing tests, repeats, no-ops, timeouts' },
      { id: 'custom', label: `${cfg.command.length ? '$(check) ' : ''}Scorer command…`, description: cfg.command.length ? cfg.command.join(' ') : 'your own scorer process (trajectoryInspector.scorer.command)' },
      { id: 'restart', label: '$(debug-restart) Restart scorer', description: service.state.kind === 'failed' ? 'clears the failed state' : '' },
      { id: 'log', label: '$(output) Show scorer log' },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'Step scorer', placeHolder: `now: ${service.scorerLabel} (${service.state.kind})` });
    if (!pick) return;
    if (pick.id === 'builtin') await updateUserSetting('scorer.command', []);
    else if (pick.id === 'custom') {
      const text = await vscode.window.showInputBox({
        title: 'Scorer command',
        prompt: 'The executable and its arguments, separated by spaces (quote an argument with spaces in "…"), or a JSON array as in settings.json. It must speak the scorer protocol; it runs only in a trusted workspace.',
        value: cfg.command.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' '),
        placeHolder: 'python3 /path/to/scorers/python/ti-scorer --backend hf --model /models/prm',
      });
      if (text === undefined) return;
      const argv = text.trim() === '' ? [] : parseCommandLine(text);
      if (!argv) {
        void notifyError('Trajectory Inspector: the scorer command is a JSON array of strings or words separated by spaces.');
        return;
      }
      await updateUserSetting('scorer.command', argv);
    } else if (pick.id === 'restart') service.restart();
    else service.output.show(true);
    if (pick.id === 'builtin' || pick.id === 'custom' || pick.id === 'restart') {
      // Score what is open with the scorer chosen now: a scorer that cannot start says so at once.
      service.reloadConfig();
      for (const p of service.openPanels()) if (p.rollout) void service.scoreRollouts(p.uri.fsPath, [p.rollout]);
    }
  });

  // The CodeLens and hover links of the raw file's inline scores (scoring/inline.ts).
  reg(OPEN_STEP_COMMAND, (file: unknown, rolloutIndex: unknown, stepIndex: unknown) => {
    if (typeof file === 'string' && Number.isInteger(rolloutIndex) && Number.isInteger(stepIndex)) return timelines.openRollout(vscode.Uri.file(file), rolloutIndex as number, stepIndex as number);
  });
  reg(EXPLAIN_COMMAND, (text: unknown) => {
    if (typeof text === 'string') void notifyInfo(text);
  });
  reg('trajectoryInspector.restartScorer', () => service.restart());
  reg('trajectoryInspector.cancelScoring', () => service.cancelAll());
  reg('trajectoryInspector.clearScoreCache', async () => {
    await service.cache.clear();
    void notifyInfo('Trajectory Inspector: the score cache is empty.');
  });
  return table;
}

