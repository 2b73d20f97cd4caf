/**
 * OpenHands V1 events of a session, for the live-follow tests (core, webview, e2e, bench): the
 * fixture conversation of OpenHands/software-agent-sdk (test/fixtures/openhands/v1-conversation-…,
 * see test/fixtures/PROVENANCE.tsv) and longer sessions made of its real event shapes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './samples';

const V1_EVENTS_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'openhands', 'v1-conversation-cd945624', 'events');

/** The fixture conversation's events in order. */
export function v1Events(): any[] {
  return fs
    .readdirSync(V1_EVENTS_DIR)
    .filter((n) => /^event-\d+/.test(n))
    .sort()
    .map((n) => JSON.parse(fs.readFileSync(path.join(V1_EVENTS_DIR, n), 'utf8')));
}

/**
 * A longer session made of the fixture's real event shapes: its system prompt and user message,
 * then `n` terminal calls (the fixture's ActionEvent / ObservationEvent, new ids), each command and
 * output with multi-byte text (é, 日本, an emoji outside the BMP), then its closing messages. Calls
 * 5k and 5k+1 are parallel calls of one response: both actions, then both observations (the first
 * observation joins a step that is not the last one, without changing its duration).
 */
export function session(n: number): any[] {
  const evs = v1Events();
  const act = evs.find((e) => e.kind === 'ActionEvent' && e.tool_name === 'terminal');
  const obs = evs.find((e) => e.kind === 'ObservationEvent' && e.tool_call_id === act.tool_call_id);
  const out: any[] = [evs[0], evs[1]];
  const t0 = Date.parse(act.timestamp + 'Z');
  const ts = (ms: number) => new Date(t0 + ms).toISOString().replace('Z', '');
  const action = (i: number, at: number): any => {
    const a = structuredClone(act);
    Object.assign(a, { id: `act-${i}`, timestamp: ts(at), tool_call_id: `call_${i}`, llm_response_id: `resp-${i - (i % 5 === 1 ? 1 : 0)}` });
    a.action.command = `echo "café 日本 🦀 ${i}"`;
    a.tool_call.id = `call_${i}`;
    return a;
  };
  const observation = (i: number, at: number): any => {
    const o = structuredClone(obs);
    Object.assign(o, { id: `obs-${i}`, timestamp: ts(at), tool_call_id: `call_${i}`, action_id: `act-${i}` });
    o.observation.content = [{ type: 'text', text: `café 日本 🦀 ${i}\n` }];
    return o;
  };
  for (let i = 0; i < n; i++) {
    if (i % 5 === 0 && i + 1 < n) {
      out.push(action(i, i * 1000), action(i + 1, i * 1000 + 200), observation(i, i * 1000 + 200), observation(i + 1, i * 1000 + 400));
      i++;
    } else out.push(action(i, i * 1000), observation(i, i * 1000 + 400));
  }
  out.push(...evs.slice(6));
  return out;
}

/** A session's events as JSONL text (one event per line, each line ended by `eol`). */
export const toJsonl = (evs: readonly unknown[], eol = '\n'): string => evs.map((e) => JSON.stringify(e)).join(eol) + eol;
