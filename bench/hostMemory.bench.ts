/**
 * Peak memory of the REAL extension host while browsing the 1 GB JSONL dump: code-server with the
 * packaged extension (.vsix), started exactly as the e2e tests start it (test/e2e/harness.ts
 * openSession), driven by Playwright in Chromium. The extension host's process (its command line
 * names `extensionHost`, below this code-server) is sampled every 200 ms (/proc/PID/status VmRSS;
 * VmHWM at the end):
 *   1. baseline: the workspace holds one small rollout; the extension is active and idle;
 *   2. indexing: the dump (bench/out/dump-1g.jsonl, bench/genDump.ts) is linked into the workspace
 *      as `rl/big_rollouts.jsonl`; the Rollouts view indexes it until it lists every row;
 *   3. browsing: its first rollout opens in the timeline from the tree, then the timeline's rollout
 *      picker walks to 20 rollouts spread over the file (first, last, evenly between). The picker
 *      lists 250 rollouts either side of the current one, so the walk opens the rollouts on the way
 *      too (every one it opens stays read in the timeline: a harder case than 20 alone).
 *
 * Needs code-server and Chromium (scripts/setup-test-env.sh installs them) and packages the
 * extension (`npm run package`).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS, closeSession, extensionWebview, makeTempDir, openSession, rolloutsPane, saveFailureArtifacts, waitUntil, type CodeServer } from '../test/e2e/harness';
import { HostInspector, type HeapFigures, type Site } from './hostInspect';
import { dumpRow, generateDump, GROUP_SIZE, sampleRows, samplesDir } from './genDump';
import { fmt, median, OUT_DIR, REPO_ROOT, writeSection } from './lib';

const MiB = 1024 * 1024;
const DUMP = 'big_rollouts.jsonl';
const TARGETS = 20;
/** Largest jump the picker offers from the current rollout (ti-app.ts PICKER_AROUND is 250). */
const HOP = 240;

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
  return r.stdout;
}

/** The test environment the e2e tier uses: code-server, Chromium, the packaged .vsix. */
function prepare(): void {
  let cs = spawnSync('bash', ['scripts/setup-test-env.sh', '--print-code-server'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout?.trim();
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!cs || !fs.existsSync(cs) || !fs.existsSync(chromium)) {
    spawnSync('bash', ['scripts/setup-test-env.sh'], { cwd: REPO_ROOT, stdio: 'inherit' });
    cs = spawnSync('bash', ['scripts/setup-test-env.sh', '--print-code-server'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout?.trim();
  }
  if (!cs || !fs.existsSync(cs)) throw new Error('code-server is missing (scripts/setup-test-env.sh)');
  if (!fs.existsSync(chromium)) throw new Error(`Chromium is missing at ${chromium}`);
  const vsix = path.join(REPO_ROOT, 'dist', 'trajectory-inspector.vsix');
  fs.rmSync(vsix, { force: true });
  run('npm', ['run', '--silent', 'package']);
  process.env.E2E_CODE_SERVER = cs;
  process.env.E2E_CHROMIUM = chromium;
  process.env.E2E_VSIX = vsix;
}

/** /proc/PID/status fields in kB. */
function procStatus(pid: number): Record<string, number> | null {
  try {
    const out: Record<string, number> = {};
    for (const l of fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
      const m = /^(\w+):\s+(\d+) kB/.exec(l);
      if (m) out[m[1]] = Number(m[2]);
    }
    out.PPid = Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return out;
  } catch {
    return null;
  }
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** The extension host process of the code-server whose command line holds `marker` (its temp folder). */
function findExtensionHost(marker: string): number | null {
  const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  for (const pid of pids) {
    if (!/extensionHost/.test(cmdline(pid))) continue;
    for (let p = pid, depth = 0; p > 1 && depth < 10; depth++) {
      if (cmdline(p).includes(marker)) return pid;
      p = procStatus(p)?.PPid ?? 0;
    }
  }
  return null;
}

interface Sample {
  t: number;
  rssMb: number;
  phase: string;
}

async function main(): Promise<void> {
  prepare();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const dump = path.join(OUT_DIR, 'dump-1g.jsonl');
  const gen = generateDump(dump, 1024 * MiB);
  const tmp = makeTempDir('ti-bench-hostmem-');
  const workspace = path.join(tmp, 'workspace');
  fs.mkdirSync(path.join(workspace, 'small'), { recursive: true });
  fs.mkdirSync(path.join(workspace, 'rl'), { recursive: true });
  fs.copyFileSync(path.join(samplesDir(), 'swe-agent', '6e44b9__sweagenttestrepo-1c2844.traj'), path.join(workspace, 'small', 'sample.traj'));
  const consoleLog: string[] = [];
  let server: CodeServer | undefined;
  let browser: Awaited<ReturnType<typeof openSession>>['browser'] | undefined;
  let page: Page | undefined;
  const samples: Sample[] = [];
  let phase = 'start';
  let timer: NodeJS.Timeout | undefined;
  const notes: string[] = [];
  let failed = false;
  /** HOSTMEM_INSPECT=1: forced full GCs through the host's inspector at each phase and spread rollout (changes the natural peak). */
  const inspect = process.env.HOSTMEM_INSPECT === '1';
  let insp: HostInspector | undefined;
  const gcAt: { at: string; rssBeforeMb: number; after: HeapFigures }[] = [];
  let sites: Site[] = [];
  const gcPoint = async (at: string, rssBeforeMb: number) => {
    if (!insp) return;
    const after = await insp.gcUsage();
    gcAt.push({ at, rssBeforeMb, after });
    console.log(`  [gc] ${at}: RSS ${fmt(rssBeforeMb, 0)} MB before; after full GC: RSS ${fmt(after.rss, 0)}, heap used ${fmt(after.heapUsed, 0)} of ${fmt(after.heapTotal, 0)}, external ${fmt(after.external, 0)} (array buffers ${fmt(after.arrayBuffers, 0)}) MB`);
  };
  try {
    ({ server, browser, page } = await openSession(workspace, tmp, { consoleLog }));
    const pg = page;
    const { row, rowsText, open } = rolloutsPane(() => pg);

    // The Rollouts view open (the other sections folded, as in the scale e2e test).
    await open({ alone: true });
    await waitUntil(async () => (await row(/sample|SWE-agent__test-repo/).count()) > 0, 120_000, async () => `the Rollouts view never listed sample.traj (by its name or its task): ${await rowsText()}`);

    const hostPid = (await waitUntil(async () => findExtensionHost(tmp), 30_000, () => 'no extension host process (command line with "extensionHost") under this code-server')) as number;
    console.log(`extension host: pid ${hostPid}: ${cmdline(hostPid).slice(0, 200)}`);
    const t0 = Date.now();
    timer = setInterval(() => {
      const st = procStatus(hostPid);
      if (st?.VmRSS) samples.push({ t: Date.now() - t0, rssMb: st.VmRSS / 1024, phase });
    }, 200);

    // 1. Baseline: active and idle.
    phase = 'settle';
    await pg.waitForTimeout(8000);
    phase = 'baseline';
    await pg.waitForTimeout(6000);
    if (inspect) {
      insp = await HostInspector.attach(hostPid);
      await gcPoint('baseline', (procStatus(hostPid)?.VmRSS ?? 0) / 1024);
    }

    // 2. Indexing.
    phase = 'indexing';
    const target = path.join(workspace, 'rl', DUMP);
    try {
      fs.linkSync(dump, target);
    } catch {
      fs.copyFileSync(dump, target);
    }
    const indexStart = Date.now();
    const listed = async () => {
      const r = row(DUMP);
      if (!(await r.count())) return false;
      const d = (await r.locator('.label-description').first().innerText().catch(() => '')).trim();
      return d.startsWith(`${gen.rows} rollouts`) && !/indexing/.test(d);
    };
    try {
      await waitUntil(listed, 30_000, async () => 'not listed yet');
    } catch {
      // The file watcher did not report the new file yet: refresh the view.
      await pg.keyboard.press('F1');
      const input = pg.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill('>Trajectory Inspector: Refresh');
      await pg.locator('.quick-input-list .monaco-list-row', { hasText: 'Refresh' }).first().waitFor({ state: 'visible', timeout: 10_000 });
      await pg.keyboard.press('Enter');
      notes.push('the new file was picked up after the Refresh command (the watcher had not reported it within 30 s)');
    }
    await waitUntil(listed, 300_000, async () => `the ${DUMP} row never listed ${gen.rows} rollouts; rows: ${await rowsText()}`);
    const indexSeconds = (Date.now() - indexStart) / 1000;
    phase = 'indexed';
    await pg.waitForTimeout(3000);
    await gcPoint('indexed', (procStatus(hostPid)?.VmRSS ?? 0) / 1024);
    await insp?.startSampling();

    // 3. Browsing: the first rollout from the tree, then the picker.
    phase = 'browsing';
    const fileRow = row(DUMP);
    if ((await fileRow.getAttribute('aria-expanded')) === 'false') await fileRow.locator('.monaco-tl-twistie').click();
    const firstGroup = row(new RegExp(`^group ng-task-0${GROUP_SIZE} rollouts`));
    await firstGroup.click();
    await pg.waitForTimeout(500);
    if ((await firstGroup.getAttribute('aria-expanded')) === 'false') await pg.keyboard.press('ArrowRight');
    await pg.waitForTimeout(500);
    await pg.keyboard.press('ArrowDown');
    await pg.keyboard.press('Enter');
    const web = extensionWebview(pg);
    const picker = web.locator('.rollout-picker');
    await picker.waitFor({ state: 'visible', timeout: 120_000 });
    const current = async () => Number(await picker.evaluate((el: any) => el.value));
    await waitUntil(async () => Number.isInteger(await current()), 30_000, () => 'the picker has no value');
    const last = gen.rows - 1;
    const targets = [...new Set([0, last, ...Array.from({ length: TARGETS - 2 }, (_, k) => Math.round(((k + 1) * last) / (TARGETS - 1)))])].sort((a, b) => a - b);
    let opened = 1;
    const atTargets: { rollout: number; rssMb: number; steps: string }[] = [];
    const bases = sampleRows();
    const title = web.locator('h1.title');
    const go = async (k: number) => {
      // The picker lists the rollouts around the one shown once the host's message for it has come.
      const has = async () => picker.evaluate((el: any, v: string) => !!el.querySelector(`vscode-option[value="${v}"]`), String(k));
      await waitUntil(has, 30_000, () => `the picker does not offer rollout ${k + 1}`);
      await picker.evaluate((el: any, v: string) => {
        el.value = v;
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }, String(k));
      const id = String(dumpRow(bases, k).instance_id);
      await waitUntil(async () => (await current()) === k && (await title.innerText()).trim() === id, 30_000,
        async () => `the timeline did not switch to rollout ${k + 1} (${id}); it shows ${await title.innerText()}`);
      opened++;
    };
    for (const k of targets) {
      let at = await current();
      while (at !== k) {
        const next = k === 0 || k === last ? k : at < k ? Math.min(k, at + HOP) : Math.max(k, at - HOP);
        await go(next);
        at = next;
      }
      await web.locator('.step-card').first().waitFor({ state: 'visible', timeout: 30_000 });
      const steps = (await web.locator('#step-count').innerText().catch(() => '?')).trim();
      const st = procStatus(hostPid);
      atTargets.push({ rollout: k, rssMb: (st?.VmRSS ?? 0) / 1024, steps });
      console.log(`rollout ${k + 1} of ${gen.rows}: ${steps}; extension host RSS ${fmt((st?.VmRSS ?? 0) / 1024, 0)} MB`);
      await gcPoint(`rollout ${k + 1} (${opened} opened)`, (st?.VmRSS ?? 0) / 1024);
    }
    if (insp) {
      sites = await insp.retainedSites(30);
      fs.writeFileSync(path.join(OUT_DIR, 'hostMemory-retained.txt'), sites.map((x) => `${fmt(x.mb, 2)} MB  ${x.name}`).join('\n') + '\n');
      console.log(`retained allocation sites (sampled, live after GC):\n${sites.map((x) => `  ${fmt(x.mb, 2)} MB  ${x.name}`).join('\n')}`);
    }
    await pg.screenshot({ path: path.join(OUT_DIR, 'hostMemory-timeline.png') });
    phase = 'done';
    await pg.waitForTimeout(2000);
    clearInterval(timer);
    const hwm = (procStatus(hostPid)?.VmHWM ?? 0) / 1024;

    const of = (ph: string) => samples.filter((s) => s.phase === ph).map((s) => s.rssMb);
    const max = (xs: number[]) => (xs.length ? Math.max(...xs) : NaN);
    const baseline = median(of('baseline'));
    const peakIndex = max(of('indexing'));
    const peakBrowse = max(of('browsing'));
    const peak = Math.max(peakIndex, peakBrowse);
    const csv = samples.map((s) => `${s.t},${fmt(s.rssMb, 1)},${s.phase}`).join('\n');
    fs.writeFileSync(path.join(OUT_DIR, 'hostMemory-samples.csv'), `ms,rss_mb,phase\n${csv}\n`);
    writeSection(
      'hostMemory',
      'Extension host memory while browsing the 1 GB dump (code-server)',
      `
The packaged extension in code-server (started as the e2e tests start it, test/e2e/harness.ts), driven in Chromium.
The extension host process (pid found by its command line, \`extensionHost\`, below this code-server) sampled every
200 ms from /proc/PID/status (VmRSS; its load workers are threads of the same process, so they count).
Input: \`bench/out/dump-1g.jsonl\` (${fmt(gen.size / MiB, 0)} MiB, ${gen.rows} rows; bench/genDump.ts) linked into the workspace as \`rl/${DUMP}\`.

| phase | extension host RSS |
|---|---|
| baseline: extension active and idle, one small rollout listed (median) | ${fmt(baseline, 0)} MB |
| peak while the Rollouts view indexes the dump (${fmt(indexSeconds, 1)} s until every row is listed) | ${fmt(peakIndex, 0)} MB (+${fmt(peakIndex - baseline, 0)} MB) |
| peak while browsing: ${opened} rollouts opened in the timeline, ${targets.length} of them spread over the file (first, last, evenly between) | ${fmt(peakBrowse, 0)} MB (+${fmt(peakBrowse - baseline, 0)} MB) |
| **peak of the whole session** (target < 500 MB) | **${fmt(peak, 0)} MB** (+${fmt(peak - baseline, 0)} MB over the baseline) |
| VmHWM at the end (the process's high-water mark since it started) | ${fmt(hwm, 0)} MB |

RSS at the spread rollouts (rollout number: MB): ${atTargets.map((a) => `${a.rollout + 1}: ${fmt(a.rssMb, 0)}`).join(', ')}.
The picker lists 250 rollouts either side of the current one, so reaching rollouts ~1,400 apart opens those on the way
(${opened} in all), and every rollout read stays read in the open timeline.${notes.length ? `\nNote: ${notes.join('; ')}.` : ''}
Samples: bench/out/hostMemory-samples.csv (not committed).
${gcAt.length ? `
With HOSTMEM_INSPECT=1 (forced full GCs through the host's inspector at each point; the natural peak above is then lower than without):

| point | RSS before GC | after 2 full GCs: RSS | heap used / total | external (array buffers) |
|---|---|---|---|---|
${gcAt.map((g) => `| ${g.at} | ${fmt(g.rssBeforeMb, 0)} MB | ${fmt(g.after.rss, 0)} MB | ${fmt(g.after.heapUsed, 0)} / ${fmt(g.after.heapTotal, 0)} MB | ${fmt(g.after.external, 0)} (${fmt(g.after.arrayBuffers, 0)}) MB |`).join('\n')}
` : ''}`,
    );
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    clearInterval(timer);
    insp?.close();
    if (failed && page) await saveFailureArtifacts({ state: 'failed', title: 'hostMemory' }, page, server, consoleLog, 'bench-hostmem-');
    await closeSession(browser, server, tmp);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
