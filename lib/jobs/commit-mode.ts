// How the embedded job database commits. Its client runs statements synchronously on the event loop, so a commit
// that waits for the disk (synchronous=FULL, SQLite's default: one fsync per commit, 4 ms and far more while a
// render writes media) stalls every request. In WAL mode, synchronous=NORMAL syncs only at checkpoints: a crash of
// the process loses nothing and the file never corrupts; only a power cut may drop the last commits.
import type { Client } from "@libsql/client";

export const COMMIT_PRAGMA = "PRAGMA synchronous=NORMAL";

/**
 * Set the commit mode on the connection the next statement of `client` uses. The setting belongs to a connection
 * and the client opens connections on demand, so it is set before each write: writes go one at a time and the
 * client hands back the connection it used last, which is the one this statement ran on.
 */
export async function relaxCommits(client: Pick<Client, "execute">): Promise<void> {
  await client.execute(COMMIT_PRAGMA);
}
