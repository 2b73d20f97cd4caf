/**
 * `trajectory-inspector export` and `trajectory-inspector agreement`: step labels from the label
 * journals next to rollout files (docs/labels.md), exported as PRM data or compared.
 *
 * Where the journal of a file is looked for: with `--workspace DIR`, in DIR's `.trajectory-labels/`;
 * else in the nearest folder at or above the file's folder that holds `.trajectory-labels/` (that
 * folder plays the workspace folder); else, with `--global-storage DIR` (the extension's global
 * storage folder), under `DIR/labels/`; else the file has no journal.
 */
import * as fs from 'node:fs';
import { loadPath, type LoadFailure } from '../core/load';
import type { Rollout } from '../core/model';
import type { CurrentLabel } from '../core/labels/api';
import { annotatorAgreement, readScores, scorerAgreement } from '../core/labels/agreement';
import { agreementText, type AgreementReport } from '../core/labels/report';
import { CONFLICT_POLICIES, type ConflictPolicy } from '../core/labels/conflicts';
import { DEFAULT_NEUTRAL, EXPORT_FORMATS, exportRows, LabelConflictError, selectForExport, type ExportFormat } from '../core/labels/export';
import { findLabelsRoot, isInside, journalPathFor, openLabelStore } from '../core/labels/journal';
import { annotatorsOf, labelsFrom, NEUTRAL_MAPPINGS, REFERENCE, type NeutralMapping } from '../core/labels/select';
import { parseOptions, printable, printFailures, UsageError } from './common';
import { partFailures } from './showJson';

export const LABEL_USAGE = `  trajectory-inspector export --format trl|agentprocessbench|processbench [--annotator NAME]
      [--neutral negative|positive|drop] [--conflicts drop|keep|fail] [--include-reference] [--include-stale] [--out FILE]
      [--workspace DIR] [--global-storage DIR] <files…>
                                                        write step labels as PRM training/evaluation data
  trajectory-inspector agreement [--a NAME|reference] [--b NAME|reference] [--scores FILE]
      [--threshold 0.5] [--neutral drop|positive|negative] [--json]
      [--workspace DIR] [--global-storage DIR] <files…>
                                                        Cohen's κ between two label sources; scores vs labels`;

const COMMON_VALUED = ['--workspace', '--global-storage'];

/** A loaded file with its journal's current labels. */
interface FileLabels {
  file: string;
  rollouts: Rollout[];
  journal: string | null;
  current: CurrentLabel[];
}

/** Where the CLI looks for a file's journal (module docs). */
export function cliJournalPath(file: string, workspace: string | null, globalStorage: string | null): string | null {
  const root = workspace ?? findLabelsRoot(file);
  if (root !== null && isInside(root, file)) return journalPathFor(file, root, globalStorage ?? '');
  if (globalStorage !== null) return journalPathFor(file, null, globalStorage);
  return null;
}

async function loadWithLabels(targets: string[], workspace: string | null, globalStorage: string | null): Promise<{ files: FileLabels[]; failures: LoadFailure[]; warnings: string[] }> {
  const files: FileLabels[] = [];
  const failures: LoadFailure[] = [];
  const warnings: string[] = [];
  for (const t of targets) {
    const res = await loadPath(t);
    failures.push(...res.failures, ...partFailures(res));
    for (const f of res.files) {
      const journal = cliJournalPath(f.path, workspace, globalStorage);
      let current: CurrentLabel[] = [];
      if (journal !== null) {
        const store = await openLabelStore(journal, { annotator: '', rollouts: f.rollouts });
        current = store.current();
        warnings.push(...store.warnings);
      }
      files.push({ file: f.path, rollouts: f.rollouts, journal, current });
    }
  }
  return { files, failures, warnings };
}

function describeJournals(files: FileLabels[]): string {
  return files.map((f) => `  ${f.file}: ${f.journal === null ? 'no .trajectory-labels/ folder found' : `${f.journal}${fs.existsSync(f.journal) ? '' : ' (none)'}`}`).join('\n');
}

/** The single annotator of the journals, or null when none; UsageError when several. */
function soleAnnotator(annotators: string[], option: string): string | null {
  if (annotators.length > 1) throw new UsageError(`the journals hold labels of several annotators (${annotators.join(', ')}): choose one with ${option} NAME`);
  return annotators[0] ?? null;
}

function neutralOption(v: string | undefined, fallback: NeutralMapping): NeutralMapping {
  if (v === undefined) return fallback;
  if (!(NEUTRAL_MAPPINGS as string[]).includes(v)) throw new UsageError(`--neutral must be one of ${NEUTRAL_MAPPINGS.join(', ')}, not ${JSON.stringify(v)}`);
  return v as NeutralMapping;
}

/** Writes a file through a temp file and a rename, so a crash never leaves half an export. */
function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

async function withUsage(usage: string, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\nUsage:\n${usage}\n`);
      return 2;
    }
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// export

export async function runExport(argv: string[]): Promise<number> {
  return withUsage(LABEL_USAGE, async () => {
    const p = parseOptions(argv, ['--format', '--annotator', '--neutral', '--conflicts', '--out', ...COMMON_VALUED], ['--include-reference', '--include-stale', '--help']);
    if (p.flags.has('--help')) {
      process.stdout.write(`Usage:\n${LABEL_USAGE}\n`);
      return 0;
    }
    const format = p.options.get('--format');
    if (!format || !(EXPORT_FORMATS as string[]).includes(format)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
    const neutral = neutralOption(p.options.get('--neutral'), DEFAULT_NEUTRAL);
    const conflicts = (p.options.get('--conflicts') ?? 'drop') as ConflictPolicy;
    if (!CONFLICT_POLICIES.includes(conflicts)) throw new UsageError(`--conflicts must be one of ${CONFLICT_POLICIES.join(', ')}, not ${JSON.stringify(conflicts)}`);
    if (p.positional.length === 0) throw new UsageError('no rollout files given');
    const includeReference = p.flags.has('--include-reference');
    const includeStale = p.flags.has('--include-stale');
    const { files, failures, warnings } = await loadWithLabels(p.positional, p.options.get('--workspace') ?? null, p.options.get('--global-storage') ?? null);
    for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
    printFailures(failures);
    const annotators = [...new Set(files.flatMap((f) => annotatorsOf(f.current)))].sort();
    const annotator = p.options.get('--annotator') ?? soleAnnotator(annotators, '--annotator');
    if (annotator === null && !includeReference) {
      process.stderr.write(`error: no labels found in the label journals:\n${describeJournals(files)}\n(--include-reference exports the labels that came with the data)\n`);
      return 1;
    }
    if (annotator !== null && annotator !== REFERENCE && !annotators.includes(annotator)) {
      process.stderr.write(`warning: no labels by ${JSON.stringify(annotator)} in the journals (annotators: ${annotators.join(', ') || 'none'})\n`);
    }
    const items = files.flatMap((f) => selectForExport(f.rollouts, f.current, { source: annotator, includeReference, includeStale }));
    const stale = items.reduce((n, l) => n + l.staleLeftOut, 0);
    let result;
    try {
      result = exportRows(format as ExportFormat, items, neutral, conflicts);
    } catch (e) {
      if (!(e instanceof LabelConflictError)) throw e;
      process.stderr.write(printable(`error: ${e.message}`) + '\n');
      for (const id of e.rolloutIds.slice(0, 20)) process.stderr.write(printable(`conflict: ${id}`) + '\n');
      return 1;
    }
    const out = p.options.get('--out');
    if (out) writeAtomically(out, result.text);
    else process.stdout.write(result.text);
    const who = [annotator !== null ? `labels of ${annotator}` : null, includeReference && annotator !== REFERENCE ? 'reference labels' : null].filter(Boolean).join(' + ');
    process.stderr.write(`exported ${result.rows.length} of ${items.length} rollout(s) as ${format} (${who}${format !== 'agentprocessbench' ? `, neutral → ${neutral}` : ''})${out ? ` to ${out}` : ''}\n`);
    if (stale) process.stderr.write(`left out ${stale} stale label(s) whose step changed since (--include-stale keeps them)\n`);
    const nc = result.conflicts.rolloutIds.length;
    if (nc) process.stderr.write(`${nc} rollout(s) with conflicting dataset labels ${conflicts === 'keep' ? 'exported as they are (--conflicts keep)' : 'left out (--conflicts keep exports them, fail refuses)'}\n`);
    for (const s of result.skipped.slice(0, 20)) process.stderr.write(printable(`skipped ${s.rolloutId}: ${s.reason}`) + '\n');
    if (result.skipped.length > 20) process.stderr.write(`… and ${result.skipped.length - 20} more skipped\n`);
    return failures.length ? 1 : 0;
  });
}

// ---------------------------------------------------------------------------------------------
// agreement

export async function runAgreement(argv: string[]): Promise<number> {
  return withUsage(LABEL_USAGE, async () => {
    const p = parseOptions(argv, ['--a', '--b', '--scores', '--threshold', '--neutral', ...COMMON_VALUED], ['--json', '--help']);
    if (p.flags.has('--help')) {
      process.stdout.write(`Usage:\n${LABEL_USAGE}\n`);
      return 0;
    }
    if (p.positional.length === 0) throw new UsageError('no rollout files given');
    const neutral = neutralOption(p.options.get('--neutral'), 'drop');
    const thresholdText = p.options.get('--threshold') ?? '0.5';
    const threshold = Number(thresholdText);
    if (thresholdText.trim() === '' || !Number.isFinite(threshold)) throw new UsageError(`--threshold must be a number, not ${JSON.stringify(thresholdText)}`);
    const scoresFile = p.options.get('--scores') ?? null;
    const { files, failures, warnings } = await loadWithLabels(p.positional, p.options.get('--workspace') ?? null, p.options.get('--global-storage') ?? null);
    for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
    printFailures(failures);
    const annotators = [...new Set(files.flatMap((f) => annotatorsOf(f.current)))].sort();
    const a = p.options.get('--a') ?? soleAnnotator(annotators, '--a') ?? REFERENCE;
    const bOpt = p.options.get('--b') ?? null;
    const b = bOpt ?? (a === REFERENCE ? null : REFERENCE);
    if ((b === null || b === a) && scoresFile === null) {
      const why = b === a ? `--a and --b name the same labels (${a})` : `only the ${a} labels`;
      throw new UsageError(`nothing to compare: ${why}${annotators.length ? '' : ' (the journals hold no labels)'}; give --b NAME|reference or --scores FILE`);
    }
    for (const name of [a, b]) {
      if (name !== null && name !== REFERENCE && !annotators.includes(name)) process.stderr.write(`warning: no labels by ${JSON.stringify(name)} in the journals (annotators: ${annotators.join(', ') || 'none'})\n`);
    }
    const items = files.flatMap((f) =>
      f.rollouts.map((r) => ({ rollout: r, a: labelsFrom(r, f.current, a).steps, b: b !== null ? labelsFrom(r, f.current, b).steps : new Map() })),
    );
    const report: AgreementReport = { a, b, annotators: null, scores: null };
    if (b !== null && b !== a) report.annotators = annotatorAgreement(items, { a, b }, neutral);
    if (scoresFile !== null) {
      let sc;
      try {
        sc = await readScores(scoresFile);
      } catch (e) {
        process.stderr.write(`error: cannot read ${scoresFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
        return 1;
      }
      for (const w of sc.warnings) process.stderr.write(`warning: ${w}\n`);
      const agreement = scorerAgreement(items.map((it) => ({ rollout: it.rollout, labels: it.a })), sc.scores, { threshold, neutral });
      report.scores = { ...agreement, file: scoresFile, labels: a, count: sc.count };
    }
    process.stdout.write(p.flags.has('--json') ? JSON.stringify(report, null, 2) + '\n' : printable(agreementText(report)).replace(/\\x0a/g, '\n'));
    return failures.length ? 1 : 0;
  });
}
