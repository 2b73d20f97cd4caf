/** The size of a file as the tree's and the sessions view's tooltips give it. Nothing here imports `vscode`. */

/** `12 KB` (rounded up) below 1 MB, else `3.4 MB` (1 KB = 1024 bytes). */
export function fileSizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
