/**
 * The host's side of step slicing for webview tests and the timeline bench: answers the page's
 * `loadSteps` requests the way the extension host does (src/shared/stepHeads.ts `answerStepSlice`
 * over the full rollout, posted back as a `steps` message), across the process boundary like the
 * real host. Answers can be held back (`hold`) to see the cards' loading state, then released.
 */
import type { Page } from 'playwright-core';
import type { Rollout } from '../../src/core/model';
import type { LoadStepsMessage } from '../../src/shared/protocol';
import { answerStepSlice } from '../../src/shared/stepHeads';

// page.evaluate callbacks run in Chromium.
declare const window: any;

export interface SliceHost {
  /** The rollout shown (full steps) and its index in the file: what requests are answered from. */
  rollout: Rollout;
  rolloutIndex: number;
  /** Every request the page sent, in order. */
  requests: LoadStepsMessage[];
  /** Answers sent (requests for another rollout are dropped, as the host does). */
  answered: number;
  /** While true, requests wait in `held` until `release()`. */
  hold: boolean;
  held: LoadStepsMessage[];
  /** Answers the held requests. */
  release(): Promise<void>;
}

/**
 * Starts answering `page`'s `loadSteps` requests from `rollout`. Call after the `ready` handshake
 * (the fake `acquireVsCodeApi` of test/webview/harness.ts records posts in `window.__sent`) and
 * before posting the sliced rollout.
 */
export async function serveSlices(page: Page, rollout: Rollout, rolloutIndex = 0): Promise<SliceHost> {
  const answer = async (m: LoadStepsMessage): Promise<void> => {
    const a = answerStepSlice(m, host.rolloutIndex, host.rollout);
    if (!a) return;
    host.answered++;
    // As JSON text parsed in the page, the way VS Code carries a host message (the page may be closed by now).
    await page.evaluate((json) => window.postMessage(JSON.parse(json), '*'), JSON.stringify(a)).catch(() => undefined);
  };
  const host: SliceHost = {
    rollout,
    rolloutIndex,
    requests: [],
    answered: 0,
    hold: false,
    held: [],
    async release() {
      this.hold = false;
      const h = this.held.splice(0);
      for (const m of h) await answer(m);
    },
  };
  await page.exposeFunction('__tiSlice', (m: LoadStepsMessage) => {
    host.requests.push(m);
    if (host.hold) host.held.push(m);
    else void answer(m);
  });
  // A string, not a function: the bundler's name helpers do not exist in the page.
  await page.evaluate(`(() => {
    const sent = window.__sent;
    const push = sent.push.bind(sent);
    sent.push = (...ms) => {
      for (const m of ms) if (m && m.type === 'loadSteps') window.__tiSlice(m);
      return push(...ms);
    };
  })()`);
  return host;
}

/**
 * Posts a host → webview message as JSON text parsed in the page (faster than postToWebview's
 * object transfer for a message of megabytes, and the way VS Code carries it).
 */
export async function postJson(page: Page, msg: unknown): Promise<void> {
  await page.evaluate((json) => window.postMessage(JSON.parse(json), '*'), JSON.stringify(msg));
}
