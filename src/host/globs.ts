/** Glob lists as VS Code's file search and watchers take them. Nothing here imports `vscode`. */

/**
 * Joins globs into the single `{a,b}` pattern findFiles and file watchers take. Returns null for
 * none; returns the globs unjoined (a list) when one holds braces itself, since VS Code's glob
 * groups do not nest.
 */
export function joinGlobs(globs: readonly string[]): string | string[] | null {
  const g = globs.map((s) => s.trim()).filter((s) => s !== '');
  if (g.length === 0) return null;
  if (g.length === 1) return g[0];
  return g.some((s) => s.includes('{')) ? g : `{${g.join(',')}}`;
}
