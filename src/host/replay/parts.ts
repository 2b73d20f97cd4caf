/**
 * VS Code pieces of replay: settings (machine-scoped limits read from user / machine values only),
 * the live Pseudoterminal with step boundaries, and the virtual documents that "Show diff" opens.
 */
import * as vscode from 'vscode';
import type { StepComparison } from '../../core/replay/compare';
import type { DockerTarget, ReplayLimits } from '../../core/replay/docker';
import { DEFAULT_RULES, compileRules, type NormalizationRule } from '../../core/replay/normalize';
import { diffHeader, verdictText } from './wording';
import { readSettings } from '../config';

/** Replay settings as the controller uses them. */
export interface ReplayConfig {
  image: string | null;
  imageByFolder: Record<string, string>;
  target: DockerTarget;
  limits: ReplayLimits;
  snapshots: boolean;
  rules: NormalizationRule[];
  /** Problems with the user's settings (bad regex), shown once. */
  warnings: string[];
}

/**
 * Reads the replay settings for a rollout file (host/config.ts: the limits and the engine address
 * from user / machine values only; workspace values of image / rules count only in a trusted workspace).
 */
export function readReplayConfig(scope?: vscode.Uri): ReplayConfig {
  const r = readSettings(scope).replay;
  const { errors } = compileRules(r.normalizationRules);
  return {
    image: r.image || null,
    imageByFolder: r.imageByFolder,
    target: { socketPath: r.dockerSocket || null, dockerHost: r.dockerHost || null },
    limits: r.limits,
    snapshots: r.snapshots,
    rules: [...DEFAULT_RULES, ...r.normalizationRules.filter((x) => !errors.some((e) => e.name === x.name))],
    warnings: errors.map((e) => `normalisation rule ${e.name}: ${e.message}`),
  };
}

/** Control characters shown as `^X`, so rollout text (a command, a cwd) cannot drive the terminal. */
function visible(s: string): string {
  return s.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === '\x7f' ? '^?' : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`));
}

/**
 * The live terminal of a replay: step boundaries as coloured header lines, output as it arrives
 * (`\n` → `\r\n`), each step's verdict. Writes before `open()` are buffered (VS Code drops them).
 * Ctrl-C stops a running Continue.
 */
export class ReplayTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<void>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private pending: string[] | null = [];
  private lastWasNewline = true;

  constructor(private readonly onInterrupt: () => void, private readonly onClosed: () => void) {}

  open(): void {
    const p = this.pending ?? [];
    this.pending = null;
    for (const s of p) this.writeEmitter.fire(s);
  }

  close(): void {
    this.onClosed();
  }

  handleInput(data: string): void {
    if (data === '\x03') this.onInterrupt();
  }

  /**
   * Writes text as a terminal expects it (CRLF). Colours and cursor moves from the container pass
   * through; OSC / DCS / APC / PM strings (window titles, hyperlinks, clipboard writes such as
   * OSC 52) are dropped: the output is untrusted.
   */
  write(text: string): void {
    if (!text) return;
    const t = text.replace(/\x1b[\]P_^][^\x07\x1b]*(?:\x07|\x1b\\)?/g, '').replace(/\r?\n/g, '\r\n');
    this.lastWasNewline = t.endsWith('\n');
    if (this.pending) this.pending.push(t);
    else this.writeEmitter.fire(t);
  }

  /** A step boundary: `── step #N ── $ command`, or `── step #N ── ✎ edit /app/x.py (replace)` for a file edit. */
  stepHeader(stepIndex: number, input: string, kind: 'command' | 'edit' = 'command'): void {
    const cmd = visible(input.replace(/\n$/, '').replace(/\n/g, '⏎'));
    const prompt = kind === 'edit' ? '' : '\x1b[2m$\x1b[0m ';
    this.write(`${this.lastWasNewline ? '' : '\n'}\x1b[1;36m── step #${stepIndex + 1} ──\x1b[0m ${prompt}${cmd.length > 300 ? cmd.slice(0, 300) + '…' : cmd}\n`);
  }

  /** A step's verdict line. */
  stepResult(c: StepComparison): void {
    const colour = c.status === 'same' ? '32' : c.status === 'differs' ? '31' : '33';
    // The same words as the diff editor's title and the raw file's decoration (wording.ts).
    this.write(`${this.lastWasNewline ? '' : '\n'}\x1b[${colour}m■ ${visible(verdictText(c))}\x1b[0m\n`);
  }

  /** A note line (pull progress, errors). */
  note(text: string): void {
    this.write(`${this.lastWasNewline ? '' : '\n'}\x1b[2m${text}\x1b[0m\n`);
  }

  /** Closes the terminal from our side. */
  end(): void {
    this.closeEmitter.fire();
  }
}

/** Scheme of the recorded / replayed documents "Show diff" compares. */
export const REPLAY_SCHEME = 'trajectory-replay';

/** Serves `trajectory-replay:/<side>/<key>/step-N.txt` documents from memory. */
export class ReplayDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }

  /** Stores both sides of a step and returns their URIs. */
  put(key: string, c: StepComparison): { recorded: vscode.Uri; replayed: vscode.Uri } {
    const name = `step-${c.stepIndex + 1}${c.planIndex !== undefined ? `-${c.planIndex + 1}` : ''}.txt`;
    const recorded = vscode.Uri.from({ scheme: REPLAY_SCHEME, path: `/recorded/${key}/${name}` });
    const replayed = vscode.Uri.from({ scheme: REPLAY_SCHEME, path: `/replayed/${key}/${name}` });
    this.texts.set(recorded.path, `${diffHeader(c.recorded.exitCode, c.recorded.cwd)}${c.recorded.text}\n`);
    this.texts.set(replayed.path, `${diffHeader(c.replayed?.exitCode ?? null, c.replayed?.cwd ?? null)}${c.replayed?.text ?? ''}\n`);
    this.changeEmitter.fire(recorded);
    this.changeEmitter.fire(replayed);
    return { recorded, replayed };
  }

  /** Stores a replayed edit's file before and after (`trajectory-replay:/before|after/<key>/…`) and returns their URIs. */
  putFile(key: string, c: StepComparison, change: { path: string; before: string | null; after: string | null }): { before: vscode.Uri; after: vscode.Uri } {
    const name = `step-${c.stepIndex + 1}-${c.planIndex + 1}${change.path.startsWith('/') ? change.path : '/' + change.path}`;
    const before = vscode.Uri.from({ scheme: REPLAY_SCHEME, path: `/before/${key}/${name}` });
    const after = vscode.Uri.from({ scheme: REPLAY_SCHEME, path: `/after/${key}/${name}` });
    this.texts.set(before.path, change.before ?? '');
    this.texts.set(after.path, change.after ?? '');
    this.changeEmitter.fire(before);
    this.changeEmitter.fire(after);
    return { before, after };
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}
