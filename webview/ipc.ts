/**
 * The webview's side of the host protocols: the one `acquireVsCodeApi()` object (it can be acquired
 * only once, and stays private here: no other module calls it), typed posting, persisted UI state
 * and validated inbound messages, for the timeline (src/shared/protocol.ts) and the compare page
 * (src/shared/compareProtocol.ts). Outside VS Code (the webview test harness) a page defines
 * `acquireVsCodeApi` itself.
 */
import { isCompareHostMessage, type CompareHostMessage, type CompareWebviewMessage } from '../src/shared/compareProtocol';
import { isHostMessage, isPersistedState, type HostMessage, type PersistedState, type WebviewMessage } from '../src/shared/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

let api: VsCodeApi | null = null;
function vscode(): VsCodeApi {
  if (!api) {
    api =
      typeof acquireVsCodeApi === 'function'
        ? acquireVsCodeApi()
        : { postMessage: () => undefined, getState: () => undefined, setState: () => undefined };
  }
  return api;
}

/** Sends a message to the extension host. */
export function post(msg: WebviewMessage): void {
  vscode().postMessage(msg);
}

/** The UI state saved by an earlier instance of this webview, if any and if well-formed. */
export function loadState(): PersistedState | null {
  const s = vscode().getState();
  return isPersistedState(s) ? s : null;
}

export function saveState(state: PersistedState): void {
  vscode().setState(state);
}

/**
 * Calls `handler` for every well-formed message from the host; anything of another shape is
 * ignored. (No `event.source === window.parent` check: in VS Code 1.100 / code-server the host's
 * messages reach this frame with a source that is neither the parent nor this window, checked in
 * the e2e tier. The frame is sandboxed, so only the webview host can post to it anyway.)
 */
export function onHostMessage(handler: (msg: HostMessage) => void): () => void {
  return listen(isHostMessage, handler);
}

/** Sends a message of the compare page to the extension host. */
export function postCompare(msg: CompareWebviewMessage): void {
  vscode().postMessage(msg);
}

/** `onHostMessage` for the compare page: every well-formed compare message; returns the unsubscribe. */
export function onCompareMessage(handler: (msg: CompareHostMessage) => void): () => void {
  return listen(isCompareHostMessage, handler);
}

function listen<M>(is: (v: unknown) => v is M, handler: (msg: M) => void): () => void {
  const listener = (e: MessageEvent): void => {
    if (is(e.data)) handler(e.data);
  };
  window.addEventListener('message', listener);
  return () => window.removeEventListener('message', listener);
}
