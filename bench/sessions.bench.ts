/**
 * The Sessions list over 2,000 sessions (issue 13 Quality: the list appears in under 1 s and costs
 * under 50 MB of host memory).
 *
 * Input (bench/out/sessions-home/, generated once, reused): a fake home with 2,000 sessions, 60 %
 * Claude Code transcripts and 40 % Codex CLI rollouts, every one recorded in the workspace folder
 * or below it (the worst case: all of them are listed). Each is made from a real census file of
 * its kind (../shared/format-census): the template's head (its records up to the first request,
 * the request made unique, the times moved to the session's start) and then its body records
 * repeated to the file's size. Sizes follow a log-normal around 150 KB (the census files are 10 KB
 * to 2.7 MB) clamped to 8 KB–8 MB, plus 1 % of large ones of 5–12 MB; starts spread over 180
 * days, each file's mtime a little after its start.
 *
 * Measured in one run, each in a fresh Node process (the extension host's situation at start):
 * (a) cold, no cache: time until the first page (100 rows, the view's page) is known, and until the
 *     whole list is; (b) warm: the cache file written by (a) loaded, then the same; (c) memory: heap
 *     retained by the listing (after GC: the entries and the cache) and the RSS peak over the
 *     baseline; (d) the counts of the first page (one pass over those 100 files, as the view fills
 *     them in) and the longest event-loop block meanwhile.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SessionCache } from '../src/core/sessions/cache';
import { countSession, listSessions } from '../src/core/sessions/list';
import { claudeProjectDirName, defaultSessionRoots } from '../src/core/sessions/roots';
import { fmt, median, OUT_DIR, REPO_ROOT, writeSection } from './lib';

const N = 2000;
const PAGE = 100;
const RUNS = 5;
const HOME = path.join(OUT_DIR, 'sessions-home');
const WORKSPACE = '/home/dev/work/shop-backend';
const CACHE = path.join(OUT_DIR, 'sessions-cache.json');
const CENSUS = path.resolve(REPO_ROOT, '..', 'shared', 'format-census');
const MiB = 1024 * 1024;

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Template {
  format: 'claude-code' | 'codex-cli';
  cwd: string;
  head: string[];
  body: string[];
  /** Index in `head` of the record holding the first request. */
  request: number;
}

function template(rel: string, format: Template['format'], cwd: string): Template {
  const lines = fs.readFileSync(path.join(CENSUS, rel), 'utf8').split('\n').filter(Boolean);
  const request = lines.findIndex((l) => {
    const r = JSON.parse(l);
    return format === 'claude-code' ? r.type === 'user' && typeof r.message?.content === 'string' && !r.isMeta : r.payload?.type === 'user_message';
  });
  if (request < 0) throw new Error(`${rel}: no first request`);
  return { format, cwd, head: lines.slice(0, request + 1), body: lines.slice(request + 1), request };
}

function templates(): Template[] {
  return [
    template('claude-code/short.jsonl', 'claude-code', '/home/marco/projects/spotter'),
    template('claude-code/vibecodingtracker_claude_code.jsonl', 'claude-code', '/home/wei/repo/claude-code'),
    template('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl', 'claude-code', '/home/USER/projects/spotter-worktrees/spotter-gqc'),
    template('codex-cli/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl', 'codex-cli', '/redacted/path/fa3f7eaace'),
    template('codex-cli/vibecodingtracker_codex.jsonl', 'codex-cli', '/proj/ds906659/gai/claude-code'),
  ];
}

const esc = (s: string) => JSON.stringify(s).slice(1, -1);

/** Writes the fake home (unless a complete one is there); returns its total size in bytes. */
function generate(): number {
  const done = path.join(HOME, '.complete');
  if (fs.existsSync(done)) return Number(fs.readFileSync(done, 'utf8'));
  fs.rmSync(HOME, { recursive: true, force: true });
  const rand = rng(13);
  const tpls = templates();
  const claude = tpls.filter((t) => t.format === 'claude-code');
  const codex = tpls.filter((t) => t.format === 'codex-cli');
  const now = Date.parse('2026-12-01T12:00:00Z');
  const subdirs = ['', '', '', '', 'api', 'web', 'infra/terraform', 'docs'];
  let total = 0;
  for (let i = 0; i < N; i++) {
    const isClaude = rand() < 0.6;
    const t = isClaude ? claude[Math.floor(rand() * claude.length)] : codex[Math.floor(rand() * codex.length)];
    // Box-Muller: a log-normal size around 150 KB; 1 % large ones.
    const z = Math.sqrt(-2 * Math.log(rand() || 1e-9)) * Math.cos(2 * Math.PI * rand());
    let size = rand() < 0.01 ? (5 + rand() * 7) * MiB : Math.min(8 * MiB, Math.max(8 * 1024, 150 * 1024 * Math.exp(1.1 * z)));
    size = Math.round(size);
    const start = new Date(now - rand() * 180 * 86_400_000);
    const end = new Date(start.getTime() + (5 + rand() * 120) * 60_000);
    const sub = subdirs[Math.floor(rand() * subdirs.length)];
    const cwd = sub ? `${WORKSPACE}/${sub}` : WORKSPACE;
    const id = `${(i + 1).toString(16).padStart(8, '0')}-0000-4000-8000-${Math.floor(rand() * 2 ** 48).toString(16).padStart(12, '0')}`;
    const iso = start.toISOString();
    const fix = (l: string) => l.split(esc(t.cwd)).join(esc(cwd));
    const head = t.head.map((l, k) => {
      let r = fix(l).replace(/"timestamp":"[^"]*"/g, `"timestamp":"${iso}"`);
      if (k === t.request) {
        const o = JSON.parse(r);
        if (t.format === 'claude-code') o.message.content = `bench session ${i + 1}: ${o.message.content}`;
        else o.payload.message = `bench session ${i + 1}: ${o.payload.message}`;
        r = JSON.stringify(o);
      }
      return r;
    });
    const parts: string[] = [head.join('\n'), '\n'];
    let bytes = Buffer.byteLength(parts[0]) + 1;
    for (let k = 0; bytes < size; k = (k + 1) % t.body.length) {
      const l = fix(t.body[k]);
      parts.push(l, '\n');
      bytes += Buffer.byteLength(l) + 1;
    }
    const file = t.format === 'claude-code'
      ? path.join(HOME, '.claude', 'projects', claudeProjectDirName(cwd), `${id}.jsonl`)
      : path.join(HOME, '.codex', 'sessions', iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10), `rollout-${iso.slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, parts.join(''));
    fs.utimesSync(file, end, end);
    total += bytes;
  }
  fs.writeFileSync(done, String(total));
  return total;
}

interface ChildResult {
  firstPageMs: number;
  fullMs: number;
  cacheLoadMs: number;
  sessions: number;
  headsRead: number;
  heapRetainedMB: number;
  rssPeakDeltaMB: number;
  countPageMs?: number;
  countPageMB?: number;
  maxBlockMs?: number;
}

/** One measurement in this (fresh) process: `cold` lists without a cache and writes it; `warm` loads it first. */
async function child(mode: 'cold' | 'warm'): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const base = process.memoryUsage();
  let peak = base.rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  const cache = mode === 'warm' ? await SessionCache.load(CACHE) : new SessionCache(CACHE);
  const cacheLoadMs = performance.now() - t0;
  let firstPageMs = -1;
  const r = await listSessions({
    roots: defaultSessionRoots({}, HOME),
    folders: [WORKSPACE],
    cache,
    pageSize: PAGE,
    onFirstPage: () => (firstPageMs = performance.now() - t0),
  });
  const fullMs = performance.now() - t0;
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);
  gc();
  const after = process.memoryUsage();
  const out: ChildResult = {
    firstPageMs,
    fullMs,
    cacheLoadMs,
    sessions: r.sessions.length,
    headsRead: r.headsRead,
    heapRetainedMB: (after.heapUsed + after.external - base.heapUsed - base.external) / MiB,
    rssPeakDeltaMB: (peak - base.rss) / MiB,
  };
  if (mode === 'cold') {
    // (d) counts of the first page, as the view fills them in (one file at a time), with the event loop watched.
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    const c0 = performance.now();
    let bytes = 0;
    for (const e of r.sessions.slice(0, PAGE)) {
      await countSession(e, e.head, cache);
      bytes += e.size;
    }
    out.countPageMs = performance.now() - c0;
    out.countPageMB = bytes / MiB;
    h.disable();
    out.maxBlockMs = h.max / 1e6;
    // Count the rest too, so the warm run finds every count in the cache (not timed).
    for (const e of r.sessions.slice(PAGE)) await countSession(e, e.head, cache);
    await cache.save();
  }
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

function runChild(mode: 'cold' | 'warm'): ChildResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', __filename, '--child', mode], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 16 * MiB });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || !line) throw new Error(`child ${mode} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(line.slice(7)) as ChildResult;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const total = generate();
  console.log(`fake home: ${N} sessions, ${fmt(total / MiB, 0)} MiB (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const sizes: number[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) sizes.push(fs.statSync(p).size);
    }
  };
  walk(HOME);
  sizes.sort((a, b) => a - b);
  const q = (f: number) => sizes[Math.min(sizes.length - 1, Math.floor(f * sizes.length))];
  const cold: ChildResult[] = [];
  const warm: ChildResult[] = [];
  for (let i = 0; i < RUNS; i++) {
    fs.rmSync(CACHE, { force: true });
    cold.push(runChild('cold'));
    warm.push(runChild('warm'));
    console.log(`run ${i + 1}: cold first page ${fmt(cold[i].firstPageMs, 0)} ms, full ${fmt(cold[i].fullMs, 0)} ms; warm first page ${fmt(warm[i].firstPageMs, 0)} ms, full ${fmt(warm[i].fullMs, 0)} ms`);
  }
  const m = (xs: ChildResult[], k: keyof ChildResult) => median(xs.map((x) => x[k] as number));
  const list = (xs: ChildResult[], k: keyof ChildResult, d = 0) => xs.map((x) => fmt(x[k] as number, d)).join(', ');
  for (const x of [...cold, ...warm]) if (x.sessions !== N) throw new Error(`listed ${x.sessions} of ${N} sessions`);
  const firstCold = m(cold, 'firstPageMs');
  const firstWarm = m(warm, 'firstPageMs');
  const memMax = Math.max(...[...cold, ...warm].map((x) => Math.max(x.heapRetainedMB, x.rssPeakDeltaMB)));
  const body = `
Input: a fake home (bench/out/sessions-home/, generated by this bench from the census files: see its header) with
${N} sessions (60 % Claude Code, 40 % Codex CLI), all recorded in the listed folder or below it, ${fmt(total / MiB, 0)} MiB in all;
sizes: median ${fmt(q(0.5) / 1024, 0)} KB, 90th percentile ${fmt(q(0.9) / 1024, 0)} KB, largest ${fmt(sizes[sizes.length - 1] / MiB, 1)} MB
(${sizes.filter((s) => s >= 5 * MiB).length} of 5 MB or more). Each measurement in a fresh Node process (core/sessions \`listSessions\` as the
Sessions view calls it: first page = the newest ${PAGE} rows); ${RUNS} runs each, interleaved; medians. The files are in the
OS page cache (they were just written), as a user's recent sessions are.

| measure | median | runs |
|---|---|---|
| **(a) cold, no cache: first page known** (target < 1 s) | **${fmt(firstCold, 0)} ms** | ${list(cold, 'firstPageMs')} |
| (a) cold: whole list of ${N} (every head read) | ${fmt(m(cold, 'fullMs'), 0)} ms | ${list(cold, 'fullMs')} |
| **(b) warm cache: first page known** (cache file loaded first) | **${fmt(firstWarm, 0)} ms** | ${list(warm, 'firstPageMs')} |
| (b) warm: whole list (no head read: ${m(warm, 'headsRead')} read) | ${fmt(m(warm, 'fullMs'), 0)} ms | ${list(warm, 'fullMs')} |
| (b) of which loading the cache file (${fmt(fs.statSync(CACHE).size / MiB, 1)} MB, counts of all ${N} included) | ${fmt(m(warm, 'cacheLoadMs'), 0)} ms | ${list(warm, 'cacheLoadMs')} |
| (c) heap retained by the listing, cold (entries + cache, after GC) | ${fmt(m(cold, 'heapRetainedMB'), 1)} MB | ${list(cold, 'heapRetainedMB', 1)} |
| (c) heap retained, warm | ${fmt(m(warm, 'heapRetainedMB'), 1)} MB | ${list(warm, 'heapRetainedMB', 1)} |
| (c) RSS peak over the process's baseline, cold | ${fmt(m(cold, 'rssPeakDeltaMB'), 1)} MB | ${list(cold, 'rssPeakDeltaMB', 1)} |
| (c) RSS peak over the baseline, warm | ${fmt(m(warm, 'rssPeakDeltaMB'), 1)} MB | ${list(warm, 'rssPeakDeltaMB', 1)} |
| (d) counts of the first page (${fmt(m(cold, 'countPageMB'), 0)} MB read, one file at a time) | ${fmt(m(cold, 'countPageMs'), 0)} ms | ${list(cold, 'countPageMs')} |
| (d) longest event-loop block while counting | ${fmt(m(cold, 'maxBlockMs'), 0)} ms | ${list(cold, 'maxBlockMs')} |

Targets: list < 1 s: **${firstCold < 1000 && firstWarm < 1000 ? 'met' : 'NOT met'}** (cold ${fmt(firstCold, 0)} ms, warm ${fmt(firstWarm, 0)} ms to the first page);
host memory < 50 MB: **${memMax < 50 ? 'met' : 'NOT met'}** (largest of heap retained and RSS peak over all runs: ${fmt(memMax, 1)} MB).
The counts come after the list (the view shows "counting…" until then) and only for the rows shown.
`;
  writeSection('sessions', 'Sessions list of 2,000 sessions (issue 13)', body);
}

if (process.argv[2] === '--child') {
  child(process.argv[3] as 'cold' | 'warm').catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
