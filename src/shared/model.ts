/**
 * The data model's types as the webview sees them. The webview imports no src/core (a lint rule
 * enforces it: eslint.config.mjs); the types of src/core/model.ts and src/core/labels/api.ts reach
 * it through this module, type-only, so no core code is bundled into the page.
 */
export type * from '../core/model';
export type { CurrentLabel, LabelValue } from '../core/labels/api';
