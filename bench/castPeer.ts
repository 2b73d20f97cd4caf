/**
 * The peer of bench/cast.bench.ts: asciinema-player (the `asciinema-player` dev dependency, its
 * standalone bundle `dist/bundle/asciinema-player.min.js` + `.css`, as a web page embeds it) playing
 * the same generated cast in the same Chromium, the page and the recording served from 127.0.0.1
 * (node:http, the file streamed from disk). Measured as the product is: from `AsciinemaPlayer.create`
 * (the page already loaded, as the timeline's webview is) until its terminal shows the first output
 * line, and from `seek(t)` until it shows the line printed at `t`.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';

// page.evaluate callbacks run in Chromium.
declare const window: any;
declare const document: any;

/** The player's bundle folder, or null when the package is not installed. */
export function peerBundleDir(): string | null {
  try {
    // The package's exports leave out package.json: its main is dist/index.js.
    return path.join(path.dirname(require.resolve('asciinema-player')), 'bundle');
  } catch {
    return null;
  }
}

/** The installed asciinema-player's version (its package.json), or null. */
export function peerVersion(): string | null {
  const dir = peerBundleDir();
  if (!dir) return null;
  return (JSON.parse(fs.readFileSync(path.join(dir, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** A 127.0.0.1 server of the peer's page (`/`), bundle and the recordings (`/cast/<index>`). */
export interface PeerServer {
  /** The page's URL. */
  url: string;
  /** The URL of `files[i]`. */
  castUrl(i: number): string;
  close(): Promise<void>;
}

/**
 * Serves the peer's page, its bundle from `bundleDir` and `files` (absolute paths of casts).
 * @throws the listen error
 */
export async function startPeerServer(bundleDir: string, files: readonly string[]): Promise<PeerServer> {
  const page = '<!doctype html><meta charset="utf-8"><link rel="stylesheet" href="/ap.css"><div id="p"></div><script src="/ap.js"></script>';
  const server = http.createServer((req, res) => {
    const u = req.url ?? '/';
    if (u === '/') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(page);
      return;
    }
    const cast = /^\/cast\/(\d+)$/.exec(u);
    const file = u === '/ap.js' ? path.join(bundleDir, 'asciinema-player.min.js') : u === '/ap.css' ? path.join(bundleDir, 'asciinema-player.css') : cast ? files[Number(cast[1])] : undefined;
    if (!file) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', u.endsWith('.js') ? 'text/javascript' : u.endsWith('.css') ? 'text/css' : 'application/x-asciicast');
    res.setHeader('content-length', String(fs.statSync(file).size));
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    castUrl: (i) => `${base}/cast/${i}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** In the page: creates the player on `url` (autoPlay) and resolves with the ms until its terminal shows a `line N`, or rejects with why not. */
const firstFrameInPage = (arg: { url: string; timeoutMs: number }): Promise<number> =>
  new Promise((resolve, reject) => {
    const el = document.getElementById('p');
    const t0 = performance.now();
    let failed = '';
    window.__peer = window.AsciinemaPlayer.create(arg.url, el, { autoPlay: true, logger: { log() {}, debug() {}, info() {}, warn() {}, error(...a: unknown[]) { failed = a.map(String).join(' '); } } });
    window.__peer.addEventListener('error', () => (failed ||= 'the player reported an error'));
    const timer = setInterval(() => {
      if (/\bline \d+/.test(el.innerText)) {
        clearInterval(timer);
        window.__peer.pause();
        resolve(performance.now() - t0);
      } else if (failed || performance.now() - t0 > arg.timeoutMs) {
        clearInterval(timer);
        reject(new Error(failed || `no output line after ${arg.timeoutMs} ms`));
      }
    }, 5);
  });

/** In the page: seeks the peer to `t` and resolves with the ms until its terminal shows line `n`. */
const seekInPage = (arg: { t: number; n: number; timeoutMs: number }): Promise<number> =>
  new Promise((resolve, reject) => {
    const el = document.getElementById('p');
    const re = new RegExp(`\\bline ${arg.n}( |$)`, 'm');
    const t0 = performance.now();
    void window.__peer.seek(arg.t);
    const timer = setInterval(() => {
      if (re.test(el.innerText)) {
        clearInterval(timer);
        resolve(performance.now() - t0);
      } else if (performance.now() - t0 > arg.timeoutMs) {
        clearInterval(timer);
        reject(new Error(`line ${arg.n} never showed after seek(${arg.t})`));
      }
    }, 2);
  });

/** One run of the peer on a cast: first frame and seek times (ms), or why it did not play. */
export type PeerRun = { firstMs: number; seeks: Map<string, number>; error: null } | { firstMs: null; seeks: Map<string, number>; error: string };

/**
 * Opens a fresh page of `server`, plays `castUrl` and seeks to each of `seeks` (`n`: the line number
 * printed at `t`). A failure (the player's error, or no output within `timeoutMs`) is returned, not thrown.
 */
export async function runPeer(browser: Browser, server: PeerServer, castUrl: string, seeks: readonly { label: string; t: number; n: number }[], timeoutMs: number): Promise<PeerRun> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const out = new Map<string, number>();
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => typeof window.AsciinemaPlayer?.create === 'function');
    let firstMs: number;
    try {
      firstMs = await page.evaluate(firstFrameInPage, { url: castUrl, timeoutMs });
    } catch (e) {
      return { firstMs: null, seeks: out, error: e instanceof Error ? e.message.replace(/^page\.evaluate: (Error: )?/, '').split('\n')[0] : String(e) };
    }
    for (const s of seeks) {
      try {
        out.set(s.label, await page.evaluate(seekInPage, { t: s.t, n: s.n, timeoutMs }));
      } catch {
        out.set(s.label, Number.NaN);
      }
    }
    return { firstMs, seeks: out, error: null };
  } finally {
    await page.close();
  }
}
