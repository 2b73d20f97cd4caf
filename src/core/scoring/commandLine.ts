/** Parsing a scorer command line the user typed (Select Scorer). Never imports `vscode`. */
/**
 * A scorer command typed or pasted by the user: a JSON array of strings (as in settings.json), or
 * words separated by spaces with "…" quoting. Null for an empty line or a JSON value that is not
 * an array of strings.
 */
export function parseCommandLine(text: string): string[] | null {
  const t = text.trim();
  if (t.startsWith('[')) {
    try {
      const v: unknown = JSON.parse(t);
      return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') ? v : null;
    } catch {
      return null;
    }
  }
  const argv = [...t.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
  return argv.length ? argv : null;
}
