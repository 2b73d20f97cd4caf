/**
 * JSON documents with positions: parse a text once, then map JSON paths to source ranges and
 * 1-based line/column, and zod issues to located issues. Uses `jsonc-parser` for the syntax tree
 * (offsets) so that "Show in source" and error messages point at the exact place.
 */
import * as jsonc from 'jsonc-parser';
import type { z } from 'zod';
import { describeValue, LocatedIssue, RolloutLoadError } from './errors';
import type { SourceRange } from './model';

export type JsonPath = (string | number)[];

/** Converts a path to an RFC 6901 JSON pointer (`['steps', 3, 'source']` → `/steps/3/source`). */
export function toPointer(path: readonly PropertyKey[]): string {
  return path.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** What each jsonc-parser error code expected, in words. */
const EXPECTED: Record<number, string> = {
  1: 'a JSON value', // InvalidSymbol
  2: 'a number', // InvalidNumberFormat
  3: 'a property name in double quotes', // PropertyNameExpected
  4: 'a value', // ValueExpected
  5: '":" after the property name', // ColonExpected
  6: '"," between values', // CommaExpected
  7: '"}" to close the object', // CloseBraceExpected
  8: '"]" to close the array', // CloseBracketExpected
  9: 'the end of the file after the JSON value', // EndOfFileExpected
  10: 'no comments (JSON has none)', // InvalidCommentToken
  11: 'no comments (JSON has none)', // UnexpectedEndOfComment
  12: 'a closing \" for the string', // UnexpectedEndOfString
  13: 'a complete number', // UnexpectedEndOfNumber
  14: 'a valid \\u escape', // InvalidUnicode
  15: 'a valid escape (\\n, \\t, \\", …)', // InvalidEscapeCharacter
  16: 'a valid character (control characters must be escaped)', // InvalidCharacter
};

/** A short, readable excerpt of the text at an offset (control characters shown as \xNN). */
function excerpt(text: string, offset: number): string {
  const raw = text.slice(offset, offset + 24).split('\n')[0];
  const shown = raw.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `\`${shown}${raw.length < text.length - offset && !text.slice(offset).startsWith(raw + '\n') ? '…' : ''}\``;
}

/**
 * The located issue for a JSON syntax error: the position where parsing could not go on, what was
 * expected there in words, what was found (`end of file (the file may be cut off)` for truncated
 * files), and the JSON pointer of the value being read.
 */
function syntaxIssue(file: string, text: string, baseOffset: number, index: LineIndex, isPart: boolean): LocatedIssue {
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const e = errors[0] ?? { error: 1, offset: 0, length: 0 };
  let at = e.offset;
  let expected = EXPECTED[e.error] ?? jsonc.printParseErrorCode(e.error);
  if (e.error === 12) {
    // An unterminated string: the problem shows where the string stops, not where it starts.
    const start = index.position(baseOffset + e.offset);
    expected = `a closing " for the string that starts at ${start.line}:${start.column}`;
    at = Math.min(text.length, e.offset + e.length);
  }
  const end = isPart ? 'the end of the line (the row may be cut off)' : 'the end of the file (the file may be cut off)';
  const found = at >= text.trimEnd().length ? end : excerpt(text, at);
  const path = jsonc.getLocation(text, Math.min(at, Math.max(0, text.length - 1))).path;
  return { file, ...index.position(baseOffset + at), pointer: path.length ? toPointer(path) : null, expected: `valid JSON: ${expected}`, found };
}

/** Space, tab, line feed, carriage return: the whitespace JSON allows around values. */
function isJsonSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** First offset at or after `i` that is not JSON whitespace (or the text's length). */
function skipJsonSpace(t: string, i: number): number {
  while (i < t.length && isJsonSpace(t.charCodeAt(i))) i++;
  return i;
}

/** Offset just after the string that opens at `i` (a `"`) of a text that parsed as JSON. */
function jsonStringEnd(t: string, i: number): number {
  for (let j = i + 1; ; ) {
    const q = t.indexOf('"', j);
    if (q < 0) return t.length;
    let b = q - 1;
    while (t.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** Offset just after the value that starts at `i` of a text that parsed as JSON (brackets counted outside strings). */
function jsonValueEnd(t: string, i: number): number {
  const c = t.charCodeAt(i);
  if (c === 34) return jsonStringEnd(t, i);
  if (c !== 91 && c !== 123) {
    let j = i;
    while (j < t.length) {
      const d = t.charCodeAt(j);
      if (d === 44 || d === 93 || d === 125 || isJsonSpace(d)) break;
      j++;
    }
    return j;
  }
  let depth = 0;
  for (let j = i; j < t.length; j++) {
    const d = t.charCodeAt(j);
    if (d === 34) j = jsonStringEnd(t, j) - 1;
    else if (d === 91 || d === 123) depth++;
    else if ((d === 93 || d === 125) && --depth === 0) return j + 1;
  }
  return t.length;
}

/**
 * Line starts of a text, for offset → line/column. A text that grows (a file being followed, read
 * a part at a time) is indexed part by part with `append`: positions are then those of the whole
 * text so far, the same as an index built from it at once.
 */
export class LineIndex {
  private readonly starts: number[] = [0];
  /** UTF-16 length of the text indexed so far. */
  private indexed = 0;
  constructor(text: string) {
    this.append(text);
  }
  /** Indexes `more`, the text that follows what is indexed so far. */
  append(more: string): void {
    const base = this.indexed;
    for (let i = more.indexOf('\n'); i >= 0; i = more.indexOf('\n', i + 1)) this.starts.push(base + i + 1);
    this.indexed += more.length;
  }
  /** UTF-16 length of the text indexed so far. */
  get length(): number {
    return this.indexed;
  }
  /** Lines of the text so far (a final newline starts an empty last line, as in an editor). */
  get lineCount(): number {
    return this.starts.length;
  }
  /** 1-based line and column of a UTF-16 offset. */
  position(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo] + 1 };
  }
}

/**
 * Deepest nesting of arrays and objects a document may have. jsonc-parser (ranges, syntax errors),
 * JSON.stringify and structured cloning recurse per level and overflow the stack a few thousand
 * levels down; Python's json module, which writes every supported format, stops near 1000.
 */
export const MAX_JSON_DEPTH = 1000;

/** Offset of the first `[` or `{` (outside strings) that opens a level deeper than `max`, or -1. Iterative. */
export function tooDeepAt(text: string, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string: the next quote not escaped by an odd run of backslashes.
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return -1;
        let b = q - 1;
        while (text.charCodeAt(b) === 92 /* \ */) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return i;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
  return -1;
}

/**
 * One JSON value inside a file: the whole file, or one line of a JSONL file (`baseOffset` is where
 * the value's text starts in the file). `value` is the parsed value; `tree` is built on first use.
 */
export class JsonDoc {
  private treeCache: jsonc.Node | undefined;
  /** Set for a document that stands for the value at `itemPath` of the file's document (see `arrayItem`, `nested`). */
  private itemPath: JsonPath | null = null;
  private constructor(
    readonly file: string,
    readonly text: string,
    readonly value: unknown,
    readonly baseOffset: number,
    private readonly lines: LineIndex,
  ) {}

  /**
   * Parses `text` (strict JSON). Throws RolloutLoadError with line/column on a syntax error.
   * @param lines the file's line index when `text` is a slice of a larger file
   * @param part true when `text` is one row of a larger file (JSONL line, one of several values)
   * @param outerLevels levels of nesting `text` sits inside in its file (1 for an item of a top-level
   *   array parsed alone): they count towards MAX_JSON_DEPTH as in a parse of the whole file
   */
  static parse(file: string, text: string, baseOffset = 0, lines?: LineIndex, part = false, outerLevels = 0): JsonDoc {
    const index = lines ?? new LineIndex(text);
    const deep = tooDeepAt(text, MAX_JSON_DEPTH - outerLevels);
    if (deep >= 0) {
      throw new RolloutLoadError(file, null, [
        { file, ...index.position(baseOffset + deep), pointer: null, expected: `JSON nested at most ${MAX_JSON_DEPTH} levels deep`, found: `level ${MAX_JSON_DEPTH + 1}` },
      ]);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // JSON.parse messages differ between engines; jsonc-parser gives a stable code and offset.
      throw new RolloutLoadError(file, null, [syntaxIssue(file, text, baseOffset, index, part)]);
    }
    return new JsonDoc(file, text, value, baseOffset, index);
  }

  /** Wraps an already parsed value (no positions available beyond the base offset). */
  static fromValue(file: string, text: string, value: unknown, baseOffset: number, lines: LineIndex): JsonDoc {
    return new JsonDoc(file, text, value, baseOffset, lines);
  }

  /**
   * `item` (one item of a top-level array, parsed alone from its text and positioned in the file)
   * seen as that array: `value` holds only index `index` (a sparse array), and paths, pointers and
   * ranges are those of the whole file's document (`[index, …]`), as if the file had been parsed
   * whole. For reading one rollout of a large JSON array file (scale/arrayIndex.ts).
   */
  static arrayItem(item: JsonDoc, index: number): JsonDoc {
    return JsonDoc.nested(item, [index]);
  }

  /**
   * `item` (one value of a larger document, parsed alone from its text and positioned in the file)
   * seen as the file's document with the value at `at`: `value` holds only that path (sparse arrays
   * and one-key objects on the way), and paths, pointers and ranges are those of the whole file's
   * document (`[...at, …]`). `arrayItem(item, i)` is `nested(item, [i])`; sample `i` of a large
   * Inspect log is `nested(sample, ['samples', i])` (scale/inspectIndex.ts).
   */
  static nested(item: JsonDoc, at: JsonPath): JsonDoc {
    let value: unknown = item.value;
    for (let k = at.length - 1; k >= 0; k--) {
      const p = at[k];
      if (typeof p === 'number') {
        const a: unknown[] = [];
        a[p] = value;
        value = a;
      } else value = { [p]: value };
    }
    const d = new JsonDoc(item.file, item.text, value, item.baseOffset, item.lines);
    d.itemPath = [...at];
    return d;
  }

  private get tree(): jsonc.Node | undefined {
    if (!this.treeCache) this.treeCache = jsonc.parseTree(this.text);
    return this.treeCache;
  }

  /** Range (file offsets) of the value at `path`, or null when the path does not exist. */
  rangeOf(path: JsonPath): SourceRange | null {
    const at = this.itemPath;
    if (at !== null) {
      if (path.length < at.length || at.some((p, k) => path[k] !== p)) return null;
      path = path.slice(at.length);
    }
    const root = this.tree;
    if (!root) return null;
    const node = path.length === 0 ? root : jsonc.findNodeAtLocation(root, path);
    if (!node) return null;
    return { start: this.baseOffset + node.offset, end: this.baseOffset + node.offset + node.length };
  }

  /**
   * Ranges (file offsets) of the items of the array at the top-level key `key` of an object
   * document, each equal to `rangeOf([key, i])`, found by one scan of the text without building the
   * syntax tree (which takes many times the text's size for a document of many small values). Null
   * when the document is not an object with such an array, or stands for an array item (`arrayItem`).
   */
  itemRanges(key: string): SourceRange[] | null {
    if (this.itemPath !== null) return null;
    const t = this.text;
    let i = skipJsonSpace(t, 0);
    if (t.charCodeAt(i) !== 123) return null;
    let found: SourceRange[] | null = null;
    i = skipJsonSpace(t, i + 1);
    while (t.charCodeAt(i) === 34) {
      const keyEnd = jsonStringEnd(t, i);
      const k = JSON.parse(t.slice(i, keyEnd)) as string;
      i = skipJsonSpace(t, skipJsonSpace(t, keyEnd) + 1); // past the ':'
      if (k === key) {
        // JSON.parse keeps the last of repeated keys: so do the ranges.
        found = null;
        if (t.charCodeAt(i) === 91) {
          found = [];
          i = skipJsonSpace(t, i + 1);
          while (i < t.length && t.charCodeAt(i) !== 93) {
            const end = jsonValueEnd(t, i);
            found.push({ start: this.baseOffset + i, end: this.baseOffset + end });
            i = skipJsonSpace(t, end);
            if (t.charCodeAt(i) === 44) i = skipJsonSpace(t, i + 1);
          }
          i++;
        } else i = jsonValueEnd(t, i);
      } else i = jsonValueEnd(t, i);
      i = skipJsonSpace(t, i);
      if (t.charCodeAt(i) === 44) i = skipJsonSpace(t, i + 1);
    }
    return found;
  }

  /**
   * Range (file offsets) of the whole value: `rangeOf([])` without building the syntax tree (the
   * text parsed, so what surrounds the value is JSON whitespace). For a document of one item of an
   * array (`arrayItem`), the item's range.
   */
  valueRange(): SourceRange {
    const t = this.text;
    let a = 0;
    let b = t.length;
    while (a < b && isJsonSpace(t.charCodeAt(a))) a++;
    while (b > a && isJsonSpace(t.charCodeAt(b - 1))) b--;
    return { start: this.baseOffset + a, end: this.baseOffset + b };
  }

  /** 1-based line/column of the value at `path`, falling back to its nearest existing ancestor. */
  locate(path: JsonPath): { line: number; column: number } {
    for (let n = path.length; n >= 0; n--) {
      const r = this.rangeOf(path.slice(0, n));
      if (r) return this.lines.position(r.start);
    }
    return this.lines.position(this.baseOffset);
  }

  /** Reads the value at `path` from the parsed value (undefined when absent). */
  get(path: JsonPath): unknown {
    let v: unknown = this.value;
    for (const p of path) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string | number, unknown>)[p];
    }
    return v;
  }

  /** A located issue at `path` (pointer relative to this document's value). */
  issue(path: JsonPath, expected: string, found?: string): LocatedIssue {
    const pos = this.locate(path);
    return { file: this.file, ...pos, pointer: toPointer(path), expected, found: found ?? describeValue(this.get(path)) };
  }

  /**
   * Validates the document's value (or the value at `at`) against a zod schema; returns the parsed
   * data or throws RolloutLoadError listing every issue located in the file.
   */
  validate<S extends z.ZodType>(schema: S, format: string, at: JsonPath = []): z.infer<S> {
    const res = schema.safeParse(at.length ? this.get(at) : this.value);
    if (res.success) return res.data;
    throw new RolloutLoadError(this.file, format, res.error.issues.map((i) => this.zodIssue(i, at)));
  }

  private zodIssue(i: z.core.$ZodIssue, at: JsonPath): LocatedIssue {
    const path = [...at, ...(i.path as (string | number)[])];
    return this.issue(path, expectedFromZod(i), foundFromZod(i, this.get(path)));
  }
}

function expectedFromZod(i: z.core.$ZodIssue): string {
  switch (i.code) {
    case 'invalid_type':
      return i.expected;
    case 'invalid_value':
      return `one of ${i.values.map((v) => JSON.stringify(v)).join(' | ')}`;
    case 'too_small':
      return `${i.origin} of at least ${String(i.minimum)}${i.origin === 'array' ? ' item(s)' : ''}`;
    case 'too_big':
      return `${i.origin} of at most ${String(i.maximum)}`;
    case 'unrecognized_keys':
      return `no extra keys`;
    case 'invalid_union':
      return 'a value matching one of the allowed shapes';
    case 'invalid_format':
      return `${i.format} format`;
    default:
      return i.message;
  }
}

function foundFromZod(i: z.core.$ZodIssue, value: unknown): string {
  if (i.code === 'unrecognized_keys') return `unknown key(s) ${i.keys.join(', ')}`;
  return describeValue(value);
}

/** One line of a JSONL file: its 1-based line number, the offset of its first character, its text. */
export interface JsonlLine {
  line: number;
  offset: number;
  text: string;
}

/**
 * Splits a JSONL text into non-blank lines with their positions (handles `\r\n`).
 * @param baseOffset UTF-16 offset in the file where `text` starts (a part of a file read in parts)
 * @param baseLine 1-based line number of `text`'s first line in the file
 */
export function splitJsonl(text: string, baseOffset = 0, baseLine = 1): JsonlLine[] {
  const out: JsonlLine[] = [];
  let start = 0;
  let line = baseLine;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let s = text.slice(start, end);
    if (s.endsWith('\r')) s = s.slice(0, -1);
    if (s.trim() !== '') out.push({ line, offset: baseOffset + start, text: s });
    if (end === text.length) break;
    start = end + 1;
    line++;
  }
  return out;
}

/**
 * Splits a text holding several JSON values one after another (pretty-printed objects back to
 * back, as in the PRM800K example files) into the values' texts with their 1-based first line and
 * offset. Returns null when the text is not such a sequence of at least two objects/arrays (a
 * scanner over brackets and strings; each piece is still parsed by the caller).
 */
export function splitJsonValues(text: string): JsonlLine[] | null {
  const out: JsonlLine[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  let line = 1;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped char (a \n inside a string is not a line break)
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      if (depth === 0) return null;
      inString = true;
    } else if (c === 123 || c === 91) {
      if (depth === 0) {
        start = i;
        startLine = line;
      }
      depth++;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth < 0) return null;
      if (depth === 0) out.push({ line: startLine, offset: start, text: text.slice(start, i + 1) });
    } else if (depth === 0 && c !== 32 && c !== 9 && c !== 10 && c !== 13) {
      return null; // something other than whitespace between values
    }
  }
  return depth === 0 && out.length >= 2 ? out : null;
}
