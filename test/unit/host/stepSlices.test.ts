/**
 * Step heads and slices of a large rollout (issue 7): src/shared/stepHeads.ts (heads, sizes, slice
 * answers), src/host/stepSlices.ts (the timeline's cache and guard) and webview/stepStore.ts (the
 * webview's bounded store and its requests), over the real SWE-agent sample repeated to 10,000 steps.
 */
import * as assert from 'node:assert/strict';
import { loadFile, type LoadedFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { makeStep } from '../../../src/core/model';
import { rolloutMessage } from '../../../src/host/rolloutMessage';
import { LoadedSource } from '../../../src/host/rolloutSource';
import { StepSlices } from '../../../src/host/stepSlices';
import { isHostMessage, isWebviewMessage, MAX_SLICE_STEPS, type RolloutMessage, type LoadStepsMessage, type StepsMessage } from '../../../src/shared/protocol';
import {
  answerStepSlice,
  countLines,
  initialSteps,
  MAX_INITIAL_CHARS,
  HEAD_CHARS,
  HEAD_LINES,
  previewOf,
  rolloutChars,

  SLICE_MIN_CHARS,
  slicedRolloutMessage,
  stepHead,
} from '../../../src/shared/stepHeads';
import { CHUNK_STEPS, describeCut, StepStore } from '../../../webview/stepStore';
import { sample } from '../samples';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const CONFIG = { collapseOutputLines: 20 };

/** The sample rollout's steps repeated (re-indexed) to `n` steps. */
function longRollout(r: Rollout, n: number): Rollout {
  const steps = Array.from({ length: n }, (_, i) => ({ ...r.steps[i % r.steps.length], index: i }));
  return { ...r, id: `${r.id}-x${n}`, steps };
}

describe('step heads and slices (issue 7)', () => {
  let swe: LoadedFile;
  let big: Rollout;
  let bigMsg: RolloutMessage;

  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
    big = longRollout(swe.rollouts[0], 10_000);
    bigMsg = rolloutMessage(new LoadedSource({ ...swe, rollouts: [big] }), 0, null, CONFIG);
  });

  it('counts lines and cuts previews at HEAD_CHARS characters or HEAD_LINES lines', () => {
    assert.equal(countLines(''), 0);
    assert.equal(countLines('a'), 1);
    assert.equal(countLines('a\n'), 1);
    assert.equal(countLines('a\nb'), 2);
    assert.equal(countLines('a\n\n'), 2);
    assert.equal(previewOf('short'), null);
    assert.equal(previewOf('x'.repeat(HEAD_CHARS)), null);
    assert.equal(previewOf('x'.repeat(HEAD_CHARS + 1)), 'x'.repeat(HEAD_CHARS));
    const lines = Array.from({ length: HEAD_LINES + 3 }, (_, i) => `line ${i}`).join('\n');
    assert.equal(previewOf(lines), lines.split('\n').slice(0, HEAD_LINES).join('\n'));
    assert.equal(previewOf(lines.split('\n').slice(0, HEAD_LINES).join('\n')), null, 'exactly HEAD_LINES lines fit');
  });

  it('sends a small real rollout whole, as before (the same message object)', () => {
    const msg = rolloutMessage(new LoadedSource(swe), 0, null, CONFIG);
    assert.ok(rolloutChars(msg.rollout) < SLICE_MIN_CHARS);
    assert.equal(slicedRolloutMessage(msg), msg);
    assert.equal(new StepSlices().heads(msg.rollout, null), null);
    assert.equal(rolloutMessage(new LoadedSource(swe), 0, null, CONFIG, { slices: new StepSlices() }).rollout, msg.rollout);
    assert.equal(msg.sliced, undefined);
  });

  it('sends a 10,000-step rollout as heads: the same Step shape, texts cut to prefixes, what was cut listed', () => {
    const sliced = slicedRolloutMessage(bigMsg);
    assert.ok(sliced.sliced, 'a 10,000-step rollout is sliced');
    assert.ok(isHostMessage(sliced), 'the sliced message passes the webview guard');
    assert.equal(bigMsg.rollout, big, 'the message given is not changed');
    assert.equal(sliced.rollout.steps.length, big.steps.length);
    const cutAt = new Map(sliced.sliced.cuts.map((c) => [c.index, c.fields]));
    let cutOutputs = 0;
    for (let i = 0; i < big.steps.length; i++) {
      const full = big.steps[i];
      const head = sliced.rollout.steps[i];
      // Everything but the long texts is the step's own.
      for (const k of ['index', 'sourceId', 'role', 'timestamp', 'durationSec', 'tokens', 'costUsd', 'range', 'file', 'castTime', 'referenceLabel', 'copiedContext'] as const) {
        assert.deepEqual(head[k], full[k], `step ${i}: ${k}`);
      }
      assert.equal(head.actions.length, full.actions.length);
      assert.equal(head.observations.length, full.observations.length);
      head.actions.forEach((a, j) => {
        assert.equal(a.kind, full.actions[j].kind);
        assert.equal(a.tool, full.actions[j].tool);
      });
      const fields = cutAt.get(i) ?? [];
      const expectCut = (field: string, text: string | null): void => {
        const f = fields.find((x) => x.field === field);
        if (text !== null && previewOf(text) !== null) {
          assert.ok(f, `step ${i}: ${field} is long and listed`);
          assert.equal(f.chars, text.length);
          assert.equal(f.lines, countLines(text));
        } else {
          assert.equal(f, undefined, `step ${i}: ${field} is short and not listed`);
        }
      };
      expectCut('message', full.message);
      assert.ok(full.message.startsWith(head.message));
      assert.ok(head.message.length <= HEAD_CHARS);
      expectCut('reasoning', full.reasoning);
      full.observations.forEach((o, j) => {
        expectCut(`observations.${j}.output`, o.output);
        assert.ok(o.output.startsWith(head.observations[j].output));
        assert.equal(head.observations[j].exitCode, o.exitCode);
        if (previewOf(o.output) !== null) cutOutputs++;
      });
      full.actions.forEach((a, j) => a.command !== null && expectCut(`actions.${j}.command`, a.command));
      if (!fields.length) assert.equal(head, full, `step ${i}: a step with nothing long is its own head`);
    }
    assert.ok(cutOutputs >= 1000, `the sample's long outputs are cut (${cutOutputs})`);
    // The estimate is close to the JSON postMessage clones, and heads are a small part of it.
    const whole = JSON.stringify(bigMsg).length;
    const heads = JSON.stringify(sliced).length;
    assert.ok(Math.abs(sliced.sliced.fullChars - whole) / whole < 0.25, `estimate ${sliced.sliced.fullChars} vs JSON ${whole}`);
    assert.ok(Math.abs(sliced.sliced.headChars - heads) / heads < 0.35, `estimate ${sliced.sliced.headChars} vs JSON ${heads}`);
    assert.ok(heads < whole / 2, `heads ${heads} vs whole ${whole}`);
  });

  it('cuts long tool arguments to the preview of their JSON text', () => {
    const args = { path: '/x', content: 'y'.repeat(5000) };
    const step = makeStep(0, 'agent', { actions: [{ kind: 'tool', command: null, tool: 'write', arguments: args, callId: null }] });
    const { head, fields } = stepHead(step);
    assert.equal(typeof head.actions[0].arguments, 'string');
    assert.ok(JSON.stringify(args).startsWith(head.actions[0].arguments as string));
    assert.deepEqual(fields, [{ field: 'actions.0.arguments', chars: JSON.stringify(args).length, lines: 1 }]);
    assert.equal(step.actions[0].arguments, args, 'the step itself is not changed');
  });

  it('cuts a shell command\'s arguments too (a tool call carries the command in both), and never splits a surrogate pair', () => {
    const command = 'cat <<EOF\n' + 'z'.repeat(200_000);
    const step = makeStep(0, 'agent', { actions: [{ kind: 'shell', command, tool: 'bash', arguments: { command }, callId: 'c1' }] });
    const { head, fields } = stepHead(step);
    assert.ok(JSON.stringify(head).length < 1000, `head ${JSON.stringify(head).length} chars`);
    assert.deepEqual(fields.map((f) => f.field), ['actions.0.command', 'actions.0.arguments']);
    // An emoji (two UTF-16 units) across the cut stays whole or goes whole.
    const text = 'a'.repeat(HEAD_CHARS - 1) + '😀' + 'b'.repeat(50);
    const p = previewOf(text)!;
    assert.equal(p, 'a'.repeat(HEAD_CHARS - 1));
    assert.ok(!/[\ud800-\udbff]$/.test(p));
  });

  it('sends with the heads the step to select and its neighbours that fit, not a huge step before it', () => {
    const steps = Array.from({ length: 60 }, (_, i) =>
      makeStep(i, 'environment', { observations: [{ callId: null, output: (i === 25 ? 'H' : `s${i} `).repeat(i === 25 ? 3_000_000 : 2000), exitCode: 0, truncated: false }] }),
    );
    const r: Rollout = { ...swe.rollouts[0], id: 'huge-step', steps };
    const init = initialSteps(r, 30);
    assert.equal(init.from, 25);
    const got = init.steps.map((x) => x.index);
    assert.ok(got.includes(30), 'the step to select comes whole');
    assert.ok(!got.includes(25), 'a step over the cap is left to a request');
    assert.deepEqual(got, [...got].sort((a, b) => a - b));
    assert.ok(got.every((i) => i >= 25 && i < 50));
    const m = slicedRolloutMessage(rolloutMessage(new LoadedSource({ ...swe, rollouts: [r] }), 0, 30, CONFIG));
    assert.ok(JSON.stringify(m).length < MAX_INITIAL_CHARS + 200_000, `message ${JSON.stringify(m).length} chars`);
  });

  it('answers a slice with the full steps, clamped, capped, and only for the rollout shown', () => {
    const req: LoadStepsMessage = { type: 'loadSteps', rolloutIndex: 0, rolloutId: big.id, from: 9990, to: 10_010, seq: 7 };
    assert.ok(isWebviewMessage(req));
    const a = answerStepSlice(req, 0, big);
    assert.ok(a);
    assert.ok(isHostMessage(a));
    assert.equal(a.from, 9990);
    assert.equal(a.seq, 7);
    assert.equal(a.steps.length, 10, 'clamped to the end of the rollout');
    a.steps.forEach((s, k) => assert.equal(s, big.steps[9990 + k]));
    assert.equal(answerStepSlice({ ...req, rolloutId: 'other' }, 0, big), null);
    assert.equal(answerStepSlice(req, 1, big), null, 'another rollout of the file is shown');
    assert.equal(answerStepSlice({ ...req, from: 10_000, to: 10_005 }, 0, big), null);
    assert.equal(answerStepSlice(req, 0, null), null);
    // A size cap cuts the answer short, but never below one step.
    const capped = answerStepSlice({ ...req, from: 0, to: 50 }, 0, big, 1);
    assert.equal(capped?.steps.length, 1);
    const some = answerStepSlice({ ...req, from: 0, to: 200 }, 0, big, 200_000);
    assert.ok(some && some.steps.length > 1 && some.steps.length < 200, `${some?.steps.length} steps under a 200 000-character cap`);
  });

  it('guards the slice messages: ranges of at most MAX_SLICE_STEPS, steps in order', () => {
    const req = { type: 'loadSteps', rolloutIndex: 0, rolloutId: 'r', from: 10, to: 10 + MAX_SLICE_STEPS, seq: 1 };
    assert.ok(isWebviewMessage(req));
    assert.ok(!isWebviewMessage({ ...req, to: 11 + MAX_SLICE_STEPS }));
    assert.ok(!isWebviewMessage({ ...req, to: 10 }));
    assert.ok(!isWebviewMessage({ ...req, from: -1 }));
    assert.ok(!isWebviewMessage({ ...req, seq: undefined }));
    assert.ok(!isWebviewMessage({ ...req, rolloutId: 3 }));
    const steps = big.steps.slice(5, 8);
    const ok: StepsMessage = { type: 'steps', rolloutIndex: 0, rolloutId: 'r', from: 5, steps, seq: 1 };
    assert.ok(isHostMessage(ok));
    assert.ok(!isHostMessage({ ...ok, from: 6 }), 'steps must start at `from`');
    assert.ok(!isHostMessage({ ...ok, steps: [steps[1], steps[0]] }));
    assert.ok(!isHostMessage({ ...ok, steps: [{ index: 5 }] }));
    const sliced = slicedRolloutMessage(bigMsg);
    assert.ok(!isHostMessage({ ...sliced, sliced: { ...sliced.sliced, cuts: [{ index: -1, fields: [] }] } }));
  });

  it('StepSlices caches the heads per rollout and never throws on a request', () => {
    const s = new StepSlices();
    const source = new LoadedSource({ ...swe, rollouts: [big] });
    const a = rolloutMessage(source, 0, null, CONFIG, { slices: s });
    const b = rolloutMessage(source, 0, 3, CONFIG, { slices: s });
    assert.ok(a.sliced);
    assert.equal(a.rollout, b.rollout, 'heads built once per rollout object');
    assert.equal(b.revealStep, 3);
    const forced = rolloutMessage(new LoadedSource(swe), 0, null, CONFIG, { slices: new StepSlices(0) });
    assert.ok(forced.sliced, 'a threshold of 0 slices even a small rollout (tests)');
    const broken = { ...big, steps: null } as unknown as Rollout;
    assert.equal(s.answer({ type: 'loadSteps', rolloutIndex: 0, rolloutId: big.id, from: 0, to: 3, seq: 1 }, 0, broken), null);
  });
});

describe('webview step store (issue 7)', () => {
  let swe: LoadedFile;
  let big: Rollout;
  let msg: RolloutMessage;

  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
    big = longRollout(swe.rollouts[0], 10_000);
    // Every 10th step a short one: its head is the step itself.
    big.steps = big.steps.map((s) => (s.index % 10 === 7 ? makeStep(s.index, 'user', { message: 'ok' }) : s));
    msg = slicedRolloutMessage(rolloutMessage(new LoadedSource({ ...swe, rollouts: [big] }), 0, null, CONFIG));
  });

  /** A store whose requests are collected in `sent`; `answer` answers them as the host does. */
  function store(o: { maxSteps?: number; maxChars?: number; minKeep?: number; now?: () => number } = {}) {
    const sent: LoadStepsMessage[] = [];
    const st = new StepStore({ post: (m) => sent.push(m), ...o });
    st.reset(msg);
    const answer = (m: LoadStepsMessage): boolean => st.receive(answerStepSlice(m, 0, big)!);
    return { st, sent, answer };
  }

  it('returns heads of whole steps at once and asks for the cut ones in aligned chunks, once', () => {
    const { st, sent, answer } = store();
    assert.ok(st.sliced);
    const cut = msg.sliced!.cuts.map((c) => c.index);
    const whole = msg.rollout.steps.find((s) => !cut.includes(s.index))!;
    assert.equal(st.full(whole.index, whole), whole);
    const c = cut.find((i) => i > 100)!;
    assert.equal(st.full(c, msg.rollout.steps[c]), null);
    assert.equal(st.want(c - 5, c + 5), Math.floor((c + 4) / CHUNK_STEPS) - Math.floor((c - 5) / CHUNK_STEPS) + 1);
    const n = sent.length;
    assert.equal(st.want(c - 5, c + 5), 0, 'no second request while one is in flight');
    assert.equal(st.want(c, c + 1), 0);
    assert.equal(sent.length, n);
    for (const m of sent) {
      assert.ok(isWebviewMessage(m));
      assert.equal(Math.floor(m.from / CHUNK_STEPS), Math.floor((m.to - 1) / CHUNK_STEPS), 'one chunk per request');
      assert.ok(answer(m));
    }
    assert.equal(st.pending, 0);
    assert.equal(st.full(c, msg.rollout.steps[c]), big.steps[c]);
    assert.equal(st.want(c - 5, c + 5), 0, 'nothing missing: nothing asked');
  });

  it('asks again for a request left unanswered too long', () => {
    let now = 0;
    const { st, sent } = store({ now: () => now });
    st.want(9990, 10_000);
    const n = sent.length;
    assert.ok(n >= 1);
    now += 5000;
    assert.equal(st.want(9990, 10_000), 0);
    now += 20_000;
    assert.equal(st.want(9990, 10_000), n);
  });

  it('drops answers for another rollout or from before a reset', () => {
    const { st, sent } = store();
    st.want(0, 30);
    const stale = answerStepSlice(sent[0], 0, big)!;
    assert.ok(!st.receive({ ...stale, rolloutId: 'other' }));
    st.reset(msg);
    assert.ok(!st.receive(stale), 'an answer to a request sent before the reset');
    assert.equal(st.size, msg.sliced!.initial!.steps.filter((s) => msg.sliced!.cuts.some((c) => c.index === s.index)).length, 'only the full steps that came with the heads');
    assert.ok(st.size > 0);
    assert.equal(st.want(0, 25), 0, 'the first chunk came with the heads: nothing asked');
    st.reset(rolloutMessage(new LoadedSource(swe), 0, null, CONFIG));
    assert.ok(!st.sliced);
    assert.equal(st.want(0, 10), 0, 'a whole rollout asks for nothing');
  });

  it('stays bounded: at most maxSteps steps and maxChars characters, least recently used out first', () => {
    const { st, sent, answer } = store({ maxSteps: 300, minKeep: 50 });
    for (let from = 0; from < 10_000; from += 100) {
      st.want(from, from + 100);
      while (sent.length) answer(sent.shift()!);
      assert.ok(st.size <= 300, `${st.size} steps kept`);
    }
    const cut = new Set(msg.sliced!.cuts.map((c) => c.index));
    const last = [...cut].filter((i) => i >= 9900);
    for (const i of last) assert.ok(st.full(i, msg.rollout.steps[i]), `step ${i}, among the last received, is kept`);
    assert.equal(st.full([...cut][0], msg.rollout.steps[[...cut][0]]), null, 'the first steps were let go');
    const small = store({ maxChars: 200_000, minKeep: 10 });
    // Scrolling through 400 steps a chunk at a time (what was asked for last is kept whatever the budget).
    for (let f = 0; f < 400; f += CHUNK_STEPS) {
      small.st.want(f, f + CHUNK_STEPS);
      while (small.sent.length) small.answer(small.sent.shift()!);
    }
    assert.ok(small.st.chars <= 200_000 || small.st.size <= 10, `${small.st.chars} characters in ${small.st.size} steps`);
    assert.ok(small.st.size >= 10);
  });

  it('keeps the steps it was last asked for even over its budget: answers never evict each other (no request loop)', () => {
    const steps = Array.from({ length: 1000 }, (_, i) => makeStep(i, 'environment', { observations: [{ callId: null, output: 'x'.repeat(300_000), exitCode: 0, truncated: false }] }));
    const r: Rollout = { ...swe.rollouts[0], id: 'wide', steps };
    const m = slicedRolloutMessage(rolloutMessage(new LoadedSource({ ...swe, rollouts: [r] }), 0, null, CONFIG));
    const sent: LoadStepsMessage[] = [];
    const st = new StepStore({ post: (x) => sent.push(x) });
    st.reset({ ...m, sliced: { ...m.sliced!, initial: undefined } });
    st.want(0, 150);
    let answers = 0;
    while (sent.length && answers < 100) {
      answers++;
      assert.ok(st.receive(answerStepSlice(sent.shift()!, 0, r)!));
      for (let i = 0; i < 150; i++) st.full(i, m.rollout.steps[i]);
      st.want(0, 150);
    }
    assert.equal(answers, 6, 'one answer per chunk, none asked again');
    for (let i = 0; i < 150; i++) assert.ok(st.full(i, m.rollout.steps[i]), `step ${i} kept`);
    // Looking elsewhere frees the budget again.
    st.want(900, 925);
    assert.ok(st.receive(answerStepSlice(sent.shift()!, 0, r)!));
    assert.ok(st.chars <= 32 * 1024 * 1024 || st.size <= 120, `${st.size} steps, ${st.chars} chars`);
  });

  it('describes what a head left out', () => {
    assert.equal(describeCut([{ field: 'observations.0.output', chars: 90_000, lines: 5000 }, { field: 'message', chars: 2048, lines: 1 }]), 'output 5,000 lines · message 2.0 KB');
  });
});




describe('step heads of file edits (issue 13)', () => {
  it('cuts the long texts of an edit and says so; a short edit is kept whole', () => {
    const long = Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n');
    const step = makeStep(0, 'agent', {
      actions: [
        { kind: 'file_edit', command: null, tool: 'Write', callId: 'a', path: '/w/a.txt', edit: { op: 'write', path: '/w/a.txt', content: long } },
        { kind: 'file_edit', command: null, tool: 'Edit', callId: 'b', path: '/w/b.txt', edit: { op: 'replace', path: '/w/b.txt', edits: [{ oldText: 'x', newText: 'y', replaceAll: false }] } },
      ],
    });
    const { head, fields } = stepHead(step);
    assert.deepEqual(fields.map((f) => f.field), ['actions.0.edit']);
    assert.equal(fields[0].chars, long.length);
    const e0 = head.actions[0].edit;
    assert.ok(e0 && e0.op === 'write');
    assert.equal(e0.content, previewOf(long));
    assert.equal(head.actions[1], step.actions[1], 'the short edit is the same object');
    assert.match(describeCut(fields), /^edit /);
  });
});
