/**
 * Live follow and progressive open (issue 13) of ~100 MB sessions of the formats users follow:
 *   - a Claude Code session (bench/genCodingSessions.ts: the real records of the census session
 *     258c7280…, CLI 2.1.39, repeated with fresh ids, with its subagent transcripts beside it);
 *   - a Codex CLI rollout (the real records of the census rollouts of Codex Desktop 0.104 and CLI
 *     0.39, repeated with fresh ids);
 *   - an OpenHands V1 events JSONL (bench/genSession.ts: the fixture conversation's event shapes,
 *     outputs sized like a real session's), as measured before.
 * For each, in one interleaved run (every run opens each file progressively, then fully):
 *   (a) time to the first steps shown: the host's work until the first `rollout` message is ready
 *       (progressive: core JsonlFollower.open on the file's first 256 KiB, as TimelinePanel opens a
 *       streamable file; against the full load the timeline did before: the load worker
 *       (core/loadPool.ts running the built dist/loadWorker.js, warm) and in-thread `loadFile`),
 *       then the page's work until the first card shows (the built webview in Chromium, the message
 *       carried as JSON text), and both together ("end to end" here: host + page, without VS Code's
 *       IPC); then the rest of the file read in slices (FollowLoop) and the longest block of the
 *       thread meanwhile (perf_hooks.monitorEventLoopDelay), against the worker's;
 *   (b) one real turn appended to the open, caught-up file (the model's records: its new step; then
 *       its tool result, which joins that step): time from the write until the step's card shows in
 *       the page, and until the result shows on it, through what the host runs (core watchFile:
 *       fs.watch on the folder; FollowLoop; StepSlices.update; rolloutUpdateMessage) and the webview;
 *   (c) the Claude Code and Codex streams' snapshot cost after one appended line on the 100 MB file
 *       (RecordStream contract: about the work since the previous snapshot), against the same on the
 *       census file (2.7 MB / 0.3 MB);
 *   (d) memory: the host thread's heap and the process's RSS after the progressive open, after the
 *       follower read the whole file, and after a full load (worker, in-thread), each in a fresh
 *       process (bench/followMemory.ts);
 *   (e) the fallback of formats without stream(): a full reload of a 10,000-step ATIF trajectory
 *       (bench/genLarge.ts), which sets how often such a file is read again while it changes.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { FollowLoop, JsonlFollower, watchFile, type FollowResult } from '../src/core/follow';
import { loadFile, type LoadedFile } from '../src/core/load';
import { LoadPool } from '../src/core/loadPool';
import type { Rollout } from '../src/core/model';
import { rolloutMessage, rolloutUpdateMessage } from '../src/host/rolloutMessage';
import { LoadedSource } from '../src/host/rolloutSource';
import { StepSlices } from '../src/host/stepSlices';
import type { LiveInfo, RolloutMessage } from '../src/shared/protocol';
import { launchChromium, startHarness, waitForReady } from '../test/webview/harness';
import { serveSlices, type SliceHost } from '../test/webview/sliceHost';
import { censusFile } from '../test/unit/samples';
import {
  CC_MAIN,
  CODEX_ROLLOUT,
  CODEX_VIBE,
  claudeCodeAppend,
  claudeCodeSession,
  codexAppend,
  codexRollout,
  type AppendTurn,
  type GeneratedSession,
} from './genCodingSessions';
import { atifLong } from './genLarge';
import { nextCall, sessionEvents, sessionJsonl } from './genSession';
import { fmt, median, OUT_DIR, REPO_ROOT, writeSection } from './lib';

declare const window: any;
declare const document: any;

/** Measured runs (after a warm-up) and appends; FOLLOW_RUNS / FOLLOW_APPENDS override them for a quick try. */
const RUNS = Number(process.env.FOLLOW_RUNS ?? 3);
const APPENDS = Number(process.env.FOLLOW_APPENDS ?? 20);
const MiB = 1024 * 1024;
const CONFIG = { collapseOutputLines: 20 };
const WORKER = path.join(REPO_ROOT, 'dist', 'loadWorker.js');
/** As host/timelineEditor.ts reads a followed file. */
const SLICE_BYTES = 512 * 1024;

const live = (f: JsonlFollower): LiveInfo => ({ mode: 'stream', state: f.caughtUp ? 'live' : 'reading', bytes: f.bytesRead, size: f.fileSize });

/** A session file measured: how it was made and how to append one more turn to it. */
interface Subject {
  key: string;
  title: string;
  gen: GeneratedSession;
  /** How the input was made (markdown). */
  made: string;
  turn(k: number): AppendTurn;
  /** Files or folders the followed copy needs beside it (linked, not copied). */
  beside: string[];
}

function subjects(): Subject[] {
  const cc = claudeCodeSession(path.join(OUT_DIR, 'follow-claude-code'), 100 * MiB);
  const cx = codexRollout(path.join(OUT_DIR, 'follow-codex'), 100 * MiB);
  const oh = sessionJsonl(path.join(OUT_DIR, 'session-100m.jsonl'), 100 * MiB);
  const ohTemplate = sessionEvents(3);
  const sid = path.basename(cc.file, '.jsonl');
  return [
    {
      key: 'claude-code',
      title: 'Claude Code',
      gen: cc,
      made: `the ${fmt(fs.statSync(censusFile(CC_MAIN)).size / MiB, 1)} MiB census session \`${path.basename(CC_MAIN)}\` (CLI 2.1.39) ${cc.copies}×, its subagent transcript beside each copy`,
      turn: (k) => claudeCodeAppend(cc.copies, k),
      beside: [path.join(path.dirname(cc.file), sid)],
    },
    {
      key: 'codex-cli',
      title: 'Codex CLI',
      gen: cx,
      made: `the census rollouts \`${path.basename(CODEX_ROLLOUT).slice(0, 30)}…\` (Codex Desktop 0.104, texts redacted to markers, so its records are short: ${fmt(cx.lines / (cx.size / 1024), 1)} lines per KiB in the file) and \`${path.basename(CODEX_VIBE)}\` (CLI 0.39) in turn, ${cx.copies}× each, one \`session_meta\`; the warnings are the census file's two \`patch_apply_end\` events without their call, in each copy`,
      turn: (k) => codexAppend(cx.copies, k),
      beside: [],
    },
    {
      key: 'openhands',
      title: 'OpenHands V1 events',
      gen: { file: oh.file, size: oh.size, lines: oh.events, copies: 1, subagents: 0 },
      made: 'bench/genSession.ts: the OpenHands software-agent-sdk fixture\'s event shapes; most outputs 0.2–4 KB, one in twenty 40–200 KB',
      turn: (k) => {
        const [act, obs] = nextCall(ohTemplate, k);
        return { call: [JSON.stringify(act)], result: [JSON.stringify(obs)], snippet: `appended ${k}` };
      },
      beside: [],
    },
  ];
}

/** Posts a message into the page as JSON text; resolves when card `k` shows its content. ms in the page from the text's arrival. */
async function showIn(page: Page, msg: unknown, k = 0): Promise<number> {
  await page.evaluate((json) => {
    window.__tArrive = performance.now();
    window.postMessage(JSON.parse(json), '*');
  }, JSON.stringify(msg));
  await waitCard(page, k);
  return (await page.evaluate(() => window.__tShown - window.__tArrive)) as number;
}

/** The page's step list: its height, the page's scroll height and position, the first and last card rendered. */
async function listState(page: Page): Promise<{ listHeight: number; scrollHeight: number; scrollY: number; rendered: [number, number] }> {
  return page.evaluate(() => {
    const app = document.querySelector('ti-app')?.shadowRoot;
    const list = app?.querySelector('main.timeline');
    const cards = [...(app?.querySelectorAll('ti-step-card') ?? [])].map((x: any) => Number(x.dataset.index));
    return {
      listHeight: Math.round(list?.getBoundingClientRect().height ?? 0),
      scrollHeight: document.documentElement.scrollHeight,
      scrollY: Math.round(window.scrollY),
      rendered: [Math.min(...cards), Math.max(...cards)] as [number, number],
    };
  });
}

/** Waits until step card `k` shows its content (not loading); `text`: until its text (shadow roots included) holds it. */
async function waitCard(page: Page, k: number, text: string | null = null, timeout = 120_000): Promise<void> {
  await page.waitForFunction(
    ({ i, want }: { i: number; want: string | null }) => {
      const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`ti-step-card[data-index="${i}"]`);
      let ok = !!c && !c.classList.contains('loading') && !!c.shadowRoot && c.shadowRoot.childElementCount > 0 && !c.shadowRoot.querySelector('.slice-loading');
      if (ok && want !== null) {
        // The text of the card and of the shadow roots inside it (no named helpers: they do not exist in the page).
        let text = '';
        const stack: any[] = [c];
        while (stack.length) {
          const n = stack.pop();
          if (n.nodeType === 3) text += n.textContent;
          else {
            if (n.shadowRoot) stack.push(n.shadowRoot);
            for (let j = n.childNodes.length - 1; j >= 0; j--) stack.push(n.childNodes[j]);
          }
        }
        ok = text.includes(want);
      }
      if (ok) window.__tShown = performance.now();
      return ok;
    },
    { i: k, want: text },
    { polling: 'raf', timeout },
  ).catch(async (e) => {
    const seen = await page.evaluate((i: number) => {
      const app = document.querySelector('ti-app')?.shadowRoot;
      const c = app?.querySelector(`ti-step-card[data-index="${i}"]`);
      return {
        count: app?.querySelector('#step-count')?.textContent ?? null,
        cards: [...(app?.querySelectorAll('ti-step-card') ?? [])].map((x: any) => `${x.dataset.index}${x.classList.contains('loading') ? ' loading' : ''}`).slice(-6),
        card: c ? { loading: c.classList.contains('loading'), sliceLoading: !!c.shadowRoot?.querySelector('.slice-loading'), text: String(c.shadowRoot?.textContent ?? '').slice(0, 300) } : null,
      };
    }, k);
    throw new Error(`card ${k}${text ? ` with "${text}"` : ''} not shown: ${JSON.stringify(seen)} (${(e as Error).message})`);
  });
}

interface OpenRun {
  host: number;
  page: number;
  endToEnd: number;
  firstSteps: number;
  messageMB: number;
}

interface Figures {
  prog: OpenRun[];
  worker: OpenRun[];
  inThread: number[];
  catchUp: { totalMs: number; maxBlockMs: number; slices: number }[];
  workerBlock: { totalMs: number; maxBlockMs: number }[];
  appends: { hostMs: number; countMs: number; shownMs: number | null; resultHostMs: number; resultShownMs: number | null }[];
  /** Set when the newest step's card could not be shown in the page (the list as it was then). */
  unreachable?: { step: number; listHeight: number; scrollHeight: number; scrollY: number; rendered: [number, number]; error: string } | null;
  steps: number;
  /** Located warnings of the followed file read to its end. */
  warnings: number;
  fullMessageMB: number;
  snapshot?: { big: number[]; small: number[]; smallFile: string };
  memory?: Record<string, { heapMB: number; rssMB: number; peakRssMB: number; baseRssMB: number; steps: number }>;
}

const newFigures = (): Figures => ({ prog: [], worker: [], inThread: [], catchUp: [], workerBlock: [], appends: [], steps: 0, warnings: 0, fullMessageMB: 0 });

async function main(): Promise<void> {
  const only = process.env.FOLLOW_ONLY?.split(',');
  const subs = subjects().filter((s) => !only || only.includes(s.key));
  for (const s of subs) console.log(`input ${s.key}: ${s.gen.file}, ${fmt(s.gen.size / MiB, 1)} MiB, ${s.gen.lines} lines`);
  const figs = new Map(subs.map((s) => [s.key, newFigures()]));
  const harness = await startHarness();
  const browser = await launchChromium();
  const pool = new LoadPool({ script: WORKER, size: 1, idleMs: 0 });
  const open = async (): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(harness.url);
    await waitForReady(page);
    return page;
  };
  try {
    await pool.load(subs[0].gen.file); // warm the worker
    for (let run = 0; run < RUNS + 1; run++) {
      for (const s of subs) {
        const F = figs.get(s.key)!;
        const file = s.gen.file;
        // (a) progressive: first part → first message → page.
        {
          const page = await open();
          const t0 = performance.now();
          const f = (await JsonlFollower.open(file))!;
          const slices = new StepSlices();
          const msg: RolloutMessage = rolloutMessage(new LoadedSource(f.loaded), 0, null, CONFIG, { slices, live: live(f) });
          const host = performance.now() - t0;
          const inPage = await showIn(page, msg);
          const r: OpenRun = { host, page: inPage, endToEnd: performance.now() - t0, firstSteps: f.loaded.rollouts[0].steps.length, messageMB: JSON.stringify(msg).length / 1e6 };
          // The rest in slices, as the host reads it, measuring the longest block of this thread.
          const h = monitorEventLoopDelay({ resolution: 10 });
          h.enable();
          await new Promise((res) => setTimeout(res, 25));
          const t1 = performance.now();
          let slicesRead = 0;
          await new Promise<void>((resolve) => {
            const loop = new FollowLoop(
              f,
              (res: FollowResult) => {
                slicesRead++;
                if (f.caughtUp || res.kind !== 'update') {
                  loop.close();
                  resolve();
                }
              },
              { sliceBytes: SLICE_BYTES },
            );
            loop.poke();
          });
          const totalMs = performance.now() - t1;
          await new Promise((res) => setTimeout(res, 40));
          h.disable();
          F.steps = f.loaded.rollouts[0].steps.length;
          await page.close();
          if (run > 0) {
            F.prog.push(r);
            F.catchUp.push({ totalMs, maxBlockMs: h.max / 1e6, slices: slicesRead });
          }
          console.log(`run ${run} ${s.key} progressive: host ${fmt(host, 0)} ms, page ${fmt(inPage, 0)} ms, end to end ${fmt(r.endToEnd, 0)} ms, ${r.firstSteps} first steps; rest read in ${fmt(totalMs, 0)} ms (${slicesRead} slices), longest block ${fmt(h.max / 1e6, 0)} ms`);
        }
        // (a) the full load the timeline did before: the load worker, then the page (sliced message: heads).
        {
          const page = await open();
          const h = monitorEventLoopDelay({ resolution: 10 });
          h.enable();
          await new Promise((res) => setTimeout(res, 25));
          const t0 = performance.now();
          const loaded: LoadedFile = await pool.load(file);
          const full = loaded.rollouts[0];
          const msg = rolloutMessage(new LoadedSource(loaded), 0, null, CONFIG, { slices: new StepSlices() });
          const host = performance.now() - t0;
          await new Promise((res) => setTimeout(res, 40));
          h.disable();
          await serveSlices(page, full);
          const inPage = await showIn(page, msg);
          F.fullMessageMB = JSON.stringify(msg).length / 1e6;
          await page.close();
          if (run > 0) {
            F.worker.push({ host, page: inPage, endToEnd: host + inPage, firstSteps: full.steps.length, messageMB: F.fullMessageMB });
            F.workerBlock.push({ totalMs: host, maxBlockMs: h.max / 1e6 });
          }
          console.log(`run ${run} ${s.key} worker full load: host ${fmt(host, 0)} ms (longest block ${fmt(h.max / 1e6, 0)} ms), page ${fmt(inPage, 0)} ms`);
        }
        if (run > 0) {
          const t0 = performance.now();
          await loadFile(file);
          F.inThread.push(performance.now() - t0);
          console.log(`run ${run} ${s.key} in-thread loadFile: ${fmt(F.inThread.at(-1)!, 0)} ms`);
        }
      }
    }

    // (b) turns appended to the open, caught-up file (a copy: the input stays as generated).
    for (const s of subs) await appendRuns(s, figs.get(s.key)!, open);
  } finally {
    await pool.dispose();
    await browser.close();
    await harness.close();
  }

  // (c) snapshot cost after one appended line.
  for (const s of subs) {
    const small = s.key === 'claude-code' ? censusFile(CC_MAIN) : s.key === 'codex-cli' ? censusFile(CODEX_ROLLOUT) : null;
    if (!small) continue;
    figs.get(s.key)!.snapshot = { big: await snapshotCost(s, s.gen.file, s.beside), small: await snapshotCost(s, small, []), smallFile: small };
    const sn = figs.get(s.key)!.snapshot!;
    console.log(`${s.key} snapshot after 1 line: 100 MB ${sn.big.map((x) => fmt(x, 2)).join(', ')} ms; census file ${sn.small.map((x) => fmt(x, 2)).join(', ')} ms`);
  }

  // (d) memory, each in a fresh process.
  for (const s of subs) {
    const m: NonNullable<Figures['memory']> = {};
    for (const mode of ['open', 'caught-up', 'worker', 'in-thread']) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', path.join(__dirname, 'followMemory.ts'), mode, s.gen.file], { cwd: REPO_ROOT, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`followMemory ${mode} ${s.key} failed: ${r.stderr}`);
      m[mode] = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
      console.log(`memory ${s.key} ${mode}: ${JSON.stringify(m[mode])}`);
    }
    figs.get(s.key)!.memory = m;
  }

  // (e) the fallback: a whole reload of a 10,000-step ATIF trajectory.
  const atif = atifLong(path.join(OUT_DIR, 'atif-10k.trajectory.json'), 10_000);
  const reload: number[] = [];
  {
    const p2 = new LoadPool({ script: WORKER, size: 1, idleMs: 0 });
    await p2.load(atif.file);
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await p2.load(atif.file);
      reload.push(performance.now() - t0);
    }
    await p2.dispose();
  }

  writeSection('follow', 'Live follow and progressive open of 100 MB sessions (issue 13)', report(subs, figs, atif.size, reload));
}

/**
 * Follows a copy of the subject's file in a page, Follow on, and appends APPENDS + 1 real turns a
 * few hundred ms apart (the first unmeasured): the model's records, then, once its step shows,
 * the tool result's.
 */
async function appendRuns(s: Subject, F: Figures, open: () => Promise<Page>): Promise<void> {
  const dir = path.join(OUT_DIR, 'follow-run', s.key);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, path.basename(s.gen.file));
  fs.copyFileSync(s.gen.file, copy);
  for (const b of s.beside) fs.symlinkSync(b, path.join(dir, path.basename(b)));
  const page = await open();
  const f = (await JsonlFollower.open(copy))!;
  const slices = new StepSlices();
  const first = rolloutMessage(new LoadedSource(f.loaded), 0, null, CONFIG, { slices, live: live(f) });
  // The host answers slice requests from the rollout it holds now (timelineEditor.ts: this.rollout).
  const host: SliceHost = await serveSlices(page, f.loaded.rollouts[0]);
  await showIn(page, first);
  while (!f.caughtUp) await f.read({ maxBytes: 8 * MiB });
  F.warnings = f.loaded.issues?.length ?? 0;
  console.log(`${s.key}: following ${copy}: ${f.loaded.rollouts[0].steps.length} steps, ${F.warnings} warnings`);
  let sent = f.loaded.rollouts[0].steps.length;
  host.rollout = f.loaded.rollouts[0];
  const caught = rolloutUpdateMessage(new LoadedSource(f.loaded), 0, 0, slices.update(f.loaded.rollouts[0], 0), live(f));
  await page.evaluate((json) => window.postMessage(JSON.parse(json), '*'), JSON.stringify(caught));
  let onUpdate: ((r: Rollout) => void) | null = null;
  const loop = new FollowLoop(f, (r) => {
    if (r.kind !== 'update') return;
    const rollout = f.loaded.rollouts[0];
    const from = Math.min(r.changes[0].changedFrom, sent);
    const msg = rolloutUpdateMessage(new LoadedSource(f.loaded), 0, from, slices.update(rollout, from), live(f));
    sent = rollout.steps.length;
    host.rollout = rollout;
    void page.evaluate((json) => window.postMessage(JSON.parse(json), '*'), JSON.stringify(msg));
    onUpdate?.(rollout);
  }, { sliceBytes: SLICE_BYTES });
  const watch = watchFile(copy, () => loop.poke());
  // Follow on, as the user would have it while watching a session.
  await page.evaluate(() => window.postMessage({ type: 'toggleFollow', on: true }, '*'));
  await new Promise((r) => setTimeout(r, 500));
  const hostWhen = (ok: (r: Rollout) => boolean) =>
    new Promise<number>((res) => {
      onUpdate = (r) => {
        if (ok(r)) res(performance.now());
      };
    });
  // The page's list, when the card of the newest step cannot be shown (what the virtualizer made of it).
  let unreachable: Figures['unreachable'] = null;
  try {
    for (let k = 0; k < APPENDS + 1; k++) {
      const turn = s.turn(k);
      const n = f.loaded.rollouts[0].steps.length;
      // The model's records: a new step (index n).
      const hostDone = hostWhen((r) => r.steps.length > n);
      const t0 = performance.now();
      fs.appendFileSync(copy, turn.call.map((l) => `${l}\n`).join(''));
      const tHost = await hostDone;
      await page.waitForFunction(
        (want: number) => Number(/^(\d+) steps/.exec(document.querySelector('ti-app')?.shadowRoot?.querySelector('#step-count')?.textContent ?? '')?.[1] ?? -1) >= want,
        n + 1,
        { polling: 'raf', timeout: 30_000 },
      );
      const counted = performance.now() - t0;
      let shown: number | null = null;
      if (!unreachable) {
        try {
          await waitCard(page, n, null, k === 0 ? 15_000 : 5_000);
          shown = performance.now() - t0;
        } catch (e) {
          unreachable = { step: n, ...(await listState(page)), error: (e as Error).message.slice(0, 300) };
          console.log(`${s.key}: the card of step ${n} does not show: ${JSON.stringify(unreachable)}`);
        }
      }
      await new Promise((r) => setTimeout(r, 150));
      // Its tool result, joining step n.
      const resultDone = hostWhen((r) => r.steps[n]?.observations.some((o) => o.output.includes(turn.snippet)) ?? false);
      const t1 = performance.now();
      fs.appendFileSync(copy, turn.result.map((l) => `${l}\n`).join(''));
      const tHostR = await resultDone;
      let shownR: number | null = null;
      if (!unreachable) {
        await waitCard(page, n, turn.snippet, 30_000);
        shownR = performance.now() - t1;
      }
      await new Promise((r) => setTimeout(r, 300));
      if (k > 0) F.appends.push({ hostMs: tHost - t0, countMs: counted, shownMs: shown, resultHostMs: tHostR - t1, resultShownMs: shownR });
      console.log(`${s.key} append ${k}: step ${n} host ${fmt(tHost - t0, 1)} ms, counted ${fmt(counted, 1)} ms, shown ${shown === null ? '—' : fmt(shown, 1)} ms; result host ${fmt(tHostR - t1, 1)} ms, shown ${shownR === null ? '—' : fmt(shownR, 1)} ms`);
    }
    F.unreachable = unreachable;
  } finally {
    watch.close();
    loop.close();
    await page.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The stream's `snapshot()` time (ms) after one more line, on a follower of (a copy of) `file` read
 * to its end: the first line of each of 10 appended turns (the rest of the turn is read after, unmeasured).
 */
async function snapshotCost(s: Subject, file: string, beside: string[]): Promise<number[]> {
  const dir = path.join(OUT_DIR, 'follow-run', `snap-${s.key}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, path.basename(file));
  fs.copyFileSync(file, copy);
  for (const b of beside) fs.symlinkSync(b, path.join(dir, path.basename(b)));
  try {
    const f = (await JsonlFollower.open(copy))!;
    while (!f.caughtUp) await f.read({ maxBytes: 8 * MiB });
    const stream = (f as unknown as { stream: { snapshot(): unknown } }).stream;
    const orig = stream.snapshot.bind(stream);
    let ms = 0;
    stream.snapshot = () => {
      const t0 = performance.now();
      const r = orig();
      ms = performance.now() - t0;
      return r;
    };
    const times: number[] = [];
    for (let k = 0; k < 11; k++) {
      const turn = s.turn(k);
      fs.appendFileSync(copy, `${turn.call[0]}\n`);
      ms = NaN;
      await f.read();
      if (k > 0) times.push(ms);
      fs.appendFileSync(copy, [...turn.call.slice(1), ...turn.result].map((l) => `${l}\n`).join(''));
      await f.read();
    }
    return times;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function report(subs: Subject[], figs: Map<string, Figures>, atifSize: number, reload: number[]): string {
  const med = (xs: number[]) => fmt(median(xs), 0);
  const list = (xs: number[]) => xs.map((x) => fmt(x, 0)).join(', ');
  const cell = (xs: number[]) => `${med(xs)} ms (${list(xs)})`;
  const rows: string[] = [];
  const blocks: string[] = [];
  const appendRows: string[] = [];
  const memRows: string[] = [];
  const unreachable: string[] = [];
  for (const s of subs) {
    const F = figs.get(s.key)!;
    const p = (k: keyof OpenRun) => F.prog.map((r) => r[k] as number);
    const w = (k: keyof OpenRun) => F.worker.map((r) => r[k] as number);
    rows.push(
      `| **${s.title}** | progressive (first 256 KiB) | ${cell(p('host'))} | ${cell(p('page'))} | **${cell(p('endToEnd'))}** | ${F.prog[0].firstSteps} | ${fmt(F.prog[0].messageMB, 2)} MB |`,
      `| | full load, load worker (before) | ${cell(w('host'))} | ${cell(w('page'))} | ${cell(w('endToEnd'))} | ${F.steps.toLocaleString('en-US')} (heads) | ${fmt(F.fullMessageMB, 1)} MB |`,
      `| | full load, in-thread \`loadFile\` | ${cell(F.inThread)} | — | — | | |`,
    );
    blocks.push(
      `| ${s.title} | ${fmt(median(w('endToEnd')) / median(p('endToEnd')), 0)}× | ${cell(F.catchUp.map((c) => c.totalMs))}, ${F.catchUp[0].slices} slices | **${cell(F.catchUp.map((c) => c.maxBlockMs))}** | ${cell(F.workerBlock.map((c) => c.maxBlockMs))} |`,
    );
    const a = (k: keyof Figures['appends'][number]) => F.appends.map((x) => x[k]);
    const mm = (xs: (number | null)[]) => {
      const ok = xs.filter((x): x is number => x !== null);
      if (!ok.length) return '**not shown** (see below)';
      return `**${fmt(median(ok), 1)} ms** / ${fmt(Math.max(...ok), 1)} ms${ok.length < xs.length ? ` (${xs.length - ok.length} not shown)` : ''}`;
    };
    appendRows.push(`| ${s.title} | ${F.appends.length} | ${mm(a('hostMs'))} | ${mm(a('countMs'))} | ${mm(a('shownMs'))} | ${mm(a('resultHostMs'))} | ${mm(a('resultShownMs'))} |`);
    const u = F.unreachable;
    if (u) {
      unreachable.push(
        `- ${s.title}: the card of the new step ${u.step.toLocaleString('en-US')} never showed; the page's step list was ${u.listHeight.toLocaleString('en-US')} px high ` +
          `(page scroll height ${u.scrollHeight.toLocaleString('en-US')} px, scrolled to ${u.scrollY.toLocaleString('en-US')} px), the cards rendered there ${u.rendered[0].toLocaleString('en-US')}–${u.rendered[1].toLocaleString('en-US')}.`,
      );
    }
    const m = F.memory!;
    const mc = (k: string) => `${fmt(m[k].heapMB, 0)} MB / ${fmt(m[k].rssMB, 0)} MB / ${fmt(m[k].peakRssMB, 0)} MB`;
    memRows.push(`| ${s.title} | ${fmt(m.open.baseRssMB, 0)} MB | ${mc('open')} (${m.open.steps} steps) | ${mc('caught-up')} | ${mc('worker')} | ${mc('in-thread')} |`);
  }
  const inputs = subs
    .map((s) => `- **${s.title}**: \`${path.relative(REPO_ROOT, s.gen.file)}\`, ${fmt(s.gen.size / MiB, 1)} MiB, ${s.gen.lines.toLocaleString('en-US')} lines, ${figs.get(s.key)!.steps.toLocaleString('en-US')} steps, ${figs.get(s.key)!.warnings} warnings — ${s.made}.`)
    .join('\n');
  const snaps = subs
    .filter((s) => figs.get(s.key)!.snapshot)
    .map((s) => {
      const sn = figs.get(s.key)!.snapshot!;
      const l = (xs: number[]) => xs.map((x) => fmt(x, 2)).join(', ');
      return `- ${s.title}: on the 100 MB file **${fmt(median(sn.big), 2)} ms** median (${l(sn.big)}); on the census file \`${path.basename(sn.smallFile).slice(0, 40)}\` (${fmt(fs.statSync(sn.smallFile).size / MiB, 1)} MiB) ${fmt(median(sn.small), 2)} ms (${l(sn.small)}).`;
    })
    .join('\n');
  const e2eFile = path.join(REPO_ROOT, '.test-artifacts', 'e2e', 'follow-latency.json');
  const e2e = fs.existsSync(e2eFile) ? { ms: (JSON.parse(fs.readFileSync(e2eFile, 'utf8')) as { latenciesMs: number[] }).latenciesMs, date: fs.statSync(e2eFile).mtime.toISOString().slice(0, 10) } : null;
  return `
Inputs (generated at bench time, deterministic, cached under bench/out/; bench/genCodingSessions.ts repeats the REAL records
of the census files, each copy with fresh uuids / message ids / request ids / tool-use and call ids / agent ids, the same
within a copy, so every tool result pairs with its call and streamed records share their message id; timestamps shifted):
${inputs}

"Host" is the extension host's work until the timeline's first \`rollout\` message is ready; "page" the built webview's work in
Chromium from the message's JSON text to the first step card shown (test/webview/harness.ts); "end to end" both, one after the
other (VS Code's IPC between them not included: see the e2e figure below). ${RUNS} runs after a warm-up, the three files
interleaved in each run (progressive open, then the full loads, of each); medians (all runs in brackets).

**(a) Time to the first steps shown** (target: < 0.5 s for a 100 MB session)

| session | open | host | page | end to end | steps in the first message | first message |
|---|---|---|---|---|---|---|
${rows.join('\n')}

After the first message, the rest of the file is read on the host's thread in slices of 512 KiB (FollowLoop, as
host/timelineEditor.ts reads it); the longest block of the thread meanwhile, against the receiving thread's longest block while
the load worker reads the file whole (monitorEventLoopDelay, 10 ms resolution):

| session | first steps sooner than the full load | rest read in | longest block while reading the rest | longest block, worker full load |
|---|---|---|---|---|
${blocks.join('\n')}

**(b) A turn appended to the open 100 MB session** (target: shown within 0.5 s), Follow on, a real turn of the format each time
(Claude Code: the streamed assistant records of a Bash call, then its progress records and tool result; Codex: turn context,
token count, reasoning and message items with their events, the exec_command calls, then their outputs; OpenHands: an
ActionEvent, then its ObservationEvent), a few hundred ms apart. "Step": from the write of the model's records until the
host's update is ready (watchFile's fs.watch event → FollowLoop read from the last offset → StepSlices.update) / until the
page's step count shows it / until the new step's card shows its content (Follow scrolled it into view); "result": from the
write of the tool result until the host's update holds it / until the step's card shows the result's text. Median / max:

| session | appends | step: host | step: counted in the page | step: its card shown | result: host | result: shown on the card |
|---|---|---|---|---|---|---|
${appendRows.join('\n')}
${unreachable.length ? `\n${unreachable.join('\n')}\n@lit-labs/virtualizer clamps the list's height at 8,200,000 px (Virtualizer.js \`_sizeHostElement\`, upstream lit/lit#3572):
cards past that height cannot be scrolled to, so Follow cannot bring the newest step into view (nor can the user) once a
rollout's cards add up to more than that — here, tens of thousands of short steps. This is the webview's list, not the
follower: the host's update and the step count arrive in the times above.\n` : ''}
The read costs the appended bytes only, whatever the file's size.
${e2e ? `End to end in code-server (\`npm run test:e2e -- --grep "live follow"\`, ${e2e.date}: the packaged extension, a small session open in
the timeline with Follow on, one line appended at a time by the test, until the step count shows it in the webview, polled by Playwright):
${e2e.ms.join(', ')} ms (median ${med(e2e.ms)} ms).` : 'End to end in code-server: run the e2e tier (`npm run test:e2e -- --grep "live follow"`), then this benchmark, to get the figure here.'}

**(c) The stream's snapshot after one appended line** (RecordStream contract, src/core/formats/types.ts: a snapshot costs about
the work since the previous one, not the whole file): \`snapshot()\` of the loader's stream inside JsonlFollower, the file read to
its end, then the first line of a real turn appended and read (10 turns):
${snaps}

Each snapshot builds the new or changed steps only; what still grows with the session is the fresh steps array it hands out
(a copy of the step references, ~0.2 ms at 36,000 steps) and, for Claude Code, the pending queued messages and the subagent
files listed.

**(d) Memory of the host**, each figure in a fresh Node process (bench/followMemory.ts; tsx and the modules loaded: the
baseline RSS): the host thread's heap after a full GC less the baseline / the process's RSS after it (worker threads included) /
its peak RSS:

| session | baseline RSS | after the progressive open | follower caught up (whole file read) | after a full load, load worker (kept alive as the host keeps it) | after a full load, in-thread |
|---|---|---|---|---|---|
${memRows.join('\n')}

**(e) Formats without an incremental reader** are read again whole after the file changes: a 10,000-step ATIF trajectory
(${fmt(atifSize / MiB, 1)} MiB) takes ${med(reload)} ms (${list(reload)}) in the load worker, so while it keeps changing it is read at most every
~${fmt((4 * median(reload)) / 1000, 1)} s (4× its load time, at least 0.3 s, at most 30 s apart: host/timelineEditor.ts \`scheduleReload\`).
`;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
