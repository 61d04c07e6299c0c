// Atomic file writes: a temporary file in the same folder, synced, then a rename over the target.
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { errorCode } from "./json-guards.ts";
import { tempPath } from "./temp-names.ts";

export interface AtomicOptions {
  /**
   * Default true: the data reaches the disk before the rename and the rename before the call returns, so a
   * power cut leaves the old file or the new one. Only files that can be made again (thumbnails) pass false.
   */
  durable?: boolean;
}

/** Write `data` to `file` so that readers see either the old bytes or the new, never a half. */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  opts: AtomicOptions = {},
): Promise<void> {
  const durable = opts.durable !== false;
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  // The name's shape lets a start-up sweep remove leftovers whose process is gone.
  const tmp = tempPath(file);
  try {
    // "wx": never write through a file or link already at the temporary name.
    const handle = await open(tmp, "wx");
    try {
      await handle.writeFile(data);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await renameRetry(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  if (durable) await syncFolder(dir);
}

/** JSON with a 2-space indent and a final newline. */
export async function writeJsonAtomic(file: string, value: unknown, opts?: AtomicOptions): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, opts);
}

/** Make a file's bytes reach the disk (before it is renamed to its real name). */
export async function syncFile(file: string): Promise<void> {
  const handle = await open(file, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Make a rename or create in `dir` survive a power cut (folders cannot be opened on Windows: skipped there). */
export async function syncFolder(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch (err) {
    // Some file systems (network shares) refuse fsync on a folder; the rename has happened all the same.
    const code = errorCode(err);
    if (code !== "EINVAL" && code !== "ENOTSUP" && code !== "EPERM") throw err;
  } finally {
    await handle.close();
  }
}

// Windows (and some network shares) report a busy target for a moment after a reader closes it.
async function renameRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (err) {
      const code = errorCode(err);
      if (attempt >= 5 || (code !== "EBUSY" && code !== "EPERM" && code !== "EACCES")) throw err;
      await new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
    }
  }
}
