/**
 * `trajectory-inspector export-rollout <file> [--rollout K] [--steps A-B] --as html|md [--out FILE]
 * [--redact-pattern RE]… [--keep-emails] [--keep-home-users] [--no-redact]`: one rollout as a
 * self-contained HTML page (src/shared/exportHtml.ts) or a Markdown transcript
 * (core/export/markdown.ts), its texts redacted (core/export/redact.ts) unless told not to.
 * What was redacted is said on stderr and recorded at the end of the document. Exit 0 written,
 * 1 the file does not load, 2 usage error.
 */
import { sha256Base64 } from '../core/export/sha256';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rolloutMarkdown } from '../core/export/markdown';
import { describeRedaction, RedactPatternError, redactRollout } from '../core/export/redact';
import { rolloutHtml } from '../shared/exportHtml';
import { loadFile } from '../core/load';
import { parseOptions, printFailures, UsageError } from './common';

export const EXPORT_ROLLOUT_USAGE = `  trajectory-inspector export-rollout <file> [--rollout K] [--steps A-B] --as html|md [--out FILE]
                                                        one rollout as a self-contained HTML page (no
                                                        script, strict CSP) or a Markdown transcript, secrets and
                                                        personal details redacted (--redact-pattern RE adds
                                                        a pattern; --keep-emails, --keep-home-users,
                                                        --no-redact); to stdout unless --out`;

/** `A-B`, `A-`, `-B` or `A` (1-based, inclusive) as 0-based `[from, to)`. @throws UsageError */
export function parseStepRange(s: string): { from: number; to: number | undefined } {
  const m = /^(\d*)(?:(-)(\d*))?$/.exec(s.trim());
  if (!m || (m[1] === '' && (m[3] ?? '') === '')) throw new UsageError(`--steps takes A-B, A-, -B or A (step numbers from 1), not ${JSON.stringify(s)}`);
  const a = m[1] === '' ? 1 : Number(m[1]);
  const b = m[2] ? (m[3] === '' ? undefined : Number(m[3])) : a;
  if (a < 1 || (b !== undefined && b < a)) throw new UsageError(`--steps ${s}: the first step is 1 and the range may not run backwards`);
  return { from: a - 1, to: b };
}

/** Runs `export-rollout` with its arguments; returns the exit code. */
export async function runExportRollout(argv: string[]): Promise<number> {
  let o: ReturnType<typeof parseOptions>;
  const patterns: string[] = [];
  try {
    // --redact-pattern may repeat: gathered before the common parser sees the rest.
    const rest: string[] = [];
    for (let i = 0; i < argv.length; i++) {
      if (argv[i] === '--redact-pattern') {
        if (argv[i + 1] === undefined) throw new UsageError('option --redact-pattern needs a value');
        patterns.push(argv[++i]);
      } else if (argv[i].startsWith('--redact-pattern=')) patterns.push(argv[i].slice('--redact-pattern='.length));
      else rest.push(argv[i]);
    }
    o = parseOptions(rest, ['--rollout', '--steps', '--as', '--out'], ['--keep-emails', '--keep-home-users', '--no-redact', '--help']);
    if (o.flags.has('--help')) {
      process.stdout.write(`Usage:\n${EXPORT_ROLLOUT_USAGE}\n`);
      return 0;
    }
    if (o.positional.length !== 1) throw new UsageError('export-rollout takes one rollout file');
    const as = o.options.get('--as');
    if (as !== 'md' && as !== 'html') throw new UsageError(as === undefined ? 'export-rollout needs --as html or --as md' : `--as ${as}: html (a page) or md (a Markdown transcript)`);
    if (o.options.has('--rollout') && !/^[1-9]\d*$/.test(o.options.get('--rollout')!)) throw new UsageError(`--rollout takes a rollout number from 1, not ${JSON.stringify(o.options.get('--rollout'))}`);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${e.message}\nUsage:\n${EXPORT_ROLLOUT_USAGE}\n`);
    return 2;
  }
  let range: { from: number; to: number | undefined } | null = null;
  try {
    if (o.options.has('--steps')) range = parseStepRange(o.options.get('--steps')!);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const file = o.positional[0];
  let loaded;
  try {
    loaded = await loadFile(file);
  } catch (e) {
    printFailures([{ path: file, error: e as Error }]);
    return 1;
  }
  const k = Number(o.options.get('--rollout') ?? '1') - 1;
  const rollout = loaded.rollouts[k];
  if (!rollout) {
    process.stderr.write(`error: ${file} has ${loaded.rollouts.length} rollout(s); --rollout ${k + 1} is not one of them\n`);
    return 1;
  }
  let shown = rollout;
  let note = 'not redacted';
  if (!o.flags.has('--no-redact')) {
    try {
      const r = await redactRollout(rollout, { patterns, emails: !o.flags.has('--keep-emails'), homeUsers: !o.flags.has('--keep-home-users') });
      shown = r.rollout;
      note = `redacted: ${describeRedaction(r)}`;
      process.stderr.write(`${describeRedaction(r)}\n`);
    } catch (e) {
      if (!(e instanceof RedactPatternError)) throw e;
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
  }
  const opts = { from: range?.from, to: range?.to, sourceName: path.basename(file) };
  const md =
    o.options.get('--as') === 'html'
      ? rolloutHtml(shown, { ...opts, footer: note, sha256: sha256Base64 })
      : `${rolloutMarkdown(shown, opts)}\n---\n\n*Exported by Trajectory Inspector; ${note}.*\n`;
  const out = o.options.get('--out');
  if (out) fs.writeFileSync(out, md);
  else process.stdout.write(md);
  return 0;
}
