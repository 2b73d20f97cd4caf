/**
 * A branch ("what if"): continue a rollout from step N with another model, from the replayed state.
 *
 * The replay session (core/replay) re-runs the rollout's steps before the fork in its hardened
 * container (no network); then the agent loop asks the model for a reply with the rollout's own
 * history (protocol.ts historyFrom), parses the reply into a shell command (protocol.ts
 * parseReply), runs it in the same container through the session's executor (ReplaySession.runCommand),
 * and feeds the output back in mini-swe-agent's observation format, until the model finishes
 * (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`), a reply holds no action, `maxSteps` new steps ran,
 * a token / cost limit passed, the caller stops it, or the model call fails. The model is called
 * from this (host) process, never from the container.
 *
 * The fork: step N (1-based) is the first step the model writes anew. When step N is not an agent
 * step (the system prompt, the task's user message), the steps up to the next agent step are kept
 * as history, so the new steps start at that agent step (`forkIndex`).
 */
import type { Rollout } from '../model';
import type { StepComparison } from '../replay/compare';
import type { ReplaySession } from '../replay/session';
import { chatCompletion, ModelCallError, type ChatEndpoint, type ChatMessage, type ChatReply } from './client';
import { finishedWith, historyFrom, observationText, parseReply, shellToolFor } from './protocol';

/** Limits of a branch's loop. */
export interface BranchLimits {
  /** Most new steps (model replies) (default 20). */
  maxSteps: number;
  /** Stop once the replies' prompt + completion tokens (as the server reports them) pass this; null = no limit. */
  maxTotalTokens?: number | null;
  /** Stop once the cost the server reports (`usage.cost`) passes this many USD; null = no limit. */
  maxCostUsd?: number | null;
}

/** One new step of the branch: the model's reply and what its command did. */
export interface BranchStep {
  /** 0-based index in the branch (prefix steps come first). */
  index: number;
  reply: ChatReply;
  /** The command run, or null when the reply held none. */
  command: string | null;
  callId: string | null;
  tool: string | null;
  /** The command's result; null when nothing ran. */
  result: { output: string; exitCode: number | null; timedOut: boolean; capped: boolean; error: string | null } | null;
  /** The observation message fed back to the model; null when nothing ran. */
  observation: string | null;
  startedAt: string;
  durationSec: number;
}

/** Why a branch ended. */
export type BranchStop =
  | { reason: 'submitted'; submission: string }
  | { reason: 'no-action'; detail: string }
  | { reason: 'max-steps' | 'max-tokens' | 'max-cost'; detail: string }
  | { reason: 'stopped'; detail: string }
  | { reason: 'model-error'; kind: ModelCallError['kind']; detail: string }
  | { reason: 'container-error'; detail: string };

/** Events while a branch runs (for a live view; the CLI prints them). */
export type BranchEvent =
  | { type: 'replayed'; result: StepComparison }
  | { type: 'forked'; forkIndex: number; messages: number }
  | { type: 'asking'; index: number }
  | { type: 'step'; step: BranchStep }
  | { type: 'end'; stop: BranchStop };

/** What a branch gives back. */
export interface BranchResult {
  /** 0-based index of the first new step (see the module docs). */
  forkIndex: number;
  /** Comparisons of the replayed steps before the fork. */
  replayed: StepComparison[];
  steps: BranchStep[];
  stop: BranchStop;
  /** The messages the model saw before the first new step. */
  history: ChatMessage[];
}

/** What a branch needs. */
export interface BranchOptions {
  rollout: Rollout;
  /** Step N, 1-based as `show` prints it. */
  from: number;
  /** A session of `buildPlan(rollout)`, started or not (started here when not). */
  session: ReplaySession;
  endpoint: ChatEndpoint;
  limits: BranchLimits;
  signal?: AbortSignal;
  onEvent?: (e: BranchEvent) => void;
}

/** A branch cannot start: the step is out of range, or the rollout's harness is not one a branch speaks. */
export class BranchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BranchError';
  }
}

/**
 * The index of the first new step for step N (1-based): N − 1, moved on to the next agent step when
 * step N is not one. @throws BranchError when N is out of range or no agent step is at or after it
 */
export function forkIndexOf(rollout: Rollout, from: number): number {
  if (!Number.isInteger(from) || from < 1 || from > rollout.steps.length) {
    throw new BranchError(`step ${from} is not in the rollout (steps 1–${rollout.steps.length})`);
  }
  for (let i = from - 1; i < rollout.steps.length; i++) if (rollout.steps[i].role === 'agent') return i;
  throw new BranchError(`no agent step at or after step ${from}: there is nothing for a model to continue`);
}

/**
 * Runs a branch (module docs). Resolves when it ends, however it ends (`stop` says why); rejects
 * only when it cannot start (BranchError, the session failing to start or to replay the prefix).
 * The caller disposes the session.
 */
export async function runBranch(o: BranchOptions): Promise<BranchResult> {
  const { rollout, session } = o;
  const emit = (e: BranchEvent) => {
    try {
      o.onEvent?.(e);
    } catch {
      /* a listener's failure never stops the branch */
    }
  };
  const forkIndex = forkIndexOf(rollout, o.from);
  if (session.plan.mode === 'tmux') throw new BranchError('this rollout types keystrokes into a terminal (tmux mode): branching speaks only the shell-command protocol (mini-swe-agent style) so far');
  if (!session.containerId) await session.start(o.signal);
  // Replay every plan step of the rollout steps before the fork.
  const last = session.plan.steps.reduce((acc, s, i) => (s.stepIndex < forkIndex ? i : acc), -1);
  const replayed: StepComparison[] = [];
  if (last >= 0) {
    for (const r of await session.runTo(last)) {
      replayed.push(r);
      emit({ type: 'replayed', result: r });
    }
  }
  const history = historyFrom(rollout, forkIndex);
  const messages: ChatMessage[] = [...history];
  emit({ type: 'forked', forkIndex, messages: messages.length });
  const tool = shellToolFor(rollout);
  const tools = tool ? [tool] : [];
  const steps: BranchStep[] = [];
  let tokens = 0;
  let cost = 0;
  const end = (stop: BranchStop): BranchResult => {
    emit({ type: 'end', stop });
    return { forkIndex, replayed, steps, stop, history };
  };
  for (;;) {
    if (o.signal?.aborted) return end({ reason: 'stopped', detail: 'stopped by the user' });
    if (steps.length >= o.limits.maxSteps) return end({ reason: 'max-steps', detail: `${o.limits.maxSteps} new step(s) ran (the step limit)` });
    const index = forkIndex + steps.length;
    emit({ type: 'asking', index });
    const t0 = Date.now();
    const startedAt = new Date(t0).toISOString();
    let reply: ChatReply;
    try {
      reply = await chatCompletion(o.endpoint, messages, tools, o.signal);
    } catch (e) {
      if (e instanceof ModelCallError) {
        if (e.kind === 'aborted') return end({ reason: 'stopped', detail: 'stopped by the user' });
        return end({ reason: 'model-error', kind: e.kind, detail: e.message });
      }
      throw e;
    }
    tokens += (reply.usage.prompt ?? 0) + (reply.usage.completion ?? 0);
    cost += reply.usage.costUsd ?? 0;
    const action = parseReply(reply);
    const step: BranchStep = { index, reply, command: null, callId: null, tool: null, result: null, observation: null, startedAt, durationSec: 0 };
    if (action.kind === 'none') {
      step.durationSec = (Date.now() - t0) / 1000;
      steps.push(step);
      emit({ type: 'step', step });
      return end({ reason: 'no-action', detail: action.reason });
    }
    step.command = action.command;
    step.callId = action.callId;
    step.tool = action.tool;
    let run;
    try {
      run = await session.runCommand(action.command);
    } catch (e) {
      step.durationSec = (Date.now() - t0) / 1000;
      steps.push(step);
      emit({ type: 'step', step });
      return end({ reason: 'container-error', detail: (e as Error).message });
    }
    step.result = { output: run.output, exitCode: run.exitCode, timedOut: run.timedOut, capped: run.capped, error: run.error };
    step.observation = observationText(action.command, run);
    step.durationSec = (Date.now() - t0) / 1000;
    steps.push(step);
    emit({ type: 'step', step });
    const submission = finishedWith(run.output);
    if (submission !== null) return end({ reason: 'submitted', submission });
    if (action.callId) {
      messages.push({ role: 'assistant', content: reply.content, tool_calls: reply.toolCalls });
      messages.push({ role: 'tool', tool_call_id: action.callId, content: step.observation });
      // A tool message answers each call: the calls after the first were not run.
      for (const c of reply.toolCalls.slice(1)) messages.push({ role: 'tool', tool_call_id: c.id, content: 'not run: one command per step' });
    } else {
      messages.push({ role: 'assistant', content: reply.content });
      messages.push({ role: 'user', content: step.observation });
    }
    if (o.limits.maxTotalTokens && tokens > o.limits.maxTotalTokens) return end({ reason: 'max-tokens', detail: `${tokens} tokens used (limit ${o.limits.maxTotalTokens})` });
    if (o.limits.maxCostUsd && cost > o.limits.maxCostUsd) return end({ reason: 'max-cost', detail: `$${cost.toFixed(4)} spent (limit $${o.limits.maxCostUsd})` });
  }
}
