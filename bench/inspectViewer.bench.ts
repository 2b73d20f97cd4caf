/**
 * Inspect AI `.json` logs opened in the timeline against the Inspect log viewer on the same files, in
 * one interleaved run (issue 15's first two rows):
 * - product: from "open" (host/timeline/readSource.ts `readTimelineSource` with the host's dump
 *   indexes, as the timeline panel reads a file: a log of 16 MiB or more through its lazy index, built
 *   fresh each run, with the first sample read, on the bench's thread as on the host's) through the host's `rollout` message, posted as JSON
 *   text into the built webview in Chromium (test/webview/harness.ts; step slices answered by the host's
 *   code, test/webview/sliceHost.ts), until the step card of the sample's first assistant turn shows
 *   its text;
 * - peer: the Inspect log viewer (`@metrevals/inspect-log-viewer`, a dev dependency; bundled here with
 *   esbuild from bench/inspectViewerEntry.js, as its README embeds it, over its static HTTP API) in a
 *   page of the same Chromium, the log served from 127.0.0.1: from navigating to the sample's
 *   messages (its `#/logs/<file>/samples/sample/<id>/<epoch>/messages` route) until that turn's text shows;
 * - memory: each page's JS heap after a forced GC once the turn shows; the product's host heap
 *   (heap + external, after a GC, the source kept as the panel keeps it) above its level before the open.
 * Inputs: bench/genInspectLog.ts (the real `inspect/log_read_sample.json` sample with generated tool-call
 * turns): a 21 MB log whose first sample holds ~2,000 messages, and a 105 MB log of 5 samples of 21 MiB.
 */
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { rolloutMessage } from '../src/host/rolloutMessage';
import { DumpIndexes } from '../src/host/dumpIndexes';
import { RolloutLoader } from '../src/host/loadWorker';
import { StepSlices } from '../src/host/stepSlices';
import { readTimelineSource } from '../src/host/timeline/readSource';
import { launchChromium, startHarness, waitForReady, type Harness } from '../test/webview/harness';
import { postJson, serveSlices } from '../test/webview/sliceHost';
import { writeInspectLog, type GeneratedLog } from './genInspectLog';
import { OUT_DIR, REPO_ROOT, fmt, median, writeSection } from './lib';

// page.evaluate callbacks run in Chromium.
declare const document: any;

const RUNS = Number(process.env.INSPECT_VIEWER_RUNS ?? 3);
/** The text of the first assistant turn of every generated big sample (genInspectLog.ts bigSample). */
const FIRST_TURN = 'Running check 0.';
const TIMEOUT_MS = 180_000;
const MiB = 2 ** 20;
/** The dump indexes' output channel: warnings and errors to stderr. */
const QUIET_LOG = { info: () => undefined, debug: () => undefined, trace: () => undefined, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) };

/** The peer's bundle (bench/out/inspect-viewer/), built with esbuild; null with why when the package is absent. */
async function buildPeer(): Promise<{ dir: string; version: string } | { dir: null; why: string }> {
  // Its exports offer only an `import` condition (no require, no package.json): found by its folder.
  const pkg = path.join(REPO_ROOT, 'node_modules', '@metrevals', 'inspect-log-viewer', 'package.json');
  let version: string;
  try {
    version = (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return { dir: null, why: '`@metrevals/inspect-log-viewer` is not installed (`npm ci` installs it: a dev dependency)' };
  }
  const dir = path.join(OUT_DIR, 'inspect-viewer');
  await esbuild.build({
    entryPoints: [path.join(__dirname, 'inspectViewerEntry.js')],
    bundle: true,
    outfile: path.join(dir, 'viewer.js'),
    format: 'iife',
    minify: true,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
    loader: { '.woff': 'file', '.woff2': 'file', '.ttf': 'file', '.eot': 'file', '.svg': 'file', '.png': 'file', '.gif': 'file' },
  });
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="stylesheet" href="viewer.css"><div id="root"></div><script src="viewer.js"></script>');
  return { dir, version };
}

/** Serves the peer's folder at `/` and `logs[i]` at `/log-<i>.json`, on 127.0.0.1. */
async function servePeer(dir: string, logs: readonly string[]): Promise<{ base: string; close: () => Promise<void> }> {
  const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };
  const server = http.createServer((req, res) => {
    const u = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const log = /^\/log-(\d+)\.json$/.exec(u);
    const name = u === '/' ? 'index.html' : u.slice(1);
    const file = log ? logs[Number(log[1])] : !name.includes('..') && fs.existsSync(path.join(dir, name)) ? path.join(dir, name) : undefined;
    if (!file) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', types[path.extname(file)] ?? 'application/octet-stream');
    res.setHeader('content-length', String(fs.statSync(file).size));
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** The page's JS heap after a forced GC, MiB. */
async function pageHeapMiB(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const h = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    return h.usedSize / MiB;
  } finally {
    await cdp.detach();
  }
}

/** In the timeline page: whether a step card shows `text` with its full content (not loading). No named inner functions: the page lacks tsx's helpers. */
const cardShows = (text: string): boolean => {
  const cards = document.querySelector('ti-app')?.shadowRoot?.querySelectorAll('ti-step-card') ?? [];
  for (const c of cards) {
    if (c.classList.contains('loading') || !c.shadowRoot || c.shadowRoot.querySelector('.slice-loading')) continue;
    if (String(c.shadowRoot.textContent ?? '').includes(text)) return true;
  }
  return false;
};

interface Run {
  ms: number;
  pageHeap: number;
  /** Host heap + external retained above the level before the open (MiB), product only. */
  hostHeap?: number;
  /** The bench process's peak RSS above its level before the open, until the step showed (MiB), product only. */
  hostPeak?: number;
}

function hostMem(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.external) / MiB;
}

async function runProduct(browser: Browser, harness: Harness, log: GeneratedLog): Promise<Run> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(harness.url);
    await waitForReady(page);
    const before = hostMem();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const t0 = performance.now();
    // As the extension host's files (host/app.ts), a fresh index each run (none cached: a first open).
    const files = { loader: new RolloutLoader(null), dumps: new DumpIndexes(null, QUIET_LOG as never) };
    const { source, error } = await readTimelineSource(log.file, { files, show: 0 });
    if (!source) throw new Error(`${log.file}: ${error.title}`);
    const rollout = source.readNow(0);
    if (!rollout) throw new Error(`${log.file}: rollout 1 not read`);
    const slices = new StepSlices();
    await serveSlices(page, rollout);
    await postJson(page, rolloutMessage(source, 0, null, { collapseOutputLines: 20 }, { slices }));
    await page.waitForFunction(cardShows, FIRST_TURN, { timeout: TIMEOUT_MS, polling: 5 });
    const ms = performance.now() - t0;
    clearInterval(sampler);
    const hostPeak = (Math.max(peak, process.memoryUsage().rss) - rss0) / MiB;
    const hostHeap = hostMem() - before;
    const pageHeap = await pageHeapMiB(page);
    return { ms, pageHeap, hostHeap, hostPeak };
  } finally {
    await page.close();
  }
}

async function runPeer(browser: Browser, base: string, i: number, firstSample: { id: string; epoch: number }): Promise<Run> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    const t0 = performance.now();
    await page.goto(`${base}/?log_file=log-${i}.json#/logs/log-${i}.json/samples/sample/${encodeURIComponent(firstSample.id)}/${firstSample.epoch}/messages`);
    await page.waitForFunction((text: string) => String(document.body?.innerText ?? '').includes(text), FIRST_TURN, { timeout: TIMEOUT_MS, polling: 5 });
    const ms = performance.now() - t0;
    return { ms, pageHeap: await pageHeapMiB(page) };
  } finally {
    await page.close();
  }
}

/** The first sample's id and epoch, read from the head of the log (its first sample starts within the first MiB). */
function firstSample(file: string): { id: string; epoch: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(MiB);
    const head = buf.toString('utf8', 0, fs.readSync(fd, buf, 0, buf.length, 0));
    const at = head.indexOf('"samples": [');
    const id = /"id":\s*"([^"]+)"/.exec(head.slice(at));
    const epoch = /"epoch":\s*(\d+)/.exec(head.slice(at));
    if (at < 0 || !id || !epoch) throw new Error(`${file}: no first sample id/epoch in its first MiB`);
    return { id: id[1], epoch: Number(epoch[1]) };
  } finally {
    fs.closeSync(fd);
  }
}

async function main(): Promise<void> {
  const logs = [
    { label: '21 MB, 1 sample of ~2,000 messages', log: writeInspectLog(path.join(OUT_DIR, 'inspect-21m-1.json'), 21, 1, 21) },
    { label: '105 MB, 5 samples of 21 MiB', log: writeInspectLog(path.join(OUT_DIR, 'inspect-105m-5.json'), 105, 5, 21) },
  ];
  const peer = await buildPeer();
  const browser = await launchChromium();
  const harness = await startHarness();
  const server = peer.dir ? await servePeer(peer.dir, logs.map((l) => l.log.file)) : null;
  const rows: string[] = [];
  try {
    for (const [i, { label, log }] of logs.entries()) {
      const first = firstSample(log.file);
      const product: Run[] = [];
      const peers: Run[] = [];
      // One warm-up of each (page cache, JIT), then RUNS interleaved.
      await runProduct(browser, harness, log);
      if (server) await runPeer(browser, server.base, i, first);
      for (let run = 0; run < RUNS; run++) {
        product.push(await runProduct(browser, harness, log));
        if (server) peers.push(await runPeer(browser, server.base, i, first));
      }
      const ratios = peers.map((p, k) => product[k].ms / p.ms);
      const m = (rs: Run[], f: (r: Run) => number): number => median(rs.map(f));
      rows.push(
        `| ${label} (${fmt(log.size / 1e6, 0)} MB) | ${fmt(m(product, (r) => r.ms) / 1000)} s (${product.map((r) => fmt(r.ms / 1000)).join(', ')}) | ${
          server ? `${fmt(m(peers, (r) => r.ms) / 1000)} s (${peers.map((r) => fmt(r.ms / 1000)).join(', ')})` : '—'
        } | ${server ? `**${fmt(median(ratios))}×** (${ratios.map((r) => fmt(r)).join(', ')})` : '—'} | ${fmt(m(product, (r) => r.pageHeap), 0)} vs ${server ? fmt(m(peers, (r) => r.pageHeap), 0) : '—'} MiB | ${fmt(m(product, (r) => r.hostHeap ?? 0), 0)} MiB retained, ${fmt(Math.max(...product.map((r) => r.hostPeak ?? 0)), 0)} MiB peak RSS |`,
      );
    }
  } finally {
    await browser.close();
    await harness.close();
    await server?.close();
  }
  writeSection(
    'inspectViewer',
    'Inspect AI logs: the timeline vs the Inspect log viewer, start → first step visible',
    [
      `Generated Inspect \`.json\` logs (bench/genInspectLog.ts, from the real \`inspect/log_read_sample.json\`), the sample's first assistant turn ("${FIRST_TURN}") as "first step". Product: \`readTimelineSource\` with the host's dump indexes (host/dumpIndexes.ts: a log of 16 MiB or more through its lazy index, built fresh each run, the first sample read; in the bench's thread, as the host indexes), the host's \`rollout\` message posted as JSON text into the built webview in Chromium, until that turn's step card shows its text. Peer: ${
        peer.dir !== null ? `the Inspect log viewer ${peer.version} (\`@metrevals/inspect-log-viewer\`, bundled with esbuild from bench/inspectViewerEntry.js as its README embeds it, over its static HTTP API, the log served from 127.0.0.1)` : `not run: ${peer.why}`
      }, from navigating to the sample's messages until that turn shows. One warm-up each, then ${RUNS} runs interleaved (product, peer, …); medians (runs in brackets). Ratio = product / peer per run (< 1: the product is first). Heaps: each page's JS heap after a forced GC once the turn shows; host: the product's heap + external retained above its level before the open (the source kept), and the bench process's peak RSS above its level before the open (sampled every 20 ms until the step showed; largest of the runs; the Chromium pages are other processes).`,
      '',
      '| log | product: start → first step | Inspect log viewer | product / peer (per run) | page JS heap, product vs peer | product host memory |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
