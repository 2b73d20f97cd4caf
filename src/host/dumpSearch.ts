/**
 * `Find in Dump…` (trajectoryInspector.findInDump): streaming search inside a rollout file (core
 * scale/search.ts) with the hits listed in a quick pick as they are found (progress in its title,
 * cancelled when the pick closes). Picking a hit opens its rollout in the timeline at the step
 * whose text holds it (a large JSONL dump through its index), or the file at that line when the
 * file is not a row-per-line dump.
 *
 * Query syntax: text is a literal matched as written inside the file's JSON strings (quotes and
 * line breaks as the agent saw them); `/pattern/` is a regular expression on the raw lines. Case is
 * ignored unless the query has an upper-case letter (smart case).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { NotIndexableError, type RolloutIndex } from '../core/scale/rolloutIndex';
import { readRange } from '../core/scale/rowLoad';
import { searchFile, SearchCancelledError, type SearchHit } from '../core/scale/search';
import { findRipgrep } from './search/ripgrep';
import { dumpIndexes } from './dumpIndexes';
import { revealInSource, type TimelineEditorProvider } from './timelineEditor';

export const FIND_IN_DUMP_COMMAND = 'trajectoryInspector.findInDump';

interface HitItem extends vscode.QuickPickItem {
  hit: SearchHit;
}

/** The file to search: the argument (explorer / Rollouts view), the active timeline's, or the active editor's. */
function targetFile(arg: unknown, timelines: TimelineEditorProvider): vscode.Uri | null {
  if (arg instanceof vscode.Uri) return arg;
  if (arg && typeof arg === 'object' && 'path' in arg && typeof (arg as { path: unknown }).path === 'string') return vscode.Uri.file((arg as { path: string }).path);
  const panel = timelines.activePanel;
  if (panel) return panel.uri;
  if (vscode.window.activeTextEditor) return vscode.window.activeTextEditor.document.uri;
  // A file too large for a text editor opens as a placeholder tab with no editor: take the tab's file.
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputText ? input.uri : null;
}

/** Parses the query box: `/re/` → regex; smart case. */
export function parseQuery(q: string): { query: string; regex: boolean; caseSensitive: boolean } {
  const m = /^\/(.+)\/$/.exec(q);
  const query = m ? m[1] : q;
  return { query, regex: m !== null, caseSensitive: query !== query.toLowerCase() };
}

/** The step of `rollout` whose source range holds byte `offset` of the file (its row at `rowOffset`), or null. */
async function stepAt(file: string, index: RolloutIndex, i: number, offset: number): Promise<number | null> {
  const dumps = dumpIndexes();
  if (!dumps) return null;
  const e = index.entries[i];
  const r = await dumps.open(file, i);
  // Step ranges of a row are its byte offset plus UTF-16 offsets inside it (rowLoad.ts); of a JSON array item, its UTF-16 offset plus those (arrayIndex.ts).
  const prefix = (await readRange(file, e.offset, offset - e.offset)).toString('utf8');
  const at = (e.charOffset ?? e.offset) + prefix.length;
  let best: number | null = null;
  for (const s of r.steps) {
    if (s.range && s.range.start <= at && at < s.range.end && (best === null || s.range.start >= r.steps[best].range!.start)) best = s.index;
  }
  return best;
}

/** Registers the command. */
export function registerDumpSearch(timelines: TimelineEditorProvider, output: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand(FIND_IN_DUMP_COMMAND, async (arg?: unknown) => {
    const uri = targetFile(arg, timelines);
    if (!uri || uri.scheme !== 'file') {
      void vscode.window.showInformationMessage('Trajectory Inspector: open a rollout file (or its timeline) to search in it.');
      return;
    }
    const file = uri.fsPath;
    const raw = await vscode.window.showInputBox({
      title: `Find in ${path.basename(file)}`,
      prompt: 'Text as the agent saw it (a command, output text), or /regex/. Case is ignored unless the query has capitals.',
      placeHolder: 'e.g. pytest -x  or  /exit code:? [1-9]/',
    });
    if (!raw) return;
    const q = parseQuery(raw);
    let index: RolloutIndex | null = null;
    const dumps = dumpIndexes();
    if (dumps && /\.jsonl?$/i.test(file)) {
      try {
        index = await dumps.index(file);
      } catch (e) {
        if (!(e instanceof NotIndexableError)) output.warn(`find: cannot index ${file}: ${String(e)}`);
      }
    }
    const pick = vscode.window.createQuickPick<HitItem>();
    pick.title = `Find "${raw}" in ${path.basename(file)}`;
    pick.placeholder = 'Searching… pick a hit to open its rollout at that step';
    pick.matchOnDetail = true;
    pick.busy = true;
    const ac = new AbortController();
    const items: HitItem[] = [];
    const toItem = (h: SearchHit): HitItem => {
      const e = h.rollout !== null && index ? index.entries[h.rollout] : null;
      return { label: e ? `${e.taskId ?? e.id}` : `line ${h.line}`, description: e ? `rollout ${h.rollout! + 1} · line ${h.line}` : `byte ${h.offset}`, detail: h.preview, hit: h };
    };
    let lastUpdate = 0;
    pick.onDidHide(() => {
      ac.abort();
      pick.dispose();
    });
    pick.onDidAccept(async () => {
      const sel = pick.selectedItems[0];
      if (!sel) return;
      pick.hide();
      const h = sel.hit;
      try {
        if (index && h.rollout !== null) {
          const step = await stepAt(file, index, h.rollout, h.offset);
          await timelines.openRollout(uri, h.rollout, step);
        } else {
          await revealInSource(file, null, h.line);
        }
      } catch (e) {
        void vscode.window.showErrorMessage(`Trajectory Inspector: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
    pick.show();
    const t0 = Date.now();
    try {
      const result = await searchFile(file, q.query, {
        rgPath: findRipgrep(vscode.env.appRoot),
        regex: q.regex,
        caseSensitive: q.caseSensitive,
        signal: ac.signal,
        entries: index?.entries,
        onHits: (hits, read, size) => {
          items.push(...hits.map(toItem));
          const now = Date.now();
          if (now - lastUpdate > 200 || read >= size) {
            lastUpdate = now;
            pick.items = items;
            pick.title = `Find "${raw}" in ${path.basename(file)}: ${items.length} hits · ${Math.floor((100 * read) / Math.max(1, size))}%`;
          }
        },
      });
      pick.items = items;
      pick.busy = false;
      pick.title = `Find "${raw}" in ${path.basename(file)}: ${items.length}${result.complete ? '' : '+'} hits in ${((Date.now() - t0) / 1000).toFixed(1)} s`;
      pick.placeholder = items.length ? 'Pick a hit to open its rollout at that step' : 'No hits';
    } catch (e) {
      if (e instanceof SearchCancelledError) return;
      pick.hide();
      void vscode.window.showErrorMessage(`Trajectory Inspector: Find in Dump: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
}
