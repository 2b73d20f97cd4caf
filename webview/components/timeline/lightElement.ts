/**
 * Base of the timeline's parts (header, label row, list, key overlay, load error): an element that
 * renders into its own light DOM, so its markup lives in `<ti-app>`'s shadow tree. The root's
 * styles (each part exports its own, the root adopts them all) then apply as they did when the
 * root rendered everything itself, and a query on the root's shadow root sees the whole timeline.
 * The element itself takes no box (`display: contents`, in `partStyles`).
 */
import { LitElement, css } from 'lit';

export class LightElement extends LitElement {
  protected override createRenderRoot(): HTMLElement {
    return this;
  }
}

/** The root adopts this with the parts' styles: the part elements are layout-transparent. */
export const partStyles = css`
  ti-timeline-header,
  ti-follow-toggle,
  ti-label-row,
  ti-keys-overlay,
  ti-load-error,
  ti-step-list {
    display: contents;
  }
`;
