/**
 * Replay plan: what to re-run from a rollout, in which container image, and how.
 *
 * The mode follows how the original harness ran commands (../shared/docs/reference/replay.md §1):
 * - `exec`  one `docker exec bash -lc <command>` per step, nothing carries over (mini-swe-agent).
 * - `shell` one persistent bash; cd / export carry over; each step ends at a nonce marker that
 *           returns the exit code and cwd (SWE-agent / SWE-ReX, OpenHands).
 * - `tmux`  keystrokes typed into a tmux pane; the screen is compared (Terminal-Bench, Harbor Terminus).
 *
 * Nothing here touches Docker. Errors: `ReplayPlanError` when no image is known, or when the
 * rollout has no step that can be replayed.
 */
import * as path from 'node:path';
import type { FormatId, Rollout, Step } from '../model';

/** How the commands of a rollout are re-run. */
export type ReplayMode = 'exec' | 'shell' | 'tmux';

/** How the recording cut long outputs, so the replayed output can be cut the same way before comparing. */
export interface TruncationPolicy {
  /** `none`: kept whole; `head-tail`: first `head` + last `tail` characters kept; `middle`: same, marked in the middle. */
  kind: 'none' | 'head-tail';
  /** Outputs up to this many characters are kept whole. */
  limit: number;
  head: number;
  tail: number;
}

/** What the recording says one step produced. Unknown fields are null. */
export interface RecordedResult {
  /** Output text as recorded (may hold ANSI escapes / CR). */
  output: string;
  exitCode: number | null;
  /** Working directory after the step (OpenHands metadata, SWE-agent state). */
  cwd: string | null;
  truncated: boolean;
}

/** One step of the plan: the input to send and what the recording got. */
export interface ReplayStep {
  /** Index of the rollout step (Step.index, 0-based). */
  stepIndex: number;
  /** Command (exec / shell) or keystrokes (tmux), as recorded. */
  input: string;
  /** Recorded seconds to wait after non-blocking keystrokes (Terminus `duration`), when known. */
  waitSec: number | null;
  recorded: RecordedResult;
  /** False for steps that cannot be re-run (editor tools, finish); `reason` says why. */
  replayable: boolean;
  reason: string | null;
}

/** Where the image name came from, for the confirmation prompt. */
export type ImageSource = 'option' | 'rollout' | 'folder-mapping' | 'setting';

/** Everything needed to replay one rollout. */
export interface ReplayPlan {
  rolloutId: string;
  sourcePath: string;
  format: FormatId;
  image: string;
  imageSource: ImageSource;
  mode: ReplayMode;
  /** Working directory the commands start in (rollout's workdir), or null for the image default. */
  workdir: string | null;
  /** Terminal size for tmux mode (Terminal-Bench 160×40). */
  terminal: { cols: number; rows: number };
  truncation: TruncationPolicy;
  /** True when recorded outputs came from a terminal (TTY): the comparison renders CR / cursor moves. */
  ttyOutput: boolean;
  steps: ReplayStep[];
}

/** A plan cannot be made; the message says what to set. */
export class ReplayPlanError extends Error {
  constructor(message: string, readonly code: 'no-image' | 'no-steps') {
    super(message);
    this.name = 'ReplayPlanError';
  }
}

/** Inputs for choosing the image besides the rollout itself. */
export interface PlanOptions {
  /** Explicit image (CLI `--image`, a prompt answer); wins over everything. */
  image?: string | null;
  /** Per-folder mapping: absolute or workspace-relative folder → image; the longest matching folder wins. */
  imageByFolder?: Record<string, string>;
  /** Base folder for relative keys of `imageByFolder` (the workspace folder). */
  baseDir?: string;
  /** The user's default image setting. */
  defaultImage?: string | null;
  /** Working directory to start in, over the rollout's own (CLI `--workdir`). */
  workdir?: string | null;
}

const NO_HEAD_TAIL: TruncationPolicy = { kind: 'none', limit: Infinity, head: 0, tail: 0 };

/** The replay mode that matches the harness a format comes from. */
export function modeFor(rollout: Rollout): ReplayMode {
  switch (rollout.format) {
    case 'mini-swe-agent':
      return 'exec';
    case 'swe-agent':
    case 'openhands-v0':
    case 'openhands-v1':
    case 'openhands-eval':
      return 'shell';
    default: {
      // ATIF and the others: keystrokes go to tmux; plain shell actions (ATIF from OpenHands) to a shell.
      const kinds = new Set(rollout.steps.flatMap((s) => s.actions.map((a) => a.kind)));
      return kinds.has('keystrokes') ? 'tmux' : 'shell';
    }
  }
}

/**
 * How the harness cut long observations (reference §1.7): mini-swe-agent 10 000 chars → 5 000 head
 * + 5 000 tail; OpenHands 30 000 chars middle; Terminus-2 10 000 bytes head/tail; SWE-agent 100 000.
 */
export function truncationFor(rollout: Rollout): TruncationPolicy {
  switch (rollout.format) {
    case 'mini-swe-agent':
      return { kind: 'head-tail', limit: 10_000, head: 5_000, tail: 5_000 };
    case 'openhands-v0':
    case 'openhands-v1':
    case 'openhands-eval':
      return { kind: 'head-tail', limit: 30_000, head: 15_000, tail: 15_000 };
    case 'swe-agent':
      return { kind: 'head-tail', limit: 100_000, head: 100_000, tail: 0 };
    case 'atif':
      return { kind: 'head-tail', limit: 10_000, head: 5_000, tail: 5_000 };
    default:
      return NO_HEAD_TAIL;
  }
}

/**
 * The image for a rollout and where it came from, or null when nothing names one. Order: the
 * explicit option (CLI `--image`, the user's choice in the editor), then the longest matching
 * `imageByFolder` entry (a user's mapping beats what the rollout recorded: the recorded image may
 * live in a registry this engine cannot reach), then the rollout's own image, then the default setting.
 */
export function chooseImage(rollout: Rollout, o: PlanOptions): { image: string; source: ImageSource } | null {
  if (o.image) return { image: o.image, source: 'option' };
  if (o.imageByFolder) {
    const file = path.resolve(rollout.source.path);
    let best: { len: number; image: string } | null = null;
    for (const [folder, image] of Object.entries(o.imageByFolder)) {
      if (!image) continue;
      const abs = path.resolve(o.baseDir ?? '/', folder);
      if (file === abs || file.startsWith(abs.endsWith(path.sep) ? abs : abs + path.sep)) {
        if (!best || abs.length > best.len) best = { len: abs.length, image };
      }
    }
    if (best) return { image: best.image, source: 'folder-mapping' };
  }
  if (rollout.environment.image) return { image: rollout.environment.image, source: 'rollout' };
  if (o.defaultImage) return { image: o.defaultImage, source: 'setting' };
  return null;
}

function recordedOf(step: Step, callId: string | null, i: number): RecordedResult {
  const obs = (callId ? step.observations.find((o) => o.callId === callId) : undefined) ?? step.observations[i] ?? step.observations[0];
  return {
    output: obs?.output ?? '',
    exitCode: obs?.exitCode ?? null,
    cwd: obs?.cwd ?? null,
    truncated: obs?.truncated ?? false,
  };
}

function waitOf(args: unknown): number | null {
  if (args && typeof args === 'object' && 'duration' in args) {
    const d = Number((args as { duration: unknown }).duration);
    return Number.isFinite(d) && d >= 0 ? d : null;
  }
  return null;
}

/**
 * The steps to run: every shell / keystrokes action of the rollout, in order, one plan step each
 * (a rollout step with several keystroke actions gives several plan steps with the same stepIndex).
 * Editor tools and finish actions are listed as not replayable, so the UI can mark them.
 */
export function planSteps(rollout: Rollout, mode: ReplayMode): ReplayStep[] {
  const out: ReplayStep[] = [];
  for (const step of rollout.steps) {
    step.actions.forEach((a, i) => {
      const recorded = recordedOf(step, a.callId, i);
      const runnable = a.command !== null && (a.kind === 'shell' || a.kind === 'keystrokes');
      // Terminal-Bench 1's harness types its own setup (asciinema, clear) as system steps: not the agent's.
      const harness = step.role === 'system' && rollout.format === 'tb1-trial';
      if (runnable && !harness && (mode === 'tmux' || a.kind === 'shell' || a.command!.endsWith('\n'))) {
        out.push({ stepIndex: step.index, input: a.command!, waitSec: waitOf(a.arguments), recorded, replayable: true, reason: null });
      } else if (a.kind !== 'finish' && !harness) {
        const reason = a.kind === 'file_edit' ? `editor tool ${a.tool ?? ''} is not a shell command`.replace('  ', ' ')
          : a.kind === 'tool' ? `tool ${a.tool ?? '?'} is not a shell command`
            : 'keystrokes need tmux mode';
        out.push({ stepIndex: step.index, input: a.command ?? a.tool ?? a.kind, waitSec: null, recorded, replayable: false, reason });
      }
    });
  }
  return out;
}

/**
 * Builds the replay plan of a rollout.
 * @throws ReplayPlanError `no-image` when neither the options, the rollout nor the settings name an
 *   image (the message says how to set one); `no-steps` when nothing can be replayed.
 */
export function buildPlan(rollout: Rollout, o: PlanOptions = {}): ReplayPlan {
  const chosen = chooseImage(rollout, o);
  if (!chosen) {
    throw new ReplayPlanError(
      `No container image is known for ${path.basename(rollout.source.path)}: the rollout does not name one. ` +
        'On the command line pass --image IMAGE; in the editor set trajectoryInspector.replay.image (or a folder entry in trajectoryInspector.replay.imageByFolder).',
      'no-image',
    );
  }
  const mode = modeFor(rollout);
  const steps = planSteps(rollout, mode);
  if (!steps.some((s) => s.replayable)) {
    throw new ReplayPlanError(`${path.basename(rollout.source.path)} has no shell command or keystrokes to replay`, 'no-steps');
  }
  return {
    rolloutId: rollout.id,
    sourcePath: rollout.source.path,
    format: rollout.format,
    image: chosen.image,
    imageSource: chosen.source,
    mode,
    workdir: o.workdir || rollout.environment.workdir || (steps.find((s) => s.recorded.cwd)?.recorded.cwd ?? null),
    terminal: { cols: 160, rows: 40 },
    truncation: truncationFor(rollout),
    ttyOutput: mode !== 'exec',
    steps,
  };
}
