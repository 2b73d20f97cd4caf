/**
 * The terminal player on big recordings (issue 15, goal 1): generated asciicast v2 casts of 100 MB
 * and 1 GB (bench/genCast.ts), played in the built timeline webview in Chromium (test/webview/harness.ts)
 * with the host's side answered by the real code (test/webview/castHost.ts: src/host/timeline/castFeed.ts,
 * the recording streamed by src/host/castStream.ts).
 * - first frame: from "open" (the rollout read: core loadFile of the 100 MB .cast as the timeline
 *   does; a 1 GB .cast is over the loader's 500 MiB limit, so there the rollout is a trial's, with the
 *   cast as its recording, as a Terminal-Bench trial has) until the terminal shows the first output
 *   line of the recording;
 * - seek: `seek(t)` on the player until the terminal shows the line printed at `t` (the generated lines
 *   carry their time), for times across the recording, after the host has read it to its end; and the
 *   time for the host to read it to its end (index and snapshots, one pass);
 * - memory: the bench process's RSS growth while the host reads the 1 GB cast (peak over baseline),
 *   and the page's JS heap after the seeks.
 * The peer, asciinema-player, is run on the same 100 MB file when it is installed (`asciinema-player`
 * resolvable from the repository, a dev dependency); else the line says so.
 */
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadFile } from '../src/core/load';
import type { Rollout } from '../src/core/model';
import { makeStep, unknownOutcome } from '../src/core/model';
import { rolloutMessage } from '../src/host/rolloutMessage';
import { LoadedSource } from '../src/host/rolloutSource';
import { StepSlices } from '../src/host/stepSlices';
import { launchChromium, startHarness, waitForReady, type Harness } from '../test/webview/harness';
import { serveCast, type CastHost } from '../test/webview/castHost';
import { postJson, serveSlices } from '../test/webview/sliceHost';
import { runPeer, peerBundleDir, peerVersion, startPeerServer, type PeerServer } from './castPeer';
import { GEN_EVENT_SECONDS, genCast, type GeneratedCast } from './genCast';
import { OUT_DIR, fmt, median, writeSection } from './lib';

// page.evaluate callbacks run in Chromium.
declare const window: any;
declare const document: any;

const RUNS = Number(process.env.CAST_BENCH_RUNS ?? 3);
/** How long the peer gets to show the first frame or a seek's line before the run says it did not (ms). */
const PEER_TIMEOUT_MS = 120_000;

/** A trial-like rollout whose recording is `cast` (two steps at its start and middle). */
function trialRollout(cast: GeneratedCast): Rollout {
  const steps = [0, cast.duration / 2].map((t, i) => makeStep(i, 'agent', { message: `step ${i}`, castTime: t, durationSec: null }));
  return {
    id: `${cast.file}#trial`,
    format: 'tb1-trial',
    schemaVersion: null,
    source: { path: cast.file, range: null, line: null },
    task: { id: 'generated', instruction: null },
    agent: { name: null, version: null, model: null },
    environment: { image: null, workdir: null },
    outcome: unknownOutcome(),
    groupId: null,
    steps,
    metadata: {},
    recording: { path: cast.file, kind: 'asciicast' },
  };
}

/**
 * In the page: plays the player as soon as it has the recording and records when the terminal first
 * shows output (`window.__firstFrame`, epoch ms), polling every 5 ms in the page itself (a poll over
 * the DevTools protocol would wait behind the messages the bench posts). No inner named functions:
 * the page lacks tsx's helpers.
 */
const watchFirstFrame = (): void => {
  window.__firstFrame = 0;
  const timer = setInterval(() => {
    const p = document.querySelector('ti-app')?.shadowRoot?.querySelector('ti-player');
    if (!p || !(p.duration > 0)) return;
    if (p.dataset.state !== 'playing' && !window.__played) {
      window.__played = true;
      p.play();
    }
    const text: string = p.shadowRoot?.querySelector('.xterm-rows')?.innerText ?? '';
    if (/\bline \d+/.test(text)) {
      window.__firstFrame = performance.timeOrigin + performance.now();
      p.pause();
      clearInterval(timer);
    }
  }, 5);
};

/** In the page: seeks the player to `t` and resolves with the ms until the terminal shows line `n` (synced). */
const seekInPage = (arg: { t: number; n: number }): Promise<number> =>
  new Promise((resolve, reject) => {
    const p = document.querySelector('ti-app').shadowRoot.querySelector('ti-player');
    const t0 = performance.now();
    const re = new RegExp(`\\bline ${arg.n}( |$)`, 'm');
    p.seek(arg.t);
    const timer = setInterval(() => {
      const text: string = p.shadowRoot?.querySelector('.xterm-rows')?.innerText ?? '';
      if (p.synced && re.test(text)) {
        clearInterval(timer);
        resolve(performance.now() - t0);
      } else if (performance.now() - t0 > 60_000) {
        clearInterval(timer);
        reject(new Error(`line ${arg.n} never showed after seek(${arg.t}): ${text.slice(-300)}`));
      }
    }, 2);
  });

/** The line number on screen at time `t` of a generated cast (t between two events). */
function lineAt(t: number): number {
  return Math.floor(t / GEN_EVENT_SECONDS + 1e-9) - 1;
}

/** Opens the player on `cast`: the ms until the first output line shows, and the page and host. */
async function open(browser: Browser, harness: Harness, cast: GeneratedCast, viaLoader: boolean): Promise<{ page: Page; host: CastHost; firstMs: number; loadMs: number; playerMs: number }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(harness.url);
  await waitForReady(page);
  await page.evaluate(watchFirstFrame);
  const t0 = performance.timeOrigin + performance.now();
  const file = viaLoader ? await loadFile(cast.file) : { path: cast.file, format: 'tb1-trial' as const, schemaVersion: null, rollouts: [trialRollout(cast)] };
  const loadMs = performance.timeOrigin + performance.now() - t0;
  const rollout = file.rollouts[0];
  const host = await serveCast(page, rollout);
  const sliceHost = await serveSlices(page, rollout);
  const slices = new StepSlices();
  // As the timeline panel does: step-slice answers wait for the recording's first window (castFeed.ts `gate`).
  sliceHost.hold = true;
  const msg = rolloutMessage(new LoadedSource(file), 0, 0, { collapseOutputLines: 20 }, { slices });
  await postJson(page, msg);
  host.feed.expect(msg.rollout);
  void host.feed.gate().then(() => sliceHost.release());
  await page.waitForFunction(() => window.__firstFrame > 0, undefined, { timeout: 180_000, polling: 50 });
  const shown = (await page.evaluate(() => window.__firstFrame as number)) as number;
  const loadAt = host.loadAt === null ? t0 : performance.timeOrigin + host.loadAt;
  return { page, host, firstMs: shown - t0, loadMs, playerMs: shown - loadAt };
}

/** ms from `seek(t)` until the terminal shows the line printed at `t`. */
async function seekMs(page: Page, t: number): Promise<number> {
  return page.evaluate(seekInPage, { t, n: lineAt(t) });
}

async function untilRead(host: CastHost): Promise<number> {
  const t0 = performance.now();
  while (!host.progress?.done) await new Promise((r) => setTimeout(r, 20));
  return performance.now() - t0;
}

function seekTimes(d: number): { label: string; t: number }[] {
  const mid = (x: number): number => (Math.floor(x / GEN_EVENT_SECONDS) + 0.5) * GEN_EVENT_SECONDS;
  return [
    { label: 'last minute', t: mid(d - 45) },
    { label: '10 %', t: mid(d * 0.1) },
    { label: '50 %', t: mid(d * 0.5) },
    { label: '90 %', t: mid(d * 0.9) },
    { label: 'back to 1 s', t: mid(1) },
  ];
}

async function main(): Promise<void> {
  // CAST_BENCH_MB: the sizes to run, MB, comma-separated (default 1000,100; the 1 GB one first: its memory is measured).
  const sizes = (process.env.CAST_BENCH_MB ?? '1000,100').split(',').map(Number);
  const casts = sizes.map((mb) => genCast(path.join(OUT_DIR, mb === 1000 ? 'cast-1gb.cast' : `cast-${mb}mb.cast`), mb * 1e6));
  const browser = await launchChromium();
  const harness = await startHarness();
  const bundle = peerBundleDir();
  const peerServer: PeerServer | null = bundle ? await startPeerServer(bundle, casts.map((c) => c.file)) : null;
  const rows: string[] = [];
  const peerRows: string[] = [];
  const notes: string[] = [];
  try {
    for (const [ci, cast] of casts.entries()) {
      const big = cast.size > 500 * 1024 * 1024;
      const first: number[] = [];
      const player: number[] = [];
      const loads: number[] = [];
      const seeks = new Map<string, number[]>();
      const reads: number[] = [];
      let rssPeak = 0;
      let pageHeap = 0;
      const peerFirst: number[] = [];
      const peerSeeks = new Map<string, number[]>();
      const ratios: number[] = [];
      let peerError: string | null = null;
      for (let run = 0; run < RUNS; run++) {
        (globalThis as { gc?: () => void }).gc?.();
        const rss0 = process.memoryUsage().rss;
        let peak = rss0;
        const sampler = setInterval(() => {
          peak = Math.max(peak, process.memoryUsage().rss);
        }, 50);
        const o = await open(browser, harness, cast, !big);
        first.push(o.firstMs);
        player.push(o.playerMs);
        loads.push(o.loadMs);
        reads.push(o.firstMs + (await untilRead(o.host)));
        clearInterval(sampler);
        if (big) rssPeak = Math.max(rssPeak, peak - rss0);
        for (const s of seekTimes(cast.duration)) {
          const ms = await seekMs(o.page, s.t);
          seeks.set(s.label, [...(seeks.get(s.label) ?? []), ms]);
        }
        const heap = await o.page.evaluate(() => (performance as any).memory?.usedJSHeapSize ?? 0);
        pageHeap = Math.max(pageHeap, heap);
        o.host.dispose();
        await o.page.close();
        // The peer on the same file, right after (interleaved run by run).
        if (peerServer) {
          const p = await runPeer(browser, peerServer, peerServer.castUrl(ci), seekTimes(cast.duration).map((s) => ({ ...s, n: lineAt(s.t) })), PEER_TIMEOUT_MS);
          if (p.error !== null) peerError = p.error;
          else {
            peerFirst.push(p.firstMs);
            ratios.push(o.firstMs / p.firstMs);
            for (const [l, ms] of p.seeks) peerSeeks.set(l, [...(peerSeeks.get(l) ?? []), ms]);
          }
        }
      }
      const mb = (cast.size / 1e6).toFixed(0);
      rows.push(`| ${mb} MB, ${(cast.events / 1e6).toFixed(2)} M events, ${Math.round(cast.duration / 60)} min | ${fmt(median(first) / 1000)} s | ${fmt(median(player) / 1000)} s | ${big ? 'trial rollout (loader limit)' : `${fmt(median(loads) / 1000)} s`} | ${[...seeks].map(([l, v]) => `${l} ${fmt(median(v), 0)} ms`).join(', ')} | ${fmt(median(reads) / 1000, 1)} s | ${(pageHeap / 2 ** 20).toFixed(0)} MiB |`);
      if (peerServer) {
        const seekCells = [...peerSeeks].map(([l, v]) => `${l} ${v.some(Number.isNaN) ? `not shown in ${PEER_TIMEOUT_MS / 1000} s` : `${fmt(median(v), 0)} ms`}`).join(', ');
        peerRows.push(peerFirst.length > 0
          ? `| ${mb} MB | ${fmt(median(first) / 1000)} s | ${fmt(median(peerFirst) / 1000)} s | **${fmt(median(ratios))}×** (${ratios.map((r) => fmt(r)).join(', ')}) | ${seekCells} |`
          : `| ${mb} MB | ${fmt(median(first) / 1000)} s | did not play: ${peerError ?? 'no run'} | — | — |`);
      }
      if (big) notes.push(`Host memory while the 1 GB cast was read (bench process RSS, peak over its level before the open, largest of ${RUNS} runs): ${(rssPeak / 2 ** 20).toFixed(0)} MiB.`);
    }
  } finally {
    await browser.close();
    await harness.close();
    await peerServer?.close();
  }
  const peer = peerServer
    ? [
        `Peer, same run: asciinema-player ${peerVersion()} (bench/castPeer.ts: its standalone bundle in a page of the same Chromium, the cast served from 127.0.0.1), run on the same file right after each run of the product. First frame = from \`AsciinemaPlayer.create\` (autoPlay) until its terminal shows the first output line; seek = from \`seek(t)\` until it shows the line printed at t. Ratio = product / peer, per run (≤ 1: the product is first).`,
        '',
        '| cast | product first frame | asciinema-player first frame | product / peer (per run) | asciinema-player seek |',
        '|---|---|---|---|---|',
        ...peerRows,
      ].join('\n')
    : 'asciinema-player is not installed (`npm ci` installs it: a dev dependency): no same-run peer figure. The issue measured it at 4.9 s to the first frame of a 100 MB, 1.4 M-event cast on its machine.';
  writeSection(
    'cast',
    'Terminal player on big casts: first frame, seek, one read',
    [
      'Generated asciicast v2 recordings (bench/genCast.ts: an event every 5 ms, ~70 bytes an event, coloured lines that',
      'carry their time), played in the built webview in Chromium with the host side answered by the extension\'s own code',
      '(src/host/timeline/castFeed.ts over src/host/castStream.ts: the file read once, the first window posted before the rest',
      'is read, a screen snapshot every MiB). First frame = from reading the rollout until the terminal shows the first',
      'output line (the player told to play as soon as it has the recording); of it, from the page\'s `loadCast` on. Seek = from `seek(t)` until the terminal shows the line printed at t, after the host read the file to its',
      `end. Read = from the open until the host has read the whole file. Medians of ${RUNS} runs.`,
      '',
      '| cast | first frame | of it: loadCast → first frame | rollout read (in it) | seek | read to the end | page JS heap |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      ...notes,
      '',
      peer,
      '',
    ].join('\n'),
  );
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
