/**
 * Waiting in tests: every wait follows an event (a condition becoming true), never a fixed pause,
 * and has a ceiling generous enough for a loaded 2-core machine. Shared by every tier.
 */

/** The ceiling of a wait for something the test has just caused (a render, a reply, a file write), in ms. */
export const WAIT_MS = 60_000;

/**
 * Polls `fn` every `everyMs` (default 100 ms) until it returns a truthy value, which it returns;
 * throws `message()` (with the last error `fn` threw, if any) once `timeoutMs` has passed.
 */
export async function waitUntil<T>(
  fn: () => T | Promise<T>,
  timeoutMs: number = WAIT_MS,
  message: () => string | Promise<string> = () => `the condition did not hold within ${timeoutMs / 1000} s`,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`${await message()}${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
