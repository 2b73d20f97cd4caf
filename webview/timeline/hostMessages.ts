/**
 * Every message from the host, applied to the timeline state: the one place the webview handles
 * host messages (src/shared/protocol.ts `HostMessage`). Pure apart from the state's step store,
 * whose requests for steps go out through the port it was made with; the DOM work a message asks
 * for comes back as effects.
 */
import { expandPaged } from '../../src/shared/pagedSteps';
import type { HostMessage, RolloutMessage, RolloutUpdateMessage } from '../../src/shared/protocol';
import { stepAtTime } from '../cast';
import { marksOf, playerStartTime, rolloutMsg, type Effect, type TimelineState } from './state';
import { labelAction, move, select, setFollow } from './update';

/** Applies one host message to `s` (in place) and returns what the page must do besides rendering. */
export function applyHostMessage(s: TimelineState, m: HostMessage): Effect[] {
  switch (m.type) {
    case 'rollout':
      return applyRollout(s, m);
    case 'rolloutUpdate':
      return applyUpdate(s, m);
    case 'live': {
      const cur = rolloutMsg(s);
      if (cur) s.view = { kind: 'rollout', msg: { ...cur, live: m.live } };
      return [];
    }
    case 'toggleFollow':
      return setFollow(s, m.on ?? !s.follow);
    case 'loadError':
      s.view = { kind: 'error', msg: m };
      return [];
    case 'loading':
      if (s.view.kind !== 'rollout') s.view = { kind: 'loading', file: m.file };
      return [];
    case 'revealStep':
      return select(s, m.index, m.reveal === false ? null : 'center');
    case 'highlight':
      s.highlight = { rolloutIndex: m.rolloutIndex, index: m.index, query: m.query };
      return select(s, m.index, 'center');
    case 'moveSelection':
      return move(s, m.delta);
    case 'config':
      s.config = m.config;
      return [];
    case 'labels': {
      // Labels of another rollout (a late answer after switching) are dropped.
      const cur = rolloutMsg(s);
      if (cur && cur.rollout.id !== m.rolloutId) return [];
      s.labelsMsg = m;
      if (m.seq !== null) s.sentChanges = s.sentChanges.filter((c) => c.seq > m.seq!);
      return [];
    }
    case 'runLabelAction':
      if (!rolloutMsg(s)) return [];
      s.flash = null;
      return labelAction(s, m.action);
    case 'replayState':
      s.replay = m;
      return [];
    case 'scores': {
      // Scores of another rollout (a late answer after switching) are dropped.
      const cur = rolloutMsg(s);
      if (cur && cur.rollout.id !== m.rolloutId) return [];
      s.scoresMsg = m;
      return [];
    }
    case 'stepFiles':
      s.stepFilesMsg = m;
      return [];
    case 'steps':
      if (!s.stepStore.receive(m)) return [];
      // Keep the selected (else the top) card in place while the steps around it render; following, the end.
      // An answer cut short (size cap) leaves steps to ask for.
      if (s.follow) return [{ kind: 'revealEnd' }, { kind: 'wantRange', afterRender: false }];
      return s.pendingScrollY === null ? [{ kind: 'keepInView' }, { kind: 'wantRange', afterRender: false }] : [{ kind: 'wantRange', afterRender: false }];
    case 'cast': {
      const cur = rolloutMsg(s);
      if (s.cast && s.cast.rolloutId === m.rolloutId && cur?.rollout.id === m.rolloutId) {
        s.cast = { ...s.cast, msg: m, progress: null };
        // The player starts at the selected step's time (playerStartTime); the selection stays.
        s.playerStep = stepAtTime(marksOf(cur.rollout).marks, playerStartTime(s, cur.rollout));
      }
      return [];
    }
    case 'castWindow':
      // The player drops a window of another recording (its stream id) or of a request it no longer waits for.
      return s.cast?.msg?.cast?.stream?.id === m.stream ? [{ kind: 'castWindow', msg: m }] : [];
    case 'castProgress':
      if (s.cast?.msg?.cast?.stream?.id === m.stream) s.cast = { ...s.cast, progress: m };
      return [];
  }
}

/**
 * A whole rollout: the same one read again keeps the selection, expansion and scroll; another one
 * starts from what an earlier instance of this webview saved for it, else on its first step.
 */
function applyRollout(s: TimelineState, posted: RolloutMessage): Effect[] {
  // A paged rollout came without steps: its column becomes placeholder steps (pagedSteps.ts) that every view reads as heads.
  const paged = posted.sliced?.paged;
  const m: RolloutMessage = paged ? { ...posted, rollout: { ...posted.rollout, steps: expandPaged(paged) } } : posted;
  const out: Effect[] = [];
  s.stepStore.reset(m);
  // The virtualizer reports a range only when it changes: ask for the steps of the range shown once this rollout renders.
  if (m.sliced) out.push({ kind: 'wantRange', afterRender: true });
  const prev = rolloutMsg(s);
  const sameRollout = prev !== null && prev.rollout.id === m.rollout.id;
  const count = m.rollout.steps.length;
  s.config = m.config;
  if (!sameRollout) {
    if (s.labelsMsg?.rolloutId !== m.rollout.id) s.labelsMsg = null;
    if (s.scoresMsg?.rolloutId !== m.rollout.id) s.scoresMsg = null;
    s.sentChanges = [];
    s.editingNote = null;
    s.flash = null;
    // Restore what an earlier instance of this webview had for this rollout, else start fresh.
    const st = s.restored;
    s.follow = false;
    s.unseen = 0;
    if (st && st.rolloutId === m.rollout.id) {
      s.selected = st.selectedStep !== null && st.selectedStep < count ? st.selectedStep : null;
      s.expanded = new Set(st.expanded.filter((i) => i < count));
      s.follow = st.follow === true && m.revealStep === null && m.live !== undefined;
      if (s.follow) {
        // Follow was on: back at the end, which may have grown meanwhile.
      } else if (m.sliced && st.scrollStep !== undefined && st.scrollStep < count && m.revealStep === null) s.pendingAnchor = { index: st.scrollStep, top: st.scrollStepTop ?? 0 };
      else if (st.scrollY !== undefined && m.revealStep === null) s.pendingScrollY = st.scrollY;
    } else {
      // Start on the first step so the keys and Show in Source work right away.
      s.selected = count ? 0 : null;
      s.expanded = new Set();
      if (count) out.push({ kind: 'selected', rolloutIndex: m.rolloutIndex, stepIndex: 0 });
    }
  } else if (s.selected !== null && s.selected >= count) {
    s.selected = count ? count - 1 : null;
  }
  s.restored = null;
  s.view = { kind: 'rollout', msg: m };
  out.push(...requestCast(s, m));
  if (m.revealStep !== null && m.revealStep < count) out.push(...select(s, m.revealStep, 'center'));
  else if (s.follow) out.push({ kind: 'revealEnd' });
  // The same rollout read again (its file changed) keeps the scroll where it is.
  else if (s.selected && !s.pendingAnchor && !sameRollout) s.pendingReveal = { index: s.selected, block: 'center' };
  out.push({ kind: 'persist' });
  return out;
}

/** Asks the host for the rollout's recording unless it is the one already shown. */
function requestCast(s: TimelineState, m: RolloutMessage): Effect[] {
  const rec = m.rollout.recording;
  if (!rec) {
    s.cast = null;
    return [];
  }
  if (s.cast && s.cast.rolloutId === m.rollout.id && s.cast.path === rec.path) return [];
  s.cast = { rolloutId: m.rollout.id, path: rec.path, msg: null, progress: null };
  s.playerStep = null;
  return [{ kind: 'loadCast', rolloutIndex: m.rolloutIndex }];
}

/**
 * A `rolloutUpdate` (live follow): the steps from `from` on are replaced by the message's, the
 * rest of the rollout taken as it is now; selection, expansion and labels stay (they key by step
 * index, which an update never shifts). Following, the newest step is revealed; else the
 * selected (or top) card stays where it is while changed steps above it change height.
 */
function applyUpdate(s: TimelineState, m: RolloutUpdateMessage): Effect[] {
  const cur = rolloutMsg(s);
  if (!cur || cur.rollout.id !== m.rolloutId || cur.rolloutIndex !== m.rolloutIndex) return [];
  const old = cur.rollout.steps;
  // An update was lost: the host sends the whole rollout.
  if (m.from > old.length) return [{ kind: 'resend' }];
  const out: Effect[] = [];
  if (!s.follow && m.from < old.length && s.pendingScrollY === null) out.push({ kind: 'keepInView' });
  const steps = m.from === old.length ? old.concat(m.steps) : old.slice(0, m.from).concat(m.steps);
  let sliced = cur.sliced;
  if (m.sliced) {
    // A paged rollout stays paged below `from` (those steps still came without heads); the update's steps are heads.
    const paged = cur.sliced?.paged;
    sliced = {
      ...m.sliced,
      cuts: [...(cur.sliced?.cuts ?? []).filter((c) => c.index < m.from), ...m.sliced.cuts],
      ...(paged ? { paged: paged.count > m.from ? { ...paged, count: m.from } : paged } : {}),
    };
  }
  s.stepStore.update(m.rolloutIndex, m.rolloutId, m.from, steps.length, m.sliced ? m.sliced.cuts : null);
  const { rolloutCount: _count, ...rest } = cur;
  const msg: RolloutMessage = { ...rest, rollout: { ...m.rollout, steps }, summaries: m.summaries, ...(m.rolloutCount !== undefined ? { rolloutCount: m.rolloutCount } : {}), live: m.live, ...(sliced ? { sliced } : {}) };
  s.view = { kind: 'rollout', msg };
  if (s.selected !== null && s.selected >= steps.length) s.selected = steps.length ? steps.length - 1 : null;
  if (s.follow) out.push({ kind: 'revealEnd' });
  else if (steps.length > old.length) s.unseen += steps.length - old.length;
  if (sliced) out.push({ kind: 'wantRange', afterRender: true });
  return out;
}
