/**
 * Opening a rollout of 10,000 steps in the timeline webview, whole, sliced (heads) and paged (no heads: a compact column, issue 15 goal 5):
 * - the size of the host's `rollout` message (its JSON), whole vs as step heads vs paged;
 * - time from posting that message to the first step card rendered with its full content in
 *   Chromium, and the DOM nodes then (elements, shadow roots included), against a rollout of 100
 *   steps in the same run (the DOM must not grow with the rollout);
 * - time from a jump to a far step (the host's `revealStep`, as Go to Step sends it) until that
 *   step's card shows its full content.
 * The built webview runs in the webview test harness (test/webview/harness.ts: the extension's HTML
 * shell and CSP, a stub host). In the sliced runs the bench answers the page's `loadSteps` requests
 * as the host does (test/webview/sliceHost.ts: src/shared/stepHeads.ts `answerStepSlice`, posted
 * back across the process boundary).
 *
 * Input: the steps of the real SWE-agent sample rollout, repeated (re-indexed) to the length wanted.
 */
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { loadFile } from '../src/core/load';
import type { Rollout } from '../src/core/model';
import { rolloutMessage } from '../src/host/rolloutMessage';
import { LoadedSource } from '../src/host/rolloutSource';
import { StepSlices } from '../src/host/stepSlices';
import { PAGED_MIN_STEPS } from '../src/shared/pagedSteps';
import { HEAD_CHARS } from '../src/shared/stepHeads';
import type { RolloutMessage } from '../src/shared/protocol';
import { launchChromium, startHarness, waitForReady } from '../test/webview/harness';
import { serveSlices } from '../test/webview/sliceHost';
import { samplesDir } from './genDump';
import { fmt, median, writeSection } from './lib';

// page.evaluate callbacks run in Chromium.
declare const window: any;
declare const document: any;

const RUNS = 5;
const SAMPLE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
/** The far step jumped to (0-based). */
const FAR = 9000;

/** A copy of `r` with `n` steps (its steps repeated, re-indexed). */
function longRollout(r: Rollout, n: number): Rollout {
  const steps = Array.from({ length: n }, (_, i) => ({ ...r.steps[i % r.steps.length], index: i }));
  return { ...r, id: `${r.id}-x${n}`, steps };
}

/** In the page: whether card `k` is rendered with its full content (not loading). No named inner functions: the page lacks tsx's helpers. */
const isFull = (k: number): boolean => {
  const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`ti-step-card[data-index="${k}"]`);
  return !!c && !c.classList.contains('loading') && !!c.shadowRoot && c.shadowRoot.childElementCount > 0 && !c.shadowRoot.querySelector('.slice-loading');
};

interface Run {
  /** ms from the host side posting the `rollout` message to the first step card showing its full content. */
  firstFull: number;
  /** ms from the page holding the message's JSON text (parse, dispatch, render) to that card full: the part that is the webview's own. */
  inPage: number;
  nodes: number;
  cards: number;
  /** ms from the host side posting `revealStep` FAR to that card showing its full content (10,000 steps only). */
  jump: number | null;
}

/**
 * Posts `msg` from this process into the page (as JSON text, parsed there: the way VS Code carries
 * the host's message to the webview) and times until the first card shows its full content, then
 * the jump to FAR.
 */
async function measure(page: Page, msg: RolloutMessage, withJump: boolean): Promise<Run> {
  // As VS Code carries a webview message: JSON from the host process, parsed and posted in the webview.
  const t0 = performance.now();
  await page.evaluate((json) => {
    window.__tArrive = performance.now();
    window.postMessage(JSON.parse(json), '*');
  }, JSON.stringify(msg));
  // The predicate notes, in the page, when it first saw the card full (no round trip added).
  await page.waitForFunction(
    (k: number) => {
      const c = document.querySelector('ti-app')?.shadowRoot?.querySelector(`ti-step-card[data-index="${k}"]`);
      const ok = !!c && !c.classList.contains('loading') && !!c.shadowRoot && c.shadowRoot.childElementCount > 0 && !c.shadowRoot.querySelector('.slice-loading');
      if (ok) window.__tFull = performance.now();
      return ok;
    },
    0,
    { polling: 'raf', timeout: 120_000 },
  );
  const firstFull = performance.now() - t0;
  const inPage = (await page.evaluate(() => window.__tFull - window.__tArrive)) as number;
  const { nodes, cards } = (await page.evaluate(`(() => {
    let nodes = 0;
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        nodes++;
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return { nodes, cards: document.querySelector('ti-app').shadowRoot.querySelectorAll('ti-step-card').length };
  })()`)) as { nodes: number; cards: number };
  if (!withJump) return { firstFull, inPage, nodes, cards, jump: null };
  await page.waitForTimeout(300); // let the first slices settle
  const t1 = performance.now();
  await page.evaluate((i) => window.postMessage({ type: 'revealStep', index: i }, '*'), FAR);
  await page.waitForFunction(isFull, FAR, { polling: 'raf', timeout: 60_000 });
  return { firstFull, inPage, nodes, cards, jump: performance.now() - t1 };
}

async function main(): Promise<void> {
  const file = await loadFile(path.join(samplesDir(), SAMPLE));
  const harness = await startHarness();
  const browser = await launchChromium();
  // sliced: step heads for every step (as before paging); paged: the default for a rollout this long (no heads, the compact column).
  const cases: { key: string; n: number; slices: (() => StepSlices) | null }[] = [
    { key: '100', n: 100, slices: null },
    { key: 'whole', n: 10_000, slices: null },
    { key: 'sliced', n: 10_000, slices: () => new StepSlices(undefined, Infinity) },
    { key: 'paged', n: 10_000, slices: () => new StepSlices() },
  ];
  const results: Record<string, { runs: Run[]; mb: number }> = {};
  try {
    for (const c of cases) {
      const r = longRollout(file.rollouts[0], c.n);
      const msg: RolloutMessage = rolloutMessage(new LoadedSource({ ...file, rollouts: [r] }), 0, null, { collapseOutputLines: 20 }, c.slices ? { slices: c.slices() } : {});
      if (c.slices && !msg.sliced) throw new Error('the 10,000-step rollout was not sliced');
      if (c.key === 'paged' && !msg.sliced?.paged) throw new Error('the 10,000-step rollout was not paged');
      results[c.key] = { runs: [], mb: JSON.stringify(msg).length / 1e6 };
      for (let run = 0; run < RUNS + 1; run++) {
        const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
        await page.goto(harness.url);
        await waitForReady(page);
        if (c.slices) await serveSlices(page, r);
        const out = await measure(page, msg, c.n === 10_000);
        await page.close();
        if (run === 0) continue; // warm-up
        results[c.key].runs.push(out);
        console.log(`${c.key}, run ${run}: first step full after ${fmt(out.firstFull, 0)} ms; ${out.nodes} DOM nodes, ${out.cards} cards${out.jump !== null ? `; jump to #${FAR + 1} full after ${fmt(out.jump, 0)} ms` : ''}`);
      }
    }
  } finally {
    await browser.close();
    await harness.close();
  }
  const med = (key: string, f: (r: Run) => number) => median(results[key].runs.map(f));
  const all = (key: string, f: (r: Run) => number) => results[key].runs.map((r) => fmt(f(r), 0)).join(', ');
  const row = (label: string, key: string) =>
    `| ${label} | ${fmt(results[key].mb, 1)} MB | ${fmt(med(key, (r) => r.firstFull), 0)} ms (${all(key, (r) => r.firstFull)}) | ${fmt(med(key, (r) => r.inPage), 0)} ms (${all(key, (r) => r.inPage)}) | ${med(key, (r) => r.nodes)} | ${med(key, (r) => r.cards)} | ${key === '100' ? '—' : `${fmt(med(key, (r) => r.jump ?? NaN), 0)} ms (${all(key, (r) => r.jump ?? NaN)})`} |`;
  const ratio = med('whole', (r) => r.firstFull) / med('sliced', (r) => r.firstFull);
  const pagedRatio = med('sliced', (r) => r.firstFull) / med('paged', (r) => r.firstFull);
  writeSection(
    'timeline',
    'Opening a rollout of 10,000 steps in the timeline webview, whole, sliced and paged',
    `
Input: the steps of the real SWE-agent sample \`${SAMPLE}\` repeated to 100 and to 10,000 steps. The built webview in Chromium
(test/webview/harness.ts: the extension's HTML shell and CSP, a stub host), viewport 1100×900. "Message" is the JSON size of the
host's \`rollout\` message; "first step" the time from the bench process posting it into the page (as JSON text carried
across the process boundary and parsed there, as VS Code carries the extension host's message) until the first step card shows its full content (for the
sliced rollout: after its slice came back from the stub host, which answers \`loadSteps\` with the host's own
\`answerStepSlice\` from the bench process); "jump" the time from posting \`revealStep\` for step #${FAR + 1} (Go to Step) until
its card shows its full content. "In the page" is the part of "first step" from the moment the page holds the message's JSON text
(JSON.parse, dispatch, render: the webview's own work, which the issue's < 300 ms target is about) until that card is full.
"Sliced" sends a head of every step; "paged" (what the host sends for a rollout of more than ${PAGED_MIN_STEPS.toLocaleString('en-US')} steps,
src/shared/pagedSteps.ts) sends no heads: the step count and a compact column (one character per step for its role and one
for its card's height, the recording times and reference labels of the steps that have them, the header's totals), which the
page expands into placeholder steps; every card's full step is loaded as a cut head's is.
Both carry the full steps of their first chunk (\`initial\`), so the first cards need no slice round trip.
${RUNS} runs each after a warm-up; medians (all runs in brackets).

| rollout | message | first step with full content (target < 300 ms) | of which in the page (target < 150 ms) | DOM elements then | step cards in the DOM | jump to #${FAR + 1}, full |
|---|---|---|---|---|---|---|
${row('100 steps, whole', '100')}
${row('10,000 steps, whole', 'whole')}
${row('10,000 steps, sliced (heads)', 'sliced')}
${row('**10,000 steps, paged**', 'paged')}

Sliced, the 10,000-step rollout's message is **${fmt(results.whole.mb / results.sliced.mb, 1)}× smaller** (${fmt(results.sliced.mb, 1)} MB of step heads
instead of ${fmt(results.whole.mb, 1)} MB) and its first step shows its full content **${fmt(ratio, 1)}× sooner** than whole (same run). A far step
jumped to shows its full content after one slice round trip. Paged, the message is ${fmt(results.paged.mb * 1000, 0)} KB
(${fmt(results.sliced.mb / results.paged.mb, 0)}× smaller than heads; most of it the first chunk's full steps) and the first step is full
**${fmt(pagedRatio, 1)}× sooner** than sliced. The DOM does not grow with the rollout (virtualized list).
The message travels here through the Chrome DevTools protocol (JSON text), a stand-in for VS Code's extension host → webview
IPC that is likely slower per MB: read the ratio and the sizes, not the absolute times. Heads are ~0.7 KB a step
(previews of message, reasoning and output, the fields every other view reads, and what was cut), so the ratio grows
with the length of the steps' texts.
Heads keep each text's first ${HEAD_CHARS} characters / 2 lines; the webview keeps at most 2,000 full steps (LRU, 32 Mi characters).
`,
  );
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
