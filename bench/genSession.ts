/**
 * Generates a large coding-agent session as JSONL (one event per line, appended as an agent runs)
 * for bench/follow.bench.ts: the real event shapes of the OpenHands software-agent-sdk fixture
 * conversation (test/fixtures/openhands/v1-conversation-cd945624, test/unit/v1Session.ts) — its
 * system prompt and first user message, then terminal calls (ActionEvent + ObservationEvent), some
 * pairs parallel, with command and output sizes like a real session's: most outputs a few hundred
 * bytes to a few KB, one in twenty a large tool result (a file read, a test log: 40–200 KB).
 *
 * Deterministic (a fixed-seed generator); a file already there is reused.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { session } from '../test/unit/v1Session';

/** A small deterministic PRNG (mulberry32). */
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

const WORDS = 'the of test file error return value line import def class self assert passed failed build src module function'.split(' ');

/** Output-like text of about `n` characters (lines of words and numbers). */
function textOf(r: () => number, n: number): string {
  const lines: string[] = [];
  let len = 0;
  while (len < n) {
    const words = Array.from({ length: 4 + Math.floor(r() * 10) }, () => WORDS[Math.floor(r() * WORDS.length)]);
    const l = `${words.join(' ')} ${Math.floor(r() * 100000)}`;
    lines.push(l);
    len += l.length + 1;
  }
  return lines.join('\n') + '\n';
}

/**
 * Events of a session of `calls` terminal calls (the fixture's shapes, outputs sized as above).
 * Event `i` of the result is line `i + 1` of the file.
 */
export function sessionEvents(calls: number, seed = 7): any[] {
  const r = rng(seed);
  const evs = session(calls);
  for (const e of evs) {
    if (e.kind === 'ObservationEvent' && /^obs-/.test(e.id)) {
      const big = r() < 0.05;
      const n = big ? 40_000 + Math.floor(r() * 160_000) : 200 + Math.floor(r() * 4000);
      e.observation.content = [{ type: 'text', text: textOf(r, n) }];
    } else if (e.kind === 'ActionEvent' && /^act-/.test(e.id)) {
      const cmd = `cd /workspace && ${WORDS[Math.floor(r() * WORDS.length)]} ${textOf(r, 40 + Math.floor(r() * 200)).replace(/\n/g, ' ').trim()}`;
      e.action.command = cmd;
      e.tool_call.arguments = JSON.stringify({ command: cmd });
    }
  }
  return evs;
}

/** One more call's events (action and observation, ids after the session's), for appending to a followed file. */
export function nextCall(events: readonly any[], k: number): any[] {
  const act = structuredClone(events.find((e) => e.kind === 'ActionEvent' && /^act-/.test(e.id)));
  const obs = structuredClone(events.find((e) => e.kind === 'ObservationEvent' && e.tool_call_id === act.tool_call_id));
  const id = `late-${k}`;
  Object.assign(act, { id: `act-${id}`, tool_call_id: `call_${id}`, llm_response_id: `resp-${id}` });
  act.action.command = `echo appended ${k}`;
  act.tool_call.id = `call_${id}`;
  Object.assign(obs, { id: `obs-${id}`, tool_call_id: `call_${id}`, action_id: `act-${id}` });
  obs.observation.content = [{ type: 'text', text: `appended ${k}\n` }];
  return [act, obs];
}

/** Writes a session JSONL of at least `bytes` bytes at `file` (reused when there). */
export function sessionJsonl(file: string, bytes: number): { file: string; size: number; events: number } {
  if (fs.existsSync(file)) {
    const size = fs.statSync(file).size;
    let events = 0;
    const b = fs.readFileSync(file);
    for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) events++;
    return { file, size, events };
  }
  // About 9 KB per call on average (a mean output of ~2 KB, one in twenty ~120 KB).
  let calls = Math.ceil(bytes / 9000);
  for (;;) {
    const evs = sessionEvents(calls);
    const text = evs.map((e) => JSON.stringify(e)).join('\n') + '\n';
    const size = Buffer.byteLength(text);
    if (size >= bytes) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(`${file}.tmp`, text);
      fs.renameSync(`${file}.tmp`, file);
      return { file, size, events: evs.length };
    }
    calls = Math.ceil(calls * (bytes / size) * 1.02);
  }
}
