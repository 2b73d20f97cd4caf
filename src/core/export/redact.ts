/**
 * Redaction of secrets and personal details in text that leaves the editor (an exported rollout, a
 * copied step). Three sources of findings, merged:
 *
 * - **secretlint's recommended rules** (`@secretlint/secretlint-rule-preset-recommend`: AWS, GCP,
 *   Azure, GitHub, npm, OpenAI, Slack, SendGrid, Shopify, Linear and 1Password tokens, private keys,
 *   basic-auth URLs): the maintained rule set, not a home-made list;
 * - **tokens of AI and cloud services secretlint's preset does not know**, after gitleaks' published
 *   rules (gitleaks/gitleaks `config/gitleaks.toml`: `aws-access-token`, `openai-api-key` in its
 *   current `sk-proj-` / `sk-svcacct-` shapes, `anthropic-api-key`, `huggingface-access-token`,
 *   `gitlab-pat`, `gcp-api-key`);
 * - **what secretlint leaves to others** and rollouts are full of: passwords in connection strings
 *   (`scheme://user:password@host`), `password=` / `secret:` / `api_key=` / `token=` assignments,
 *   e-mail addresses, and the user name in home-directory paths (`/home/<name>/`, `/Users/<name>/`,
 *   `C:\Users\<name>\`);
 * - **the user's own patterns** (regular expressions; setting `trajectoryInspector.redaction.patterns`).
 *
 * Each finding becomes `[REDACTED:<kind>]` (a home-directory name `<user>`, so paths stay readable).
 * Overlapping findings merge into one (the earliest kind). This module never imports `vscode`.
 */
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import type { Rollout } from '../model';

/** One span of text to redact: UTF-16 offsets into the text, end exclusive. */
export interface Finding {
  start: number;
  end: number;
  /** Short kind shown in the replacement and the preview (`github-token`, `email`, `password`, …). */
  kind: string;
}

/** What to redact besides secretlint's rules. */
export interface RedactOptions {
  /** The user's patterns (JavaScript regular expressions, matched with the `g` flag); an invalid one throws RedactPatternError. */
  patterns?: readonly string[];
  /** Redact e-mail addresses (default true). */
  emails?: boolean;
  /** Replace the user name in home-directory paths with `<user>` (default true). */
  homeUsers?: boolean;
}

/** A user pattern that is not a valid regular expression. */
export class RedactPatternError extends Error {
  constructor(
    readonly pattern: string,
    why: string,
  ) {
    super(`the redaction pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${why}`);
    this.name = 'RedactPatternError';
  }
}

/** The result of redacting one text. */
export interface Redacted {
  text: string;
  /** Findings per kind, most frequent first. */
  counts: { kind: string; count: number }[];
  /** Findings in all. */
  total: number;
}

/**
 * The kind shown for a secretlint message: its messageId in kebab case (`AWSSecretAccessKey` →
 * `aws-secret-access-key`, `GITHUB_TOKEN` → `github-token`), prefixed with the rule's name when the
 * id does not start with it (`@secretlint/secretlint-rule-privatekey` + `PrivateKey` → `private-key`).
 */
function kindOf(ruleId: string, messageId: string): string {
  const rule = ruleId.replace(/^@secretlint\/secretlint-rule-/, '').toLowerCase();
  const kebab = messageId
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return kebab.replace(/-/g, '').startsWith(rule) || rule.startsWith(kebab.replace(/-/g, '')) ? kebab || rule : `${rule}-${kebab}`;
}

/** The secret text a secretlint message names in its data (its `range` is off for some rules: aws starts at the line). */
function secretOf(data: unknown): string | null {
  if (!data || typeof data !== 'object') return null;
  for (const k of ['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'CREDENTIAL']) {
    const v = (data as Record<string, unknown>)[k];
    if (typeof v === 'string' && v.length >= 4) return v;
  }
  return null;
}

/** secretlint's findings in `text`. */
async function secretlintFindings(text: string): Promise<Finding[]> {
  const result = await lintSource({
    source: { filePath: '/rollout.txt', content: text, contentType: 'text' },
    options: { config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] } },
  });
  const out: Finding[] = [];
  for (const m of result.messages) {
    const kind = kindOf(m.ruleId, m.messageId ?? 'secret');
    const secret = secretOf(m.data);
    let [start, end] = m.range;
    if (secret) {
      // Find the secret itself from the start of the line the range points into.
      const lineStart = text.lastIndexOf('\n', Math.max(0, start - 1)) + 1;
      const at = text.indexOf(secret, lineStart);
      if (at >= 0) [start, end] = [at, at + secret.length];
    }
    if (end > start) out.push({ start, end, kind });
  }
  return out;
}

/** Service tokens (gitleaks' rules of the same names, `config/gitleaks.toml`). */
const TOKENS: [RegExp, string][] = [
  [/\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g, 'aws-access-key-id'],
  [/\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}\b/g, 'openai-api-key'],
  [/\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b/g, 'openai-api-key'],
  [/\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}\b/g, 'anthropic-api-key'],
  [/\bhf_[A-Za-z]{34}\b/g, 'huggingface-token'],
  [/\bglpat-[A-Za-z0-9_-]{20}\b/g, 'gitlab-token'],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, 'gcp-api-key'],
];
/** Passwords in URLs: `scheme://user:password@host` (the password only). */
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s:/@"'`]{1,100}:([^\s@/"'`]{1,200})@[^\s/"'`]/gi;
/** `password=…`, `secret: …`, `api_key="…"`, `token=…`: the value only (8+ characters, not a placeholder). */
const ASSIGNED_SECRET = /\b[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|token)\b["']?\s*[:=]\s*(["']?)([^\s"',;}{)(\[\]]{8,200})/gi;
/** An unquoted value that is code, not a secret: a dotted name (`os.environ`, `self.token`) or a call / index (`getenv(`, `env[`). */
const CODE_VALUE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
/** E-mail addresses (not the `user:pass@host` of a URL: no `:` or `/` just before). */
const EMAIL = /(?<![:/\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,24}\b/g;
/** The user name of a home-directory path. */
const HOME_USER = /(?:\/home\/|\/Users\/|[A-Za-z]:\\{1,2}Users\\{1,2})([A-Za-z0-9._-]{1,64})(?=[\\/]|$|[\s"'`])/g;
/** Home-directory names that name no person. */
const NOT_A_PERSON = new Set(['root', 'user', 'ubuntu', 'runner', 'node', 'app', 'shared', 'public', 'default', 'admin', 'guest', 'agent', 'vscode', 'codespace', 'coder', '<user>']);
/** Assigned values that are not secrets (placeholders, variables). */
const PLACEHOLDER = /^(?:\$\{?[A-Za-z_]|<|\*+$|x+$|null$|none$|true$|false$|undefined$|redacted|\[redacted|changeme$|password$|your[_-])/i;

function groupFindings(text: string, re: RegExp, kind: string, keep: (value: string, m: RegExpExecArray) => boolean = () => true): Finding[] {
  const out: Finding[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const value = m[m.length - 1] ?? m[0];
    if (!keep(value, m)) continue;
    const start = m.index + m[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, kind });
  }
  return out;
}

/** Compiles the user's patterns. @throws RedactPatternError */
export function compilePatterns(patterns: readonly string[]): RegExp[] {
  return patterns
    .filter((p) => p.trim() !== '')
    .map((p) => {
      try {
        return new RegExp(p, 'g');
      } catch (e) {
        throw new RedactPatternError(p, e instanceof Error ? e.message : String(e));
      }
    });
}

/**
 * Every finding in `text` (see the module docs), sorted by start, overlaps merged.
 * @throws RedactPatternError for an invalid user pattern
 */
export async function findSecrets(text: string, o: RedactOptions = {}): Promise<Finding[]> {
  const user = compilePatterns(o.patterns ?? []);
  const all: Finding[] = [
    ...(await secretlintFindings(text)),
    ...TOKENS.flatMap(([re, kind]) => groupFindings(text, re, kind)),
    ...groupFindings(text, URL_PASSWORD, 'password'),
    ...groupFindings(text, ASSIGNED_SECRET, 'secret', (v, m) => {
      if (PLACEHOLDER.test(v)) return false;
      const quoted = m[1] !== '';
      const next = text[m.index + m[0].length];
      return quoted || (!CODE_VALUE.test(v) && next !== '(' && next !== '[');
    }),
    ...(o.emails === false ? [] : groupFindings(text, EMAIL, 'email')),
    ...(o.homeUsers === false ? [] : groupFindings(text, HOME_USER, 'home-user', (v) => !NOT_A_PERSON.has(v.toLowerCase()))),
    ...user.flatMap((re) => groupFindings(text, re, 'custom')),
  ];
  const minor = (f: Finding): number => (f.kind === 'email' || f.kind === 'home-user' ? 1 : 0);
  all.sort((a, b) => a.start - b.start || minor(a) - minor(b) || b.end - a.end);
  // An overlap joins the two spans, except an e-mail or home-directory match that starts inside a
  // secret (the `pass@host` of `user:pass@host`): the secret is redacted, the host kept.
  const merged: Finding[] = [];
  for (const f of all) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) {
      if (f.kind !== 'email' && f.kind !== 'home-user') last.end = Math.max(last.end, f.end);
    } else merged.push({ ...f });
  }
  return merged;
}

/** The replacement of one finding. */
function replacement(f: Finding): string {
  return f.kind === 'home-user' ? '<user>' : `[REDACTED:${f.kind}]`;
}

/** `text` with `findings` (sorted, not overlapping: findSecrets' result) replaced. */
export function applyFindings(text: string, findings: readonly Finding[]): Redacted {
  const parts: string[] = [];
  let at = 0;
  const counts = new Map<string, number>();
  for (const f of findings) {
    parts.push(text.slice(at, f.start), replacement(f));
    at = f.end;
    counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  }
  parts.push(text.slice(at));
  return {
    text: parts.join(''),
    counts: [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind)),
    total: findings.length,
  };
}

/**
 * `text` with every finding replaced, and what was found.
 * @throws RedactPatternError for an invalid user pattern
 */
export async function redact(text: string, o: RedactOptions = {}): Promise<Redacted> {
  return applyFindings(text, await findSecrets(text, o));
}

/** One line saying what was redacted (`3 redacted: 2 github-token, 1 email`), or that nothing was. */
export function describeRedaction(r: Pick<Redacted, 'counts' | 'total'>): string {
  if (r.total === 0) return 'nothing redacted';
  return `${r.total} redacted: ${r.counts.map((c) => `${c.count} ${c.kind}`).join(', ')}`;
}

/** Separates the texts of a rollout while they are searched as one (findings are clipped to each text). */
const SEP = '\n\u0000\u0000\n';

/**
 * Every text of `texts` redacted, searched as one document (one secretlint run, not one per text);
 * a finding never reaches across two texts.
 * @throws RedactPatternError for an invalid user pattern
 */
export async function redactTexts(texts: readonly string[], o: RedactOptions = {}): Promise<{ texts: string[]; counts: Redacted['counts']; total: number }> {
  const joined = texts.join(SEP);
  const findings = await findSecrets(joined, o);
  const out: string[] = [];
  const counts = new Map<string, number>();
  let total = 0;
  let base = 0;
  let k = 0;
  for (const t of texts) {
    const end = base + t.length;
    const mine: Finding[] = [];
    while (k < findings.length && findings[k].end <= base) k++;
    for (let j = k; j < findings.length && findings[j].start < end; j++) {
      const f = findings[j];
      mine.push({ start: Math.max(f.start, base) - base, end: Math.min(f.end, end) - base, kind: f.kind });
    }
    const r = applyFindings(t, mine.filter((f) => f.end > f.start));
    for (const c of r.counts) counts.set(c.kind, (counts.get(c.kind) ?? 0) + c.count);
    total += r.total;
    out.push(r.text);
    base = end + SEP.length;
  }
  return {
    texts: out,
    counts: [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind)),
    total,
  };
}

/** Every string inside `v` (objects and arrays walked), replaced through `map` in the same order they were listed. */
function mapStrings(v: unknown, map: (s: string) => string): unknown {
  if (typeof v === 'string') return map(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, map));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, map)]));
  return v;
}

/**
 * A copy of `rollout` whose texts are redacted: task instruction, messages, reasoning, commands,
 * tool arguments and edits (every string in them), outputs, paths, the rollout's id, source path and
 * task id. Indexes, numbers, timestamps and the format stay.
 * @throws RedactPatternError for an invalid user pattern
 */
export async function redactRollout(rollout: Rollout, o: RedactOptions = {}): Promise<{ rollout: Rollout; counts: Redacted['counts']; total: number }> {
  const texts: string[] = [];
  const collect = (s: string): string => (texts.push(s), s);
  const walk = (map: (s: string) => string): Rollout => ({
    ...rollout,
    id: map(rollout.id),
    source: { ...rollout.source, path: map(rollout.source.path) },
    task: { id: rollout.task.id === null ? null : map(rollout.task.id), instruction: rollout.task.instruction === null ? null : map(rollout.task.instruction) },
    steps: rollout.steps.map((s) => ({
      ...s,
      message: map(s.message),
      reasoning: s.reasoning === null ? null : map(s.reasoning),
      actions: s.actions.map((a) => ({
        ...a,
        command: a.command === null ? null : map(a.command),
        arguments: a.arguments === undefined ? undefined : mapStrings(a.arguments, map),
        path: a.path === undefined || a.path === null ? a.path : map(a.path),
        edit: a.edit === undefined || a.edit === null ? a.edit : (mapStrings(a.edit, map) as typeof a.edit),
      })),
      observations: s.observations.map((x) => ({ ...x, output: map(x.output), cwd: x.cwd === undefined || x.cwd === null ? x.cwd : map(x.cwd) })),
    })),
  });
  walk(collect);
  const r = await redactTexts(texts, o);
  let i = 0;
  return { rollout: walk(() => r.texts[i++]), counts: r.counts, total: r.total };
}
