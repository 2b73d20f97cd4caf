/**
 * The height a step card's body will take once its full step is there, estimated from its texts'
 * line counts: the place a loading card holds (webview/stepStore.ts re-exports it for the cards),
 * and, computed by the host for a paged rollout (pagedSteps.ts), the row height the list reserves
 * for a step whose head the webview does not have. Pure; no DOM.
 */
import type { Step } from '../core/model';
import type { CutField } from './protocol';
import { countLines } from './stepHeads';

/** Line heights of the card's text (13 px × 1.45) and of its monospace blocks (12 px × 1.45), CSS px. */
const TEXT_LINE = 19;
const CODE_LINE = 17.5;

/**
 * Estimated height (CSS px) of a step card's body once its full step is there: the place a loading
 * card holds, so the list moves little when the content arrives. Counts the lines the card will
 * show (message clamped to 8 lines, outputs to `collapseLines`, unless `expanded`), without wrapping.
 */
export function estimateBodyHeight(head: Step, cuts: readonly CutField[], expanded: boolean, collapseLines: number): number {
  const linesOf = (field: string, text: string | null | undefined): number => cuts.find((c) => c.field === field)?.lines ?? (text ? countLines(text) : 0);
  let px = 0;
  const m = linesOf('message', head.message);
  if (m) px += (expanded ? m : Math.min(m, 8)) * TEXT_LINE + 6;
  if (head.reasoning) px += (expanded ? linesOf('reasoning', head.reasoning) * TEXT_LINE : TEXT_LINE) + 6;
  head.actions.forEach((a, i) => {
    px += 22;
    if (a.command !== null) px += linesOf(`actions.${i}.command`, a.command) * CODE_LINE + 10;
    else if (a.arguments !== undefined) {
      const n = linesOf(`actions.${i}.arguments`, typeof a.arguments === 'string' ? a.arguments : '');
      px += (expanded ? n : Math.min(n, 12)) * CODE_LINE + 10;
    }
    px += 6;
  });
  head.observations.forEach((o, i) => {
    const n = linesOf(`observations.${i}.output`, o.output);
    const shown = n === 0 ? 1 : expanded ? Math.min(n, 5000) : n > collapseLines && collapseLines > 0 ? collapseLines + 1.6 : n;
    px += 16 + shown * CODE_LINE + 12 + 6;
  });
  return Math.round(px);
}
