/**
 * The HTML shell of the extension's webviews (timeline, compare) under a strict CSP, and its
 * per-render nonce. Nothing here imports `vscode`.
 */
import { randomBytes } from 'node:crypto';

/** A per-render nonce for the webview CSP: 128 random bits, base64 (never Math.random). */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The resources and secrets the webview shell needs. */
export interface HtmlParts {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

/**
 * A webview's HTML shell under the strict CSP (scripts and styles by nonce, nothing inline, no
 * network): one root element and the bundle. Holds no rollout data (that comes by postMessage after
 * `ready`), so nothing from a file is ever interpolated here; the URIs come from `asWebviewUri`.
 * `root` is the custom element's tag, `title` the document title (both fixed strings of ours).
 */
export function webviewHtml(p: HtmlParts, root: string, title: string): string {
  const csp = [
    `default-src 'none'`,
    `script-src 'nonce-${p.nonce}'`,
    `style-src ${p.cspSource} 'nonce-${p.nonce}'`,
    `font-src ${p.cspSource}`,
    `img-src ${p.cspSource} data:`,
    `connect-src 'none'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${p.styleUri}" nonce="${p.nonce}">
<title>${title}</title>
</head>
<body>
<${root}></${root}>
<script type="module" nonce="${p.nonce}" src="${p.scriptUri}"></script>
</body>
</html>`;
}

/** The timeline's HTML shell (see webviewHtml). */
export function timelineHtml(p: HtmlParts): string {
  return webviewHtml(p, 'ti-app', 'Trajectory Inspector');
}
