/**
 * The host's side of the terminal player for webview tests and the cast bench: answers the page's
 * `loadCast` and `castWindow` requests the way a timeline panel does (src/host/timeline/castFeed.ts
 * over the real file, the recording streamed by src/host/castStream.ts), posted back as JSON text
 * parsed in the page, as VS Code carries host messages.
 */
import type { Page } from 'playwright-core';
import type { Rollout } from '../../src/core/model';
import { CastFeed } from '../../src/host/timeline/castFeed';
import type { CastProgressMessage, CastWindowRequest } from '../../src/shared/castProtocol';
import type { HostMessage } from '../../src/shared/protocol';

// page.evaluate callbacks run in Chromium.
declare const window: any;

export interface CastHost {
  feed: CastFeed;
  /** Every `castWindow` request of the page, in order. */
  requests: CastWindowRequest[];
  /** When the page's `loadCast` came (performance.now(), ms), null before. */
  loadAt: number | null;
  /** The last `castProgress` posted (null before the first). */
  progress: CastProgressMessage | null;
  /** Stops the reading. */
  dispose(): void;
}

/**
 * Starts answering `page`'s recording requests for `rollout` (rollout `rolloutIndex` of its file).
 * Call after the `ready` handshake and before posting the rollout.
 */
export async function serveCast(page: Page, rollout: Rollout, rolloutIndex = 0): Promise<CastHost> {
  const post = (m: HostMessage): void => {
    if (m.type === 'castProgress') host.progress = m;
    void page.evaluate((json) => window.postMessage(JSON.parse(json), '*'), JSON.stringify(m)).catch(() => undefined);
  };
  const host: CastHost = {
    feed: new CastFeed(post),
    requests: [],
    loadAt: null,
    progress: null,
    dispose() {
      this.feed.dispose();
    },
  };
  await page.exposeFunction('__tiCast', (m: { type: string; rolloutIndex?: number }) => {
    if (m.type === 'loadCast' && m.rolloutIndex === rolloutIndex) {
      host.loadAt = performance.now();
      void host.feed.load(rolloutIndex, rollout);
    }
    else if (m.type === 'castWindow') {
      const req = m as unknown as CastWindowRequest;
      host.requests.push(req);
      void host.feed.answer(req);
    }
  });
  // A string, not a function: the bundler's name helpers do not exist in the page.
  await page.evaluate(`(() => {
    const sent = window.__sent;
    const push = sent.push.bind(sent);
    sent.push = (...ms) => {
      for (const m of ms) if (m && (m.type === 'loadCast' || m.type === 'castWindow')) window.__tiCast(m);
      return push(...ms);
    };
  })()`);
  return host;
}
