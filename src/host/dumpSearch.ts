/**
 * `Find in Dump…` (trajectoryInspector.findInDump): streaming search inside a rollout file (core
 * scale/fileSearch.ts) with the hits listed in a quick pick as they are found (progress in its title,
 * cancelled when the pick closes). Each hit names its rollout and (for the first 300) its step, with
 * the text around the match decoded as the agent saw it (core search/hitStep.ts). Picking a hit
 * opens its rollout in the timeline at the step whose text holds it (a JSONL dump through its
 * index), or the file at that line when the file is not a row-per-line dump.
 *
 * Query syntax: text is a literal matched as written inside the file's JSON strings (quotes and
 * line breaks as the agent saw them); `/pattern/` is a regular expression on the raw lines. Case is
 * ignored unless the query has an upper-case letter (smart case).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { NotIndexableError, type RolloutIndex } from '../core/scale/rolloutIndex';
import { readRange } from '../core/scale/rowLoad';
import { searchFile, SearchCancelledError, type SearchHit } from '../core/scale/fileSearch';
import { decodePreview, stepForHit } from '../core/search/hitStep';
import { queryRegExp } from '../core/search/workspaceSearch';
import { findRipgrep } from './search/ripgrep';
import type { CommandTable } from './commandTable';
import type { DumpIndexes } from './dumpIndexes';
import { notifyInfo, reportError } from './notify';
import { revealInSource } from './timeline/locations';
import type { TimelineEditorProvider } from './timelineEditor';

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

/**
 * The step each hit of rollout `i` belongs to (core search/hitStep.ts: the step whose text holds the
 * query, nearest the hit), keyed by the hit's byte offset. Reads the rollout's row once.
 */
async function stepsOfHits(dumps: DumpIndexes, file: string, index: RolloutIndex, i: number, offsets: readonly number[], re: RegExp | null): Promise<Map<number, number | null>> {
  const out = new Map<number, number | null>();
  const e = index.entries[i];
  const r = await dumps.open(file, i);
  // Step ranges of a row are its byte offset plus UTF-16 offsets inside it (rowLoad.ts); of a JSON array item, its UTF-16 offset plus those (arrayIndex.ts).
  const row = await readRange(file, e.offset, Math.max(0, Math.max(...offsets) - e.offset));
  for (const offset of offsets) {
    const at = (e.charOffset ?? e.offset) + row.toString('utf8', 0, offset - e.offset).length;
    out.set(offset, stepForHit(r, at, re));
  }
  return out;
}

/** The query as a regular expression on decoded step text (a literal as typed; a /regex/ as given), or null when it does not compile. */
function textRegExp(q: { query: string; regex: boolean; caseSensitive: boolean }): RegExp | null {
  try {
    return queryRegExp({ pattern: q.query, regex: q.regex, caseSensitive: q.caseSensitive });
  } catch {
    return null;
  }
}

/** Hits whose step is looked up as they stream in (one row read per rollout hit); past this many the step is found on pick. */
const STEP_LOOKUP_HITS = 300;

/** Find in Dump (a dump's rows through its index in `dumps`; null: the file is searched as plain text). */
export function dumpSearchCommands(timelines: TimelineEditorProvider, output: vscode.LogOutputChannel, dumps: DumpIndexes | null): CommandTable {
  return [{ id: FIND_IN_DUMP_COMMAND, run: (arg?: unknown) => findInDump(timelines, output, dumps, arg) }];
}

async function findInDump(timelines: TimelineEditorProvider, output: vscode.LogOutputChannel, dumps: DumpIndexes | null, arg?: unknown): Promise<void> {
  const uri = targetFile(arg, timelines);
  if (!uri || uri.scheme !== 'file') {
    void notifyInfo('Trajectory Inspector: open a rollout file (or its timeline) to search in it.');
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
  const re = textRegExp(q);
  /** Step (index) of each hit looked up so far, by byte offset. */
  const stepOf = new Map<number, number | null>();
  const describe = (h: SearchHit): string => {
    const e = h.rollout !== null && index ? index.entries[h.rollout] : null;
    if (!e) return `line ${h.line}`;
    const st = stepOf.get(h.offset);
    return `rollout ${h.rollout! + 1}${st !== undefined && st !== null ? ` · step #${st + 1}` : ''} · line ${h.line}`;
  };
  const toItem = (h: SearchHit): HitItem => {
    const e = h.rollout !== null && index ? index.entries[h.rollout] : null;
    return { label: e ? `${e.taskId ?? e.id}` : `line ${h.line}`, description: describe(h), detail: decodePreview(h.preview), hit: h };
  };
  // Steps of the first hits, rollout by rollout, while the search runs (the list shows "step #N" as they come).
  let lookups: Promise<void> = Promise.resolve();
  const lookUp = (hits: SearchHit[]) => {
    if (!index || !dumps) return;
    const dumpsOf = dumps;
    const byRollout = new Map<number, number[]>();
    for (const h of hits) if (h.rollout !== null) byRollout.set(h.rollout, [...(byRollout.get(h.rollout) ?? []), h.offset]);
    const idx = index;
    lookups = lookups.then(async () => {
      for (const [i, offsets] of byRollout) {
        if (ac.signal.aborted) return;
        try {
          for (const [o, st] of await stepsOfHits(dumpsOf, file, idx, i, offsets, re)) stepOf.set(o, st);
        } catch (e) {
          output.warn(`find: rollout ${i + 1} of ${file}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      for (const it of items) it.description = describe(it.hit);
      if (!ac.signal.aborted) pick.items = [...items];
    });
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
      if (index && dumps && h.rollout !== null) {
        const dumpsOf = dumps;
        const step = stepOf.has(h.offset) ? stepOf.get(h.offset)! : ((await stepsOfHits(dumpsOf, file, index, h.rollout, [h.offset], re)).get(h.offset) ?? null);
        await timelines.openRollout(uri, h.rollout, step, undefined, { pattern: q.query, regex: q.regex, caseSensitive: q.caseSensitive });
      } else {
        await revealInSource(file, null, h.line);
      }
    } catch (e) {
      void reportError(output, '', e);
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
        const room = STEP_LOOKUP_HITS - items.length;
        items.push(...hits.map(toItem));
        if (room > 0) lookUp(hits.slice(0, room));
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
    void reportError(output, 'Find in Dump', e);
  }
}
