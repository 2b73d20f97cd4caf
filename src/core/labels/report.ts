/**
 * The agreement report: one structure and its text, shared by `trajectory-inspector agreement` and
 * the editor's *Show Label Agreement* view, so both say the same thing.
 */
import { LABEL_ORDER, type AnnotatorAgreement, type Ratio, type ScorerAgreement } from './agreement';

export interface AgreementReport {
  a: string;
  b: string | null;
  annotators: AnnotatorAgreement | null;
  scores: (ScorerAgreement & { file: string; labels: string; count: number }) | null;
}

function num(x: number | null, digits = 3): string {
  return x === null ? '—' : x.toFixed(digits);
}

function ratioText(r: Ratio): string {
  return `${r.correct}/${r.n} = ${num(r.value)}`;
}

const LABEL_TEXT: Record<string, string> = { '1': '+1', '0': ' 0', '-1': '−1' };

/** The report as plain text (the CLI prints it; the report view shows it). */
export function agreementText(rep: AgreementReport): string {
  const lines: string[] = [];
  const aa = rep.annotators;
  if (aa) {
    lines.push(`${aa.a} vs ${aa.b}: ${aa.rollouts} rollout(s)`);
    lines.push(`  steps labelled: ${aa.a} ${aa.labelledA}, ${aa.b} ${aa.labelledB}, both ${aa.n} (only ${aa.a} ${aa.onlyA}, only ${aa.b} ${aa.onlyB})`);
    lines.push(`  observed agreement ${num(aa.observed)}, chance ${num(aa.expected)}, Cohen's kappa ${num(aa.kappa)}`);
    lines.push(`  confusion (rows ${aa.a}, columns ${aa.b}):`);
    lines.push(`        ${LABEL_ORDER.map((v) => LABEL_TEXT[String(v)].padStart(6)).join('')}`);
    LABEL_ORDER.forEach((v, i) => lines.push(`    ${LABEL_TEXT[String(v)]}  ${aa.confusion[i].map((c) => String(c).padStart(6)).join('')}`));
    lines.push(`  first error: ${aa.firstError.agree} of ${aa.firstError.compared} rollout(s) agree (where both sides define one)`);
    if (aa.conflicting) lines.push(`  ${aa.conflicting} conflicting, excluded: rollout(s) whose dataset labels contradict each other are left out of kappa and the first error`);
  }
  const s = rep.scores;
  if (s) {
    if (lines.length) lines.push('');
    lines.push(`scores (${s.file}, ${s.count} step score(s)) vs labels of ${s.labels}: threshold ${s.threshold}, neutral → ${s.neutral}`);
    lines.push(`  rollouts scored: ${s.scoredRollouts} of ${s.rollouts}${s.unmatchedScores ? `; ${s.unmatchedScores} score(s) match no step of these files` : ''}`);
    lines.push(`  step accuracy: ${ratioText(s.stepAccuracy)}`);
    lines.push(`  AUROC of 1 − score for bad steps: ${num(s.auroc.value)} (${s.auroc.bad} bad, ${s.auroc.good} good)`);
    const fe = s.firstError;
    lines.push(`  first error (ProcessBench): erroneous ${ratioText(fe.erroneous)}, correct ${ratioText(fe.correct)}, F1 ${num(fe.f1)}; exact match ${ratioText(fe.exactMatch)}`);
    if (fe.conflicting) lines.push(`  ${fe.conflicting} conflicting, excluded: scored rollout(s) whose dataset labels contradict each other are left out of first-error metrics`);
    if (fe.undefinedGold) lines.push(`  ${fe.undefinedGold} scored rollout(s) left out of first-error metrics: their labels define no first error`);
  }
  return lines.join('\n') + '\n';
}

