/**
 * What a step card says apart from its markup: the collapsed sizes, the words for action kinds,
 * step events and links, the display lines and summary of a file edit, and the card's event and
 * input types. DOM-free (the timeline state reads `StepReplay` under Node).
 */
import { diffLines } from 'diff';
import type { Action, FileEdit, RolloutLink, Step } from '../../../src/shared/model';
import type { ReplayStepView } from '../../../src/shared/replayProtocol';

/** Message lines / characters shown while a card is collapsed. */
export const MESSAGE_LINES = 8;
export const MESSAGE_CHARS = 1200;
/** Tool-argument lines shown while collapsed. */
export const ARG_LINES = 12;
export const ARG_CHARS = 800;

export const KIND_LABEL: Record<Action['kind'], string> = {
  shell: 'shell',
  keystrokes: 'keys',
  tool: 'tool',
  file_edit: 'edit',
  finish: 'finish',
};

/** Edit lines shown while collapsed. */
export const EDIT_LINES = 16;

export const EVENT_TITLE: Record<NonNullable<Step['event']>['kind'], string> = {
  compaction: 'the context was compacted here: the turn holds the summary the agent continued from',
  api_error: 'the model call failed',
  interrupted: 'the user interrupted the agent',
  unknown_record: 'a record the loader does not know, shown raw',
  notice: 'a notice from the agent harness, not a model turn',
};

const LINK_VERB: Record<RolloutLink['relation'], string> = {
  subagent: '↳ subagent',
  parent: '↑ parent',
  attempt: '⟲ attempt',
  'raw-session': '⧉ raw session',
  converted: '⧉ converted trajectory',
};

/** The text of a link button: its relation and label. */
export function linkText(l: RolloutLink): string {
  return `${LINK_VERB[l.relation]}: ${l.label}`;
}

/** One line of an edit's display, with its diff class (`ins`, `del`, `hunk`, or '' for context). */
export interface EditLine {
  cls: string;
  text: string;
}

/** Lines of a text without its final newline ('' gives none). */
function textLines(t: string): string[] {
  if (t === '') return [];
  const l = t.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

/** The display lines of a file edit: replacements as line diffs, a write as its added content, a patch by its line prefixes. */
export function editLines(e: FileEdit): EditLine[] {
  switch (e.op) {
    case 'write':
      return textLines(e.content).map((text) => ({ cls: 'ins', text: `+${text}` }));
    case 'replace':
      return e.edits.flatMap((x, i) => [
        ...(e.edits.length > 1 ? [{ cls: 'hunk', text: `@@ replacement ${i + 1} of ${e.edits.length}${x.replaceAll ? ' (every occurrence)' : ''}` }] : []),
        ...diffLines(x.oldText, x.newText).flatMap((part) =>
          textLines(part.value).map((text) => ({ cls: part.added ? 'ins' : part.removed ? 'del' : '', text: `${part.added ? '+' : part.removed ? '-' : ' '}${text}` })),
        ),
      ]);
    case 'patch':
      return textLines(e.patch).map((text) => ({
        cls: text.startsWith('+') && !text.startsWith('+++') ? 'ins' : text.startsWith('-') && !text.startsWith('---') ? 'del' : /^(@@|\*\*\*|diff |index )/.test(text) ? 'hunk' : '',
        text,
      }));
    default:
      return [];
  }
}

/** One line saying what an edit does ("2 replacements", "writes 40 lines", "patch"). */
export function editSummary(e: FileEdit): string {
  switch (e.op) {
    case 'write':
      return `writes ${textLines(e.content).length} lines`;
    case 'replace':
      return e.edits.length === 1 ? (e.edits[0].replaceAll ? 'replaces every occurrence' : 'replaces 1 text') : `${e.edits.length} replacements`;
    case 'patch':
      return e.dialect === 'codex' ? 'apply_patch' : 'patch';
    default:
      return '';
  }
}

/** Fired (bubbling, composed) when the card's expand toggle is clicked. */
export type ToggleExpandEvent = CustomEvent<{ index: number }>;
/** Fired when the card's "source" button is clicked. */
export type ShowSourceEvent = CustomEvent<{ index: number }>;
/** Fired when a link of the step (a subagent's transcript) is clicked: `link` is its position in `Step.links`. */
export type OpenLinkEvent = CustomEvent<{ index: number; link: number }>;
/** Fired when the note editor is done: `note` is the text to save, or undefined when cancelled. */
export type NoteDoneEvent = CustomEvent<{ index: number; note?: string | null }>;

/** A step's replay verdict and controls, rendered by `<ti-replay-status>`. */
export interface StepReplay {
  view: ReplayStepView | null;
  replayable: boolean;
  busy: boolean;
  rolloutIndex: number;
}
