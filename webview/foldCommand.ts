/**
 * The command a step's action was parsed from, folded out of its message: mini-swe-agent (and
 * other text-protocol agents) write the command in a fenced block of the reply, which the loader
 * turns into the step's shell action; the card shows that action, so the message need not show it
 * again. Pure (no DOM), shared by the step card and its tests.
 */

/** Fenced code blocks: ```` ```lang\n…\n``` ```` (the fence on its own line or ending the body). */
const FENCE = /(^|\n)[ \t]*```[^\n`]*\n([\s\S]*?)\n?[ \t]*```[ \t]*(?=\n|$)/g;

/** A message with the fenced blocks that became actions removed, and how many were. */
export interface FoldedMessage {
  /** The message without those blocks (blank lines they leave collapsed, trimmed). */
  text: string;
  /** Number of blocks folded out (0: `text` is the message as written). */
  folded: number;
}

/**
 * Removes every fenced code block of `message` whose body, trimmed, equals the trimmed `command`
 * of one of `actions` (shell, keys and finish commands alike); other blocks (code the agent
 * discusses) stay. Never throws.
 */
export function foldActionBlocks(message: string, actions: readonly { command?: string | null }[]): FoldedMessage {
  const commands = new Set(actions.map((a) => a.command?.trim()).filter((c): c is string => !!c));
  if (!commands.size || !message.includes('```')) return { text: message, folded: 0 };
  let folded = 0;
  const text = message.replace(FENCE, (block: string, lead: string, body: string) => {
    if (!commands.has(body.trim())) return block;
    folded++;
    return lead;
  });
  if (!folded) return { text: message, folded: 0 };
  return { text: text.replace(/\n{3,}/g, '\n\n').trim(), folded };
}
