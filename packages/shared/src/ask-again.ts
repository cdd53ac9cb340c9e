/** How a request that fails for a passing reason is asked again (askAgain). */
export interface AskingAgain {
  /** whether the failure passes (a restart, an election), so that asking again can succeed */
  passing: (err: unknown) => boolean;
  /** how long it is asked again for; then its last failure is thrown */
  forMs: number;
  /** the pause between two asks */
  everyMs: number;
  /** told of the first passing failure (a log line, not one per ask) */
  onFirstFailure?: (err: unknown) => void;
}

/** `request`'s answer, asked again while it fails for a passing reason, for up to `forMs`. */
export async function askAgain<T>(
  request: () => Promise<T>,
  { passing, forMs, everyMs, onFirstFailure }: AskingAgain,
): Promise<T> {
  const deadline = Date.now() + forMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await request();
    } catch (err) {
      if (!passing(err) || Date.now() >= deadline) throw err;
      if (attempt === 0) onFirstFailure?.(err);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
