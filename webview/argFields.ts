/**
 * A tool call's arguments as named fields for the step card, whatever format they came from
 * (OpenHands `str_replace_editor` / `finish`, ATIF `tool_calls[].arguments`, OpenAI chat
 * `function.arguments` as a JSON string, Inspect `ToolCall.arguments`, …): each argument one field,
 * a string shown as its text (real line breaks, no `\n` escapes or quotes), a nested value as
 * indented JSON. Pure (unit-tested in test/unit/host/argFields.test.ts).
 */

/** One argument: `block` when its text is multi-line or long (shown as a text block under its name). */
export interface ArgField {
  name: string;
  value: string;
  block: boolean;
}

/** Above this many keys the arguments stay one JSON block (a data blob, not a call's parameters). */
export const MAX_ARG_FIELDS = 40;
/** A single-line value longer than this many characters is shown as a block. */
const INLINE_CHARS = 100;

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * The fields of `args`, or null when they are not a key → value object (a plain string, an array,
 * nothing, more than MAX_ARG_FIELDS keys): the card then shows them as before. A string that holds
 * a JSON object (arguments recorded serialised) is parsed first. Never throws.
 */
export function argFields(args: unknown): ArgField[] | null {
  let obj: unknown = args;
  if (typeof args === 'string') {
    const t = args.trim();
    if (!t.startsWith('{')) return null;
    try {
      obj = JSON.parse(t);
    } catch {
      return null;
    }
  }
  if (!isPlainObject(obj)) return null;
  const rec = obj;
  const keys = Object.keys(rec);
  if (keys.length === 0 || keys.length > MAX_ARG_FIELDS) return null;
  return keys.map((name) => {
    const v = rec[name];
    let value: string;
    if (typeof v === 'string') value = v;
    else if (v === null || typeof v === 'number' || typeof v === 'boolean') value = String(v);
    else if (v === undefined) value = '';
    else {
      try {
        value = JSON.stringify(v, null, 2) ?? String(v);
      } catch {
        value = String(v);
      }
    }
    return { name, value, block: value.includes('\n') || value.length > INLINE_CHARS };
  });
}
