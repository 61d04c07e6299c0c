// Waiting in tests and benchmarks for something a process reaches in its own time: ask again until it answers.

export interface PollOptions {
  /** How long to wait before failing. */
  ms: number;
  /** The pause between asks (default 50 ms). */
  everyMs?: number;
  /** What the failure adds after its first line (a process's output, say). */
  said?: () => string;
}

/**
 * The probe's first truthy answer; throws naming `what` (and what `said` adds) when none came within `ms`. A probe
 * that throws ends the wait with its error: it is how a probe says waiting longer is pointless.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  { ms, everyMs = 50, said }: PollOptions,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}${said?.() ?? ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
