/**
 * The harness protocol a branch speaks with the model, after mini-swe-agent (SWE-agent/mini-swe-agent
 * v1 `src/minisweagent/agents/default.py` `parse_action`, `has_finished`, and the default
 * `config/default.yaml` `action_observation_template` / `timeout_template` / `format_error_template`):
 *
 * - a reply's action is its one ```` ```bash ```` (or ```` ```mswea_bash_command ````) block; zero or
 *   several blocks are no action. A reply with chat-API `tool_calls` (mini-swe-agent v2's tool-call
 *   mode, or any model answering with a `bash`-like tool) gives the `command` argument of its first
 *   call instead;
 * - a command's output is fed back as `<returncode>N</returncode>\n<output>\n…</output>` (outputs of
 *   10 000 characters or more as the head and tail with a warning, as mini-swe-agent does);
 * - the run finishes when a command's output starts with the line `COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`
 *   or `MINI_SWE_AGENT_FINAL_OUTPUT` (what `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` prints); the
 *   rest of the output is the submission.
 *
 * The history a branch starts from is rebuilt from the rollout's own steps (historyFrom).
 */
import type { Rollout, Step } from '../model';
import type { ChatMessage, ChatReply } from './client';

/** The action of one reply, or why there is none. */
export type ParsedAction =
  | { kind: 'command'; command: string; callId: string | null; tool: string | null }
  | { kind: 'none'; reason: string };

const FENCE = /```(?:bash|mswea_bash_command)\s*\n([\s\S]*?)\n```/g;

/**
 * The action of a model reply (module docs).
 * Tool calls win over text; a tool call whose arguments are not JSON holding a string `command`
 * (or `cmd`) is no action, with the reason.
 */
export function parseReply(reply: Pick<ChatReply, 'content' | 'toolCalls'>): ParsedAction {
  const call = reply.toolCalls[0];
  if (call) {
    let args: unknown;
    try {
      args = JSON.parse(call.function.arguments || '{}');
    } catch {
      return { kind: 'none', reason: `the tool call ${call.function.name} has arguments that are not JSON` };
    }
    const a = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
    const cmd = typeof a.command === 'string' ? a.command : typeof a.cmd === 'string' ? a.cmd : null;
    if (cmd === null || !cmd.trim()) return { kind: 'none', reason: `the tool call ${call.function.name} has no command argument` };
    return { kind: 'command', command: cmd, callId: call.id, tool: call.function.name };
  }
  const blocks = [...reply.content.matchAll(FENCE)];
  if (blocks.length !== 1) return { kind: 'none', reason: `the reply holds ${blocks.length} bash code blocks, not exactly one` };
  const command = blocks[0][1].trim();
  if (!command) return { kind: 'none', reason: 'the reply\'s bash code block is empty' };
  return { kind: 'command', command, callId: null, tool: null };
}

const FINISH_LINES = ['COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT', 'MINI_SWE_AGENT_FINAL_OUTPUT'];

/** The submission when a command's output says the task is done (module docs), else null. */
export function finishedWith(output: string): string | null {
  const lines = output.trimStart().split(/(?<=\n)/);
  if (lines.length && FINISH_LINES.includes(lines[0].trim())) return lines.slice(1).join('');
  return null;
}

/** The limit past which mini-swe-agent shows only the head and tail of an output. */
const LONG_OUTPUT = 10_000;

/**
 * The observation message of a command's result, in mini-swe-agent's templates: the returncode and
 * output; a timed-out command's timeout message; `error` (the command could not run) as the output.
 */
export function observationText(command: string, r: { output: string; exitCode: number | null; timedOut: boolean; error?: string | null }): string {
  const output = r.error ? `${r.output}${r.output && !r.output.endsWith('\n') ? '\n' : ''}${r.error}` : r.output;
  if (r.timedOut) {
    return `The last command <command>${command}</command> timed out and has been killed.\nThe output of the command was:\n <output>\n${output}\n</output>\nPlease try another command and make sure to avoid those requiring interactive input.`;
  }
  const rc = `<returncode>${r.exitCode ?? -1}</returncode>\n`;
  if (output.length < LONG_OUTPUT) return `${rc}<output>\n${output}</output>`;
  return (
    rc +
    '<warning>\nThe output of your last command was too long.\nPlease try a different command that produces less output.\n' +
    "If you're looking at a file you can try use head, tail or sed to view a smaller number of lines selectively.\n" +
    "If you're using grep or find and it produced too much output, you can use a more selective search pattern.\n" +
    "If you really need to see something from the full command's output, you can redirect output to a file and then search in that file.\n</warning>" +
    `<output_head>\n${output.slice(0, 5000)}\n</output_head>\n<elided_chars>\n${output.length - LONG_OUTPUT} characters elided\n</elided_chars>\n<output_tail>\n${output.slice(-5000)}\n</output_tail>`
  );
}

/**
 * The observation of a recorded step as the model saw it: for mini-swe-agent, re-rendered in its
 * template when the exit code is known (the loader keeps the output apart from it); for other
 * harnesses, the recorded output as it is.
 */
function recordedObservation(rollout: Rollout, step: Step, i: number): string {
  const o = step.observations[i];
  if (rollout.format !== 'mini-swe-agent') return o.output;
  const cmd = step.actions[i]?.command ?? '';
  return o.exitCode === null ? o.output : observationText(cmd, { output: o.output, exitCode: o.exitCode, timedOut: false });
}

/** True when the agent step's actions came from chat-API tool calls (a call id and a tool name). */
function usesToolCalls(step: Step): boolean {
  return step.actions.length > 0 && step.actions.every((a) => a.callId !== null && a.tool !== null);
}

/**
 * The chat history of a rollout before step `forkIndex` (0-based, exclusive): system and user steps
 * as their messages, each agent step as the assistant's reply (its `message`; with `tool_calls`
 * when its actions were tool calls) followed by its observations (tool messages for tool calls,
 * else user messages; mini-swe-agent's in its observation template), environment steps as user
 * messages. New observations of a branch always use mini-swe-agent's template (observationText).
 * Steps marked as copied from an earlier context count like the others; event steps (compaction,
 * API errors, unknown records) are left out: the model never saw them as messages.
 */
export function historyFrom(rollout: Rollout, forkIndex: number): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const step of rollout.steps.slice(0, forkIndex)) {
    if (step.event && step.event.kind !== 'notice') continue;
    if (step.role === 'system' || step.role === 'user') {
      if (step.message) out.push({ role: step.role, content: step.message });
      for (const o of step.observations) out.push({ role: 'user', content: o.output });
    } else if (step.role === 'environment') {
      for (const o of step.observations) out.push({ role: 'user', content: o.output });
      if (step.message) out.push({ role: 'user', content: step.message });
    } else if (usesToolCalls(step)) {
      out.push({
        role: 'assistant',
        content: step.message,
        tool_calls: step.actions.map((a) => ({ id: a.callId!, type: 'function', function: { name: a.tool!, arguments: JSON.stringify(a.arguments ?? (a.command !== null ? { command: a.command } : {})) } })),
      });
      // The API wants one tool message per call: by call id, else by position; a call without one gets a note.
      const used = new Set<number>();
      step.actions.forEach((a, k) => {
        let i = step.observations.findIndex((o, j) => !used.has(j) && o.callId === a.callId);
        if (i < 0 && step.observations[k] && !step.observations[k].callId && !used.has(k)) i = k;
        if (i >= 0) used.add(i);
        out.push({ role: 'tool', tool_call_id: a.callId!, content: i >= 0 ? recordedObservation(rollout, step, i) : '(no output was recorded)' });
      });
      step.observations.forEach((_, i) => {
        if (!used.has(i)) out.push({ role: 'user', content: recordedObservation(rollout, step, i) });
      });
    } else {
      out.push({ role: 'assistant', content: step.message });
      step.observations.forEach((_, i) => out.push({ role: 'user', content: recordedObservation(rollout, step, i) }));
    }
  }
  return out;
}

/**
 * The OpenAI function tool a branch offers when the rollout's agent used tool calls: one shell tool
 * `{command}`, named as the rollout's own shell tool (`execute_bash` for OpenHands; the name its
 * shell actions used most), else `bash`. Null when the rollout's agent did not use tool calls.
 */
export function shellToolFor(rollout: Rollout): { type: 'function'; function: { name: string; description: string; parameters: unknown } } | null {
  const names = new Map<string, number>();
  let toolCalls = false;
  for (const s of rollout.steps) {
    if (s.role !== 'agent' || !usesToolCalls(s)) continue;
    toolCalls = true;
    for (const a of s.actions) if (a.kind === 'shell' && a.tool) names.set(a.tool, (names.get(a.tool) ?? 0) + 1);
  }
  if (!toolCalls) return null;
  const name = [...names].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'bash';
  return {
    type: 'function',
    function: {
      name,
      description: 'Run a bash command in the task environment; its output and return code come back.',
      parameters: { type: 'object', properties: { command: { type: 'string', description: 'the command line' } }, required: ['command'] },
    },
  };
}
