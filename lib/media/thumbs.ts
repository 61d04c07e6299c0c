// Thumbnails for GET /studio/thumb: fixed width steps, JPEG on white, cached on disk, two made at a time.
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import path from "node:path";
import { type Fence, readShowFile, statShow } from "../paths/guarded.ts";
import { writeFileAtomic } from "../store/atomic.ts";
import { cacheSlot, type WithCaches } from "../store/caches.ts";

/** The widths a thumbnail is made at; a request is rounded up to the next one (capped at the last). */
export const THUMB_WIDTHS: readonly number[] = [128, 256, 512, 1024];

export function thumbWidth(requested: number): number {
  return THUMB_WIDTHS.find((w) => w >= requested) ?? THUMB_WIDTHS[THUMB_WIDTHS.length - 1];
}

/** At most `limit` tasks run at once; the rest wait their turn in arrival order. */
export class Semaphore {
  readonly limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError("a semaphore needs a limit of at least 1");
    this.limit = limit;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot jump the queue.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

// The contract's "two threads" for thumbnails, shared by every request of the process, and the makings under way
// (two requests for the same picture share one).
const THUMBS = cacheSlot("thumbnails", () => ({
  queue: new Semaphore(2),
  inFlight: new Map<string, Promise<string | null>>(),
}));

// Formats sharp decodes; anything else (video, audio, text) is served as is without trying.
const PICTURES = new Set([".png", ".jpg", ".jpeg", ".webp", ".gif", ".tif", ".tiff", ".avif"]);

// A picture larger than this is served as is rather than decoded in the request path.
const MAX_SOURCE_BYTES = 256 * 1024 * 1024;

export function thumbCacheDir(home: string): string {
  return path.join(home, "cache", "thumbs");
}

/**
 * The cached JPEG of `file` at `width` (made when missing), or null when the file is not a picture sharp can
 * read. The picture is read only where it really lies inside the fence; the cache is the settings folder's.
 * The cache name covers path, size and modification time, so a changed file gets a new thumbnail.
 */
export async function thumbnail(
  services: WithCaches & { readonly home: string },
  fence: Fence,
  file: string,
  width: number,
): Promise<string | null> {
  if (!PICTURES.has(path.extname(file).toLowerCase())) return null;
  const info = await statShow(fence, file);
  if (!info.isFile() || info.size > MAX_SOURCE_BYTES) return null;
  const key = createHash("sha1").update(`${file}|${info.size}|${info.mtimeMs}|${width}`).digest("hex");
  const out = path.join(thumbCacheDir(services.home), `${key}.jpg`);
  if (await exists(out)) return out;
  const { queue, inFlight } = services.caches.of(THUMBS);
  let pending = inFlight.get(out);
  if (!pending) {
    pending = queue.run(() => make(fence, file, out, width)).finally(() => inFlight.delete(out));
    inFlight.set(out, pending);
  }
  return pending;
}

async function make(fence: Fence, file: string, out: string, width: number): Promise<string | null> {
  const { default: sharp } = await import("sharp");
  if (await exists(out)) return out;
  // Read into memory rather than by name: libvips caches decoded files by name and would miss a rewrite.
  const input = await readShowFile(fence, file);
  let jpeg: Buffer;
  try {
    jpeg = await sharp(input, { animated: false })
      .rotate()
      .resize({ width, withoutEnlargement: true })
      .flatten({ background: "#ffffff" })
      .jpeg({ quality: 82, mozjpeg: true })
      .toBuffer();
  } catch {
    return null;
  }
  // A thumbnail can be made again: no need to wait for the disk.
  await writeFileAtomic(out, jpeg, { durable: false });
  return out;
}

async function exists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
