/** SHA-256 of a text (UTF-8) in base64, as a Content-Security-Policy `'sha256-…'` source takes it. Never imports `vscode`. */
import { createHash } from 'node:crypto';

export function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}
