/**
 * Step heads and slices of a large rollout: the host sends a rollout whose serialized size
 * passes SLICE_MIN_CHARS as step HEADS (every step in the Step shape, its long texts cut to a short
 * preview) and answers the webview's `loadSteps` requests with the full steps it shows. Everything
 * that reads steps without their long texts (heat strip, scroll marks, castTime sync, labels,
 * replay bar, key navigation, Go to Step) works on the heads unchanged; a step card shows "loading"
 * until its full step is there (webview/stepStore.ts).
 *
 * Pure functions over the core model: no `vscode`, no DOM. Sizes are UTF-16 code units (JS string
 * length), the unit of the JSON text postMessage clones.
 */
import type { Action, FileEdit, Observation, Rollout, Step } from '../core/model';
import type { CutField, RolloutMessage, SlicedInfo, StepsMessage, LoadStepsMessage } from './protocol';
import { MAX_SLICE_STEPS } from './protocol';

/** A rollout estimated larger than this (UTF-16 code units of its JSON, about 1 MiB of text) is sent as heads. */
export const SLICE_MIN_CHARS = 1024 * 1024;
/** A head keeps at most this many characters of each long text… */
export const HEAD_CHARS = 100;
/** …and at most this many lines of it. */
export const HEAD_LINES = 2;
/** One `steps` answer carries at most this many characters of step text (at least one step). */
export const MAX_ANSWER_CHARS = 8 * 1024 * 1024;

/** Per step, what the JSON of its fields other than the long texts takes (ids, times, tokens, range): an estimate. */
const STEP_OVERHEAD = 240;
const ACTION_OVERHEAD = 80;
const OBSERVATION_OVERHEAD = 70;

/** Lines of `text`: newlines + 1, a final newline not starting a line; 0 for ''. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/**
 * The preview of `text`: its first `maxLines` lines, at most `maxChars` characters; null when the
 * whole text fits (it is kept as it is).
 */
export function previewOf(text: string, maxChars = HEAD_CHARS, maxLines = HEAD_LINES): string | null {
  let end = Math.min(text.length, maxChars);
  let nl = -1;
  for (let i = 0; i < maxLines; i++) {
    nl = text.indexOf('\n', nl + 1);
    if (nl < 0 || nl >= end) break;
    if (i === maxLines - 1) end = nl;
  }
  if (end >= text.length) return null;
  // Never split a surrogate pair (an emoji across the cut would end the preview in a lone half).
  const c = text.charCodeAt(end - 1);
  if (end > 0 && c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

/** JSON text of tool arguments ('' when absent); never throws (a cycle or BigInt gives its String). */
function argumentsText(a: unknown): string {
  if (a === undefined || a === null) return '';
  if (typeof a === 'string') return a;
  try {
    return JSON.stringify(a) ?? '';
  } catch {
    return String(a);
  }
}

/** Characters of the texts of a file edit (content, old/new texts, patch). */
function editChars(e: FileEdit | null | undefined): number {
  if (!e) return 0;
  switch (e.op) {
    case 'write':
      return e.content.length;
    case 'replace':
      return e.edits.reduce((n, x) => n + x.oldText.length + x.newText.length, 0);
    case 'patch':
      return e.patch.length;
    default:
      return e.reason.length;
  }
}

/** The edit with each long text cut to its preview (null when nothing is long). */
function editHead(e: FileEdit, cut: (text: string) => string | null): FileEdit | null {
  switch (e.op) {
    case 'write': {
      const content = cut(e.content);
      return content === null ? null : { ...e, content };
    }
    case 'replace': {
      let changed = false;
      const edits = e.edits.map((x) => {
        const oldText = cut(x.oldText);
        const newText = cut(x.newText);
        if (oldText === null && newText === null) return x;
        changed = true;
        return { ...x, oldText: oldText ?? x.oldText, newText: newText ?? x.newText };
      });
      return changed ? { ...e, edits } : null;
    }
    case 'patch': {
      const patch = cut(e.patch);
      return patch === null ? null : { ...e, patch };
    }
    default:
      return null;
  }
}

/** Estimated size of one step in the message (its texts plus a fixed overhead per step, action, observation). */
export function stepChars(s: Step): number {
  let n = STEP_OVERHEAD + s.message.length + (s.reasoning?.length ?? 0);
  for (const a of s.actions) n += ACTION_OVERHEAD + (a.command?.length ?? 0) + (a.tool?.length ?? 0) + (a.path?.length ?? 0) + argumentsText(a.arguments).length + editChars(a.edit);
  for (const o of s.observations) n += OBSERVATION_OVERHEAD + o.output.length;
  return n;
}

/** Estimated size of a rollout in the message: its steps and its task instruction. */
export function rolloutChars(r: Rollout): number {
  let n = 1000 + (r.task.instruction?.length ?? 0);
  for (const s of r.steps) n += stepChars(s);
  return n;
}

/**
 * The head of a step: the same Step with each long text (message, reasoning, action command or
 * arguments, observation output) cut to its preview, and what was cut. A step with nothing long is
 * its own head (`fields` empty, `head === step`). Cut arguments become their JSON text's preview.
 */
export function stepHead(step: Step): { head: Step; fields: CutField[] } {
  const fields: CutField[] = [];
  const cut = (field: string, text: string): string | null => {
    const p = previewOf(text);
    if (p !== null) fields.push({ field, chars: text.length, lines: countLines(text) });
    return p;
  };
  const message = cut('message', step.message);
  const reasoning = step.reasoning !== null ? cut('reasoning', step.reasoning) : null;
  let actions: Action[] | null = null;
  for (let i = 0; i < step.actions.length; i++) {
    const a = step.actions[i];
    const command = a.command !== null ? cut(`actions.${i}.command`, a.command) : null;
    // Arguments are cut whenever they are long, also beside a command: a shell tool call carries its
    // command in both (`{command}`), and a short command may come with a long `stdin` or file content.
    const args = a.arguments !== undefined && a.arguments !== null ? cut(`actions.${i}.arguments`, argumentsText(a.arguments)) : null;
    let editCut = false;
    const edit = a.edit
      ? editHead(a.edit, (t) => {
          const p = previewOf(t);
          if (p !== null) editCut = true;
          return p;
        })
      : null;
    if (editCut && a.edit) fields.push({ field: `actions.${i}.edit`, chars: editChars(a.edit), lines: 0 });
    if (command === null && args === null && edit === null) continue;
    actions ??= step.actions.slice();
    actions[i] = { ...a, ...(command !== null ? { command } : {}), ...(args !== null ? { arguments: args } : {}), ...(edit !== null ? { edit } : {}) };
  }
  let observations: Observation[] | null = null;
  for (let i = 0; i < step.observations.length; i++) {
    const o = step.observations[i];
    const output = cut(`observations.${i}.output`, o.output);
    if (output === null) continue;
    observations ??= step.observations.slice();
    observations[i] = { ...o, output };
  }
  if (!fields.length) return { head: step, fields };
  return {
    head: {
      ...step,
      ...(message !== null ? { message } : {}),
      ...(reasoning !== null ? { reasoning } : {}),
      ...(actions ? { actions } : {}),
      ...(observations ? { observations } : {}),
    },
    fields,
  };
}

/** The rollout as heads and what was cut (sizes estimated with rolloutChars / stepChars). */
export function rolloutHeads(r: Rollout): { rollout: Rollout; sliced: SlicedInfo } {
  const cuts: SlicedInfo['cuts'] = [];
  const fullChars = rolloutChars(r);
  let headChars = fullChars;
  const steps = r.steps.map((s) => {
    const { head, fields } = stepHead(s);
    if (fields.length) {
      cuts.push({ index: s.index, fields });
      headChars -= stepChars(s) - stepChars(head);
    }
    return head;
  });
  return { rollout: { ...r, steps }, sliced: { fullChars, headChars, cuts } };
}

/**
 * The `rollout` message as posted: unchanged when the rollout is estimated at most `minChars`,
 * else with the rollout's steps as heads and `sliced` set. (The message's rollout object is not changed.)
 */
export function slicedRolloutMessage(msg: RolloutMessage, minChars = SLICE_MIN_CHARS): RolloutMessage {
  if (rolloutChars(msg.rollout) <= minChars) return msg;
  const { rollout, sliced } = rolloutHeads(msg.rollout);
  return { ...msg, rollout, sliced: { ...sliced, initial: initialSteps(msg.rollout, msg.revealStep) } };
}

/** Steps per aligned chunk the webview asks for (webview/stepStore.ts CHUNK_STEPS is the same). */
export const INITIAL_STEPS = 25;
/** At most this much step text goes with the heads as `initial` (UTF-16 code units, stepChars estimate). */
export const MAX_INITIAL_CHARS = 2 * 1024 * 1024;

/**
 * The full steps sent with the heads (`SlicedInfo.initial`): from the aligned chunk of
 * INITIAL_STEPS steps holding `revealStep` (the first chunk when null), the step to select first,
 * then its neighbours by distance, while they fit in MAX_INITIAL_CHARS of step text together; a
 * step that does not fit is left to a `loadSteps` request. `from` is the chunk's first step;
 * `steps` ascend by index and need not be contiguous.
 */
export function initialSteps(r: Rollout, revealStep: number | null): { from: number; steps: Step[] } {
  const at = Math.max(0, Math.min(r.steps.length - 1, revealStep ?? 0));
  const from = Math.floor(at / INITIAL_STEPS) * INITIAL_STEPS;
  const to = Math.min(r.steps.length, from + INITIAL_STEPS);
  const steps: Step[] = [];
  let chars = 0;
  for (let d = 0; at - d >= from || at + d < to; d++) {
    for (const i of d === 0 ? [at] : [at + d, at - d]) {
      if (i < from || i >= to) continue;
      const n = stepChars(r.steps[i]);
      if (chars + n > MAX_INITIAL_CHARS) continue;
      chars += n;
      steps.push(r.steps[i]);
    }
  }
  steps.sort((a, b) => a.index - b.index);
  return { from, steps };
}

/**
 * The answer to a `loadSteps` request from the rollout shown (`rolloutIndex`, `rollout`): its full
 * steps `from` … `to - 1` (clamped to the rollout and to MAX_SLICE_STEPS), cut short after
 * `maxChars` of step text (always at least one step). Null when the request is for another
 * rollout than the one shown or starts past its end: the host drops it.
 */
export function answerStepSlice(req: LoadStepsMessage, rolloutIndex: number, rollout: Rollout | null, maxChars = MAX_ANSWER_CHARS): StepsMessage | null {
  if (!rollout || req.rolloutIndex !== rolloutIndex || req.rolloutId !== rollout.id) return null;
  const from = req.from;
  const to = Math.min(req.to, rollout.steps.length, from + MAX_SLICE_STEPS);
  if (!(from < to)) return null;
  const steps: Step[] = [];
  let chars = 0;
  for (let i = from; i < to; i++) {
    const s = rollout.steps[i];
    chars += stepChars(s);
    if (steps.length && chars > maxChars) break;
    steps.push(s);
  }
  return { type: 'steps', rolloutIndex, rolloutId: rollout.id, from, steps, seq: req.seq };
}
