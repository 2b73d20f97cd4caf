/**
 * The timeline's keys, in one table: the webview's key handler, its key overlay (`?`) and its hint
 * line are all read from `KEYMAP`, and so are the host's labelling commands (a binding with a
 * `command` is also that VS Code command, which the host turns into a `labelAction` message).
 * Shared so that the host and the webview cannot disagree; imports nothing but protocol types.
 */
import { LABEL_ACTIONS, type LabelAction } from './protocol';

/**
 * What a key does in the timeline. The labelling actions (`LabelAction`) are also what a
 * command asks for; the others are the webview's own.
 */
export type KeyAction = LabelAction | 'next' | 'previous' | 'first' | 'last' | 'toggleExpand' | 'showInSource' | 'playPause' | 'undo' | 'redo';

/** The groups of the key overlay, in the order shown. */
export type KeyGroup = 'Label the selected step' | 'Move and read';

/**
 * One row of the key table.
 * - `keys`: the keys as the overlay shows them: a character (`j`, `?`, `+`), a named key (`Enter`,
 *   `Home`, `End`, `Del`, `Esc`, `Space`, `↓`, `↑`) or a chord (`Ctrl+Z`, `Ctrl+Shift+Z`: Ctrl or
 *   Cmd). The first key is the one the hint line shows.
 * - `alsoKeys`: keys that do the same but are not shown (a second chord for the same thing).
 * - `help`: the overlay's text; `hint`: the hint line's text, when the binding is in it.
 * - `command`: the VS Code command id that does the same from the palette or a user keybinding.
 */
export interface KeyBinding {
  readonly keys: readonly string[];
  readonly alsoKeys?: readonly string[];
  readonly action: KeyAction;
  readonly group: KeyGroup;
  readonly help: string;
  readonly hint?: string;
  readonly command?: string;
}

/** Every key of the timeline, in the order of the key overlay. */
export const KEYMAP: readonly KeyBinding[] = [
  { keys: ['1', '+'], action: 'good', group: 'Label the selected step', help: 'good (+1)', hint: 'good', command: 'trajectoryInspector.labelGood' },
  { keys: ['2', '0'], action: 'neutral', group: 'Label the selected step', help: 'neutral (0)', hint: 'neutral', command: 'trajectoryInspector.labelNeutral' },
  { keys: ['3', '-'], action: 'bad', group: 'Label the selected step', help: 'bad (−1)', hint: 'bad', command: 'trajectoryInspector.labelBad' },
  { keys: ['x', 'Del'], action: 'clear', group: 'Label the selected step', help: 'clear the label', command: 'trajectoryInspector.clearLabel' },
  {
    keys: ['f'],
    action: 'firstError',
    group: 'Label the selected step',
    help: 'first error: later agent steps become bad (propagated) unless you labelled them',
    hint: 'first error',
    command: 'trajectoryInspector.markFirstError',
  },
  { keys: ['n'], action: 'note', group: 'Label the selected step', help: 'add / edit a note (Enter saves, Esc cancels)', hint: 'note', command: 'trajectoryInspector.addNote' },
  {
    keys: ['Enter'],
    action: 'commitAndNext',
    group: 'Label the selected step',
    help: 'labelled step: go to the next unlabelled step · unlabelled step: expand',
    hint: 'on a labelled step: next unlabelled',
    command: 'trajectoryInspector.commitAndNext',
  },
  { keys: ['v'], action: 'verdict', group: 'Label the selected step', help: 'rollout verdict: good → neutral → bad → none' },
  { keys: ['u', 'Ctrl+Z'], action: 'undo', group: 'Label the selected step', help: 'undo', hint: 'undo' },
  { keys: ['U', 'Ctrl+Shift+Z'], alsoKeys: ['Ctrl+Y'], action: 'redo', group: 'Label the selected step', help: 'redo' },
  { keys: ['j', '↓'], action: 'next', group: 'Move and read', help: 'next step' },
  { keys: ['k', '↑'], action: 'previous', group: 'Move and read', help: 'previous step' },
  { keys: ['g', 'Home'], action: 'first', group: 'Move and read', help: 'first step' },
  { keys: ['G', 'End'], action: 'last', group: 'Move and read', help: 'last step' },
  { keys: ['o', 'Space'], action: 'toggleExpand', group: 'Move and read', help: 'expand / collapse the step', hint: 'expand' },
  { keys: ['s'], action: 'showInSource', group: 'Move and read', help: 'show the step in the source file', hint: 'source' },
  { keys: ['p'], action: 'playPause', group: 'Move and read', help: 'play / pause the recording', hint: 'play/pause' },
  // Esc only hides the list (keyAction: an Esc with the list closed is left to the page).
  { keys: ['?', 'Esc'], action: 'showKeys', group: 'Move and read', help: 'show / hide this list', hint: 'all keys', command: 'trajectoryInspector.showLabelKeys' },
];

/** The key overlay's groups, each with its bindings, in table order. */
export function keyGroups(): { group: KeyGroup; bindings: KeyBinding[] }[] {
  const out: { group: KeyGroup; bindings: KeyBinding[] }[] = [];
  for (const b of KEYMAP) {
    let g = out.find((x) => x.group === b.group);
    if (!g) out.push((g = { group: b.group, bindings: [] }));
    g.bindings.push(b);
  }
  return out;
}

/**
 * One part of the hint line above the steps (parts are joined with " · "):
 * - `actions` with `text`: their first keys joined with "/" and the text ("j/k move");
 * - `actions` with `lead`: the lead, then each binding's first key and hint ("label 1 good 2 neutral");
 * - one action alone: its first key and hint ("s source").
 * `needsRecording`: shown only for a rollout with a terminal recording.
 */
export interface HintPart {
  readonly actions: readonly KeyAction[];
  readonly text?: string;
  readonly lead?: string;
  readonly needsRecording?: boolean;
}

/** The hint line above the steps, in order. */
export const HINT_LINE: readonly HintPart[] = [
  { actions: ['next', 'previous'], text: 'move' },
  { actions: ['toggleExpand'] },
  { actions: ['showInSource'] },
  { actions: ['playPause'], needsRecording: true },
  { actions: ['good', 'neutral', 'bad'], lead: 'label' },
  { actions: ['firstError'] },
  { actions: ['note'] },
  { actions: ['commitAndNext'] },
  { actions: ['undo'] },
  { actions: ['showKeys'] },
];

/** The binding of `action` (every action has exactly one). */
export function bindingOf(action: KeyAction): KeyBinding {
  const b = KEYMAP.find((k) => k.action === action);
  if (!b) throw new Error(`no key binding for ${action}`);
  return b;
}

/** The parts of a keyboard event that decide its binding (a `KeyboardEvent` has them all). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/** The `KeyboardEvent.key` of the overlay's named keys. */
const NAMED_KEYS: Record<string, string> = { Del: 'Delete', Esc: 'Escape', Space: ' ', '↓': 'ArrowDown', '↑': 'ArrowUp' };

/** Whether `press` is the key `name` of the table (see `KeyBinding.keys`). */
export function keyMatches(name: string, press: KeyPress): boolean {
  const chord = /^Ctrl\+(Shift\+)?(.)$/.exec(name);
  if (chord) {
    // Ctrl or Cmd; Shift as the chord says (the key's case follows Shift, so compare it folded).
    return (press.ctrlKey || press.metaKey) && !press.altKey && press.shiftKey === !!chord[1] && press.key.toLowerCase() === chord[2].toLowerCase();
  }
  if (press.ctrlKey || press.metaKey || press.altKey) return false;
  return press.key === (NAMED_KEYS[name] ?? name);
}

/**
 * The binding a key press stands for and the table key it matched, or null. A press with Ctrl or
 * Cmd matches only chords; one with Alt matches nothing.
 */
export function bindingFor(press: KeyPress): { binding: KeyBinding; key: string } | null {
  for (const binding of KEYMAP) {
    for (const key of [...binding.keys, ...(binding.alsoKeys ?? [])]) if (keyMatches(key, press)) return { binding, key };
  }
  return null;
}

function isLabelAction(a: KeyAction): a is LabelAction {
  return (LABEL_ACTIONS as readonly string[]).includes(a);
}

/** The commands that do what a key does in the timeline: [command id, the `labelAction` it sends]. */
export const LABEL_ACTION_COMMANDS: readonly (readonly [string, LabelAction])[] = KEYMAP.flatMap((b) =>
  b.command && isLabelAction(b.action) ? [[b.command, b.action] as const] : [],
);
