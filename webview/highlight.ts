/**
 * Marks a search's matches in the timeline (the step a search result opened): each match as a
 * `<mark>` in a Lit template (text bindings only, so the text stays escaped under the CSP), coloured
 * with the editor's find-match colours. The match finding is src/shared/highlight.ts.
 */
import { css, html, type TemplateResult } from 'lit';
import { findMatches, splitAtMatches, type HighlightQuery } from '../src/shared/highlight';

/** The class of a marked match (tests and the scroll-into-view look for it). */
export const MATCH_CLASS = 'ti-match';

/** Styles of a marked match; every component that marks adds it to its styles. */
export const MATCH_CSS = css`
  mark.ti-match {
    color: inherit;
    background: var(--vscode-editor-findMatchHighlightBackground, rgba(234, 92, 0, 0.33));
    outline: 1px solid var(--vscode-editor-findMatchHighlightBorder, transparent);
    border-radius: 2px;
  }
`;

/** A marked piece of text. */
export function markTemplate(text: string): TemplateResult {
  return html`<mark class=${MATCH_CLASS}>${text}</mark>`;
}

/** `text` with every match of `q` marked; the text itself when `q` is null or nothing matches. */
export function marked(text: string, q: HighlightQuery | null): string | (string | TemplateResult)[] {
  if (!q) return text;
  const ranges = findMatches(text, q);
  if (!ranges.length) return text;
  return splitAtMatches(text, ranges).map((p) => (p.mark ? markTemplate(p.text) : p.text));
}

/** Whether `q` matches anywhere in `texts`. */
export function anyMatch(q: HighlightQuery | null, ...texts: (string | null | undefined)[]): boolean {
  return !!q && texts.some((t) => !!t && findMatches(t, q, 1).length > 0);
}

/**
 * The first marked match inside `root` and the shadow roots under it (the step card's own, its
 * outputs'), in document order of the card's parts; null when none.
 */
export function firstMark(root: ParentNode): HTMLElement | null {
  const found: { anchor: Element; mark: HTMLElement }[] = [];
  const own = root.querySelector<HTMLElement>(`mark.${MATCH_CLASS}`);
  if (own) found.push({ anchor: own, mark: own });
  for (const h of root.querySelectorAll('*')) {
    const m = h.shadowRoot ? firstMark(h.shadowRoot) : null;
    if (m) found.push({ anchor: h, mark: m });
  }
  found.sort((a, b) => (a.anchor === b.anchor ? 0 : a.anchor.compareDocumentPosition(b.anchor) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  return found[0]?.mark ?? null;
}
