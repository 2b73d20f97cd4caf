/**
 * Opening a rollout of 10,000 steps in the timeline webview: time from the host's `rollout` message
 * to the first rendered step card in Chromium, and the DOM nodes present then (elements, shadow
 * roots included), against a rollout of 100 steps in the same run (the DOM must not grow with the
 * rollout). The built webview runs in the webview test harness (test/webview/harness.ts: the
 * extension's HTML shell and CSP, a stub host).
 *
 * Input: the steps of the real SWE-agent sample rollout, repeated (re-indexed) to the length wanted.
 */
import * as path from 'node:path';
import { loadFile } from '../src/core/load';
import type { Rollout } from '../src/core/model';
import { rolloutMessage } from '../src/host/present';
import { launchChromium, startHarness, waitForReady } from '../test/webview/harness';
import { samplesDir } from './genDump';
import { fmt, median, writeSection } from './lib';

// page.evaluate callbacks run in Chromium.
declare const window: any;

const RUNS = 5;
const SAMPLE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

/** A copy of `r` with `n` steps (its steps repeated, re-indexed). */
function longRollout(r: Rollout, n: number): Rollout {
  const steps = Array.from({ length: n }, (_, i) => ({ ...r.steps[i % r.steps.length], index: i }));
  return { ...r, id: `${r.id}-x${n}`, steps };
}

async function main(): Promise<void> {
  const file = await loadFile(path.join(samplesDir(), SAMPLE));
  const harness = await startHarness();
  const browser = await launchChromium();
  const results: Record<number, { ms: number[]; nodes: number[]; cards: number[] }> = {};
  try {
    for (const n of [100, 10_000]) {
      const r = longRollout(file.rollouts[0], n);
      const msg = rolloutMessage({ ...file, rollouts: [r] }, 0, null, { collapseOutputLines: 20 });
      results[n] = { ms: [], nodes: [], cards: [] };
      for (let run = 0; run < RUNS + 1; run++) {
        const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
        await page.goto(harness.url);
        await waitForReady(page);
        await page.evaluate((m) => {
          window.__benchMsg = m;
        }, msg);
        // A string, not a function: the bundler's name helpers do not exist in the page.
        const out = (await page.evaluate(`new Promise((resolve) => {
          const t0 = performance.now();
          window.postMessage(window.__benchMsg, '*');
          const check = () => {
            const card = document.querySelector('ti-app')?.shadowRoot?.querySelector('ti-step-card');
            if (card && card.shadowRoot && card.shadowRoot.childElementCount > 0) {
              requestAnimationFrame(() => {
                const ms = performance.now() - t0;
                let nodes = 0;
                const walk = (root) => {
                  for (const el of root.querySelectorAll('*')) {
                    nodes++;
                    if (el.shadowRoot) walk(el.shadowRoot);
                  }
                };
                walk(document);
                const cards = document.querySelector('ti-app').shadowRoot.querySelectorAll('ti-step-card').length;
                resolve({ ms, nodes, cards });
              });
            } else requestAnimationFrame(check);
          };
          check();
        })`)) as { ms: number; nodes: number; cards: number };
        await page.close();
        if (run === 0) continue; // warm-up
        results[n].ms.push(out.ms);
        results[n].nodes.push(out.nodes);
        results[n].cards.push(out.cards);
        console.log(`${n} steps, run ${run}: first step rendered after ${fmt(out.ms, 0)} ms; ${out.nodes} DOM nodes, ${out.cards} cards`);
      }
    }
  } finally {
    await browser.close();
    await harness.close();
  }
  const a = results[100];
  const b = results[10_000];
  writeSection(
    'timeline',
    'Opening a rollout of 10,000 steps in the timeline webview',
    `
Input: the steps of the real SWE-agent sample \`${SAMPLE}\` repeated to 100 and to 10,000 steps. The built webview in Chromium
(test/webview/harness.ts: the extension's HTML shell and CSP, a stub host), viewport 1100×900; time from posting the host's
\`rollout\` message to the frame after the first step card rendered. ${RUNS} runs each after a warm-up; medians.

| rollout | first step rendered (target < 300 ms) | DOM elements then (shadow roots included) | step cards in the DOM |
|---|---|---|---|
| 100 steps | ${fmt(median(a.ms), 0)} ms (${a.ms.map((t) => fmt(t, 0)).join(', ')}) | ${median(a.nodes)} | ${median(a.cards)} |
| **10,000 steps** | **${fmt(median(b.ms), 0)} ms** (${b.ms.map((t) => fmt(t, 0)).join(', ')}) | **${median(b.nodes)}** | ${median(b.cards)} |

The step list is virtualized (@lit-labs/virtualizer): the DOM holds the cards near the viewport only, so it does not grow with
the rollout (${median(b.nodes)} elements for 10,000 steps vs ${median(a.nodes)} for 100). The whole rollout still travels in one
message (the slice protocol of the issue is not done).
`,
  );
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
