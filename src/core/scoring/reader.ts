/**
 * The message reader both Node ends of the scorer protocol use on a scorer's stdout (the client in
 * ./client.ts and the conformance kit in ./check.ts): vscode-jsonrpc's StreamMessageReader with two
 * guards a scorer process cannot be trusted to keep:
 *
 * - a size cap: a message whose `Content-Length` is over `maxMessageBytes` is refused as soon as its
 *   header is read (before its body is buffered), so a 100 MB reply is never held nor cached;
 * - one reply per request: a response whose id was already answered is a protocol error (it is not
 *   passed on, so which of two answers counts never depends on timing).
 *
 * Both call `onProblem` with a short reason; the caller fails the scorer. Never imports `vscode`.
 */
import { StreamMessageReader, type DataCallback, type Disposable, type Message } from 'vscode-jsonrpc/node';

/** Default cap of one message from a scorer: 32 MiB (a batch of 12,800 steps with 1 KB explanations is ~15 MB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** Options of `GuardedMessageReader`. */
export interface GuardOptions {
  /** Largest message accepted, in bytes of content (default DEFAULT_MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
  /** Called once per problem found (the reader drops the offending message, and stops reading after a size breach). */
  onProblem: (reason: string) => void;
}

/** A StreamMessageReader with the size cap and the one-reply-per-request check of the module comment. */
export class GuardedMessageReader extends StreamMessageReader {
  private readonly answered = new Set<string>();
  private stopped = false;

  constructor(
    readable: NodeJS.ReadableStream,
    private readonly guard: GuardOptions,
  ) {
    super(readable);
    const self = this as unknown as { onData(d: Uint8Array): void; nextMessageLength: number };
    const onData = self.onData.bind(this);
    const max = guard.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    self.onData = (d: Uint8Array): void => {
      if (this.stopped) return;
      onData(d);
      if (self.nextMessageLength > max) {
        this.stopped = true;
        guard.onProblem(`the scorer sent a message of ${self.nextMessageLength} bytes, over the limit of ${max} bytes (a reply that size is refused, not read)`);
      }
    };
  }

  override listen(callback: DataCallback): Disposable {
    return super.listen((msg: Message) => {
      const m = msg as { id?: unknown; result?: unknown; error?: unknown; method?: unknown };
      const isResponse = m.method === undefined && ('result' in m || 'error' in m) && (typeof m.id === 'number' || typeof m.id === 'string');
      if (isResponse) {
        const key = `${typeof m.id}:${String(m.id)}`;
        if (this.answered.has(key)) {
          this.guard.onProblem(`the scorer answered request ${JSON.stringify(m.id)} twice (a second reply to one request is a protocol error)`);
          return;
        }
        this.answered.add(key);
      }
      callback(msg);
    });
  }
}
