// The double's folders and the file routes' rules: annotated names (`x.png [output]`), the per-prefix save
// counter (continues from what is on disk), GET /view (Range, preview=, channel=, 400/403/404), and
// /upload/image + /upload/mask (dedupe by bytes, `name (1).ext`, overwrite only for "true"/"1").
import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { Profile } from "./types.ts";

export interface Dirs {
  base: string;
  input: string;
  output: string;
  temp: string;
  user: string;
}

export function dirByType(dirs: Dirs, type: string): string | null {
  if (type === "input") return dirs.input;
  if (type === "output") return dirs.output;
  if (type === "temp") return dirs.temp;
  return null;
}

/** `folder_paths.annotated_filepath`: a trailing ` [output]` / ` [input]` / ` [temp]` picks the folder. */
export function annotated(dirs: Dirs, name: string): [string, string | null] {
  for (const type of ["output", "input", "temp"]) {
    const suffix = ` [${type}]`;
    if (name.endsWith(suffix)) return [name.slice(0, -suffix.length), dirByType(dirs, type)];
  }
  return [name, null];
}

/** Does a LoadImage/LoadAudio value name an existing file (default folder: input)? */
export function annotatedExists(dirs: Dirs, value: string): boolean {
  const [name, dir] = annotated(dirs, value);
  const base = dir ?? dirs.input;
  const file = path.resolve(base, name);
  if (!within(base, file)) return false;
  return existsSync(file) && statSync(file).isFile();
}

export function within(root: string, file: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(file));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

const IMAGE_EXT = new Set([".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff"]);
const AUDIO_EXT = new Set([
  ".wav",
  ".flac",
  ".mp3",
  ".ogg",
  ".m4a",
  ".aac",
  ".opus",
  ".mp4",
  ".webm",
  ".mov",
  ".mkv",
]);
const VIDEO_EXT = new Set([".mp4", ".webm", ".mov", ".mkv", ".avi", ".gif"]);
/** LoadLatent lists only these. */
const LATENT_EXT = new Set([".latent"]);

/** Top-level input files offered by LoadImage / LoadAudio combos (sorted). */
export function inputFiles(dirs: Dirs, kind: "image" | "audio" | "video" | "latent"): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(dirs.input).filter((n) => statSync(path.join(dirs.input, n)).isFile());
  } catch {
    return [];
  }
  const exts =
    kind === "image" ? IMAGE_EXT : kind === "video" ? VIDEO_EXT : kind === "latent" ? LATENT_EXT : AUDIO_EXT;
  return names.filter((n) => exts.has(path.extname(n).toLowerCase())).sort();
}

/** `folder_paths.get_save_image_path`: subfolder from the prefix, counter = highest on disk + 1. */
export async function savePath(
  outDir: string,
  prefix: string,
): Promise<{ folder: string; name: string; counter: number; subfolder: string }> {
  const norm = path.posix.normalize(prefix.replace(/\\/g, "/"));
  const subfolder = path.posix.dirname(norm) === "." ? "" : path.posix.dirname(norm);
  const name = path.posix.basename(norm);
  const folder = path.join(outDir, subfolder);
  if (!within(outDir, folder)) throw new Error("Saving image outside the output folder is not allowed.");
  await mkdir(folder, { recursive: true });
  let counter = 1;
  for (const entry of readdirSync(folder)) {
    const head = entry.slice(0, name.length + 1);
    if (head.slice(0, -1).toLowerCase() !== name.toLowerCase() || head.at(-1) !== "_") continue;
    const digits = Number.parseInt(entry.slice(name.length + 1).split("_")[0], 10);
    if (Number.isFinite(digits) && digits + 1 > counter) counter = digits + 1;
  }
  return { folder, name, counter, subfolder };
}

const MIME: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".mov": "video/quicktime",
  ".wav": "audio/x-wav",
  ".flac": "audio/flac",
  ".mp3": "audio/mpeg",
  ".ogg": "audio/ogg",
  ".json": "application/json",
  ".txt": "text/plain",
  ".html": "text/html",
  ".htm": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".xml": "application/xml",
};
const DANGEROUS = new Set([".html", ".htm", ".js", ".css", ".svg", ".xml"]);

export function mimeOf(file: string): string {
  return MIME[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** GET /view. */
export async function view(
  dirs: Dirs,
  q: URLSearchParams,
  profile: Profile,
  method: string,
  range: string | undefined,
): Promise<Reply> {
  const raw = q.get("filename");
  if (raw === null) return { status: 404 };
  const [name, annotatedDir] = annotated(dirs, raw);
  if (!name) return { status: 400 };
  if (name.startsWith("/") || name.includes("..")) return { status: 400 };
  let dir = annotatedDir ?? dirByType(dirs, q.get("type") ?? "output");
  if (dir === null) return { status: 400 };
  const subfolder = q.get("subfolder");
  if (subfolder !== null) {
    const full = path.resolve(dir, subfolder);
    if (!within(dir, full)) return { status: 403 };
    dir = full;
  }
  const file = path.join(dir, path.basename(name));
  let size: number;
  try {
    const st = await stat(file);
    if (!st.isFile()) return { status: 404 };
    size = st.size;
  } catch {
    return { status: 404 };
  }
  const base = path.basename(file);
  const preview = q.get("preview");
  const channel = q.get("channel") ?? "rgba";
  if (preview !== null || channel !== "rgba") {
    const bytes = await readFile(file);
    try {
      if (preview !== null) {
        const parts = preview.split(";");
        let format = parts[0];
        if ((format !== "webp" && format !== "jpeg") || (q.get("channel") ?? "").includes("a"))
          format = "webp";
        const last = parts.at(-1) ?? "";
        const quality = /^\d+$/.test(last) ? Number(last) : 90;
        let img = sharp(bytes);
        if (format === "jpeg") img = img.flatten().jpeg({ quality });
        else img = img.webp({ quality });
        return {
          status: 200,
          headers: { "Content-Type": `image/${format}`, "Content-Disposition": `filename="${base}"` },
          body: await img.toBuffer(),
        };
      }
      if (channel === "rgb") {
        return {
          status: 200,
          headers: { "Content-Type": "image/png", "Content-Disposition": `filename="${base}"` },
          body: await sharp(bytes).removeAlpha().png().toBuffer(),
        };
      }
      if (channel === "a") {
        const img = sharp(bytes).ensureAlpha();
        const body = await img.extractChannel("alpha").png().toBuffer();
        return {
          status: 200,
          headers: { "Content-Type": "image/png", "Content-Disposition": `filename="${base}"` },
          body,
        };
      }
    } catch {
      return { status: 500, headers: { "Content-Type": "text/plain" }, body: "500 Internal Server Error" };
    }
  }
  const ext = path.extname(base).toLowerCase();
  const headers: Record<string, string> = {
    "Content-Type": mimeOf(base),
    "Content-Disposition": `filename="${base}"`,
    "Accept-Ranges": "bytes",
  };
  if (profile === "new") {
    headers["X-Content-Type-Options"] = "nosniff";
    if (DANGEROUS.has(ext)) {
      headers["Content-Type"] = "application/octet-stream";
      headers["Content-Disposition"] = `attachment; filename="${base}"`;
    }
  }
  if (range) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    if (m && (m[1] !== "" || m[2] !== "")) {
      let start: number;
      let end: number;
      if (m[1] === "") {
        start = Math.max(0, size - Number(m[2]));
        end = size - 1;
      } else {
        start = Number(m[1]);
        end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
      }
      if (start >= size || start > end) {
        return { status: 416, headers: { "Content-Range": `bytes */${size}` } };
      }
      const bytes = method === "HEAD" ? Buffer.alloc(0) : (await readFile(file)).subarray(start, end + 1);
      return {
        status: 206,
        headers: {
          ...headers,
          "Content-Range": `bytes ${start}-${end}/${size}`,
          "Content-Length": String(end - start + 1),
        },
        body: bytes,
      };
    }
  }
  return { status: 200, headers, body: method === "HEAD" ? Buffer.alloc(0) : await readFile(file) };
}

export interface UploadResult {
  reply: Reply;
  record?: {
    filename: string;
    name: string;
    subfolder: string;
    type: string;
    size: number;
    sha1: string;
    deduped: boolean;
    file: string;
    overwrite: string | null;
  };
}

/** POST /upload/image and /upload/mask over a parsed multipart form. */
export async function upload(dirs: Dirs, form: FormData, mask: boolean): Promise<UploadResult> {
  const image = form.get("image");
  const overwrite = typeof form.get("overwrite") === "string" ? (form.get("overwrite") as string) : null;
  const typeField = form.get("type");
  const type = typeof typeField === "string" ? typeField : "input";
  const uploadDir = dirByType(dirs, type);
  if (uploadDir === null)
    return {
      reply: { status: 500, headers: { "Content-Type": "text/plain" }, body: "500 Internal Server Error" },
    };
  if (!image || typeof image === "string") return { reply: { status: 400 } };
  const filename = (image as File).name;
  if (!filename) return { reply: { status: 400 } };
  const subfolderField = form.get("subfolder");
  const subfolder = typeof subfolderField === "string" ? subfolderField : "";
  const folder = path.join(uploadDir, path.normalize(subfolder || "."));
  let file = path.resolve(folder, filename);
  if (!within(uploadDir, file)) return { reply: { status: 400 } };
  let bytes: Buffer = Buffer.from(await (image as File).arrayBuffer());
  if (mask) {
    const made = await mergeMask(dirs, form, bytes);
    if ("reply" in made) return { reply: made.reply };
    bytes = made.bytes ?? bytes;
    if (made.bytes === null) {
      // The original did not exist: the real handler writes nothing but still answers.
      return { reply: json({ name: filename, subfolder, type }) };
    }
  }
  await mkdir(folder, { recursive: true });
  let name = filename;
  let deduped = false;
  if (overwrite !== "true" && overwrite !== "1") {
    const ext = path.extname(filename);
    const stem = filename.slice(0, filename.length - ext.length);
    let i = 1;
    while (existsSync(file)) {
      if (sha256(await readFile(file)) === sha256(bytes)) {
        deduped = true;
        break;
      }
      name = `${stem} (${i})${ext}`;
      file = path.join(folder, name);
      i++;
    }
  }
  if (!deduped) await writeFile(file, bytes);
  return {
    reply: json({ name, subfolder, type }),
    record: {
      filename,
      name,
      subfolder,
      type,
      size: bytes.length,
      sha1: createHash("sha1").update(bytes).digest("hex"),
      deduped,
      file,
      overwrite,
    },
  };
}

async function mergeMask(
  dirs: Dirs,
  form: FormData,
  maskBytes: Buffer,
): Promise<{ bytes: Buffer | null } | { reply: Reply }> {
  const refField = form.get("original_ref");
  let ref: { filename?: string; subfolder?: string; type?: string };
  try {
    ref = JSON.parse(typeof refField === "string" ? refField : "");
  } catch {
    return {
      reply: { status: 500, headers: { "Content-Type": "text/plain" }, body: "500 Internal Server Error" },
    };
  }
  const [name, annotatedDir] = annotated(dirs, String(ref.filename ?? ""));
  if (!name || name.startsWith("/") || name.includes("..")) return { reply: { status: 400 } };
  let dir = annotatedDir ?? dirByType(dirs, ref.type ?? "output");
  if (dir === null) return { reply: { status: 400 } };
  if (ref.subfolder) {
    const full = path.resolve(dir, ref.subfolder);
    if (!within(dir, full)) return { reply: { status: 403 } };
    dir = full;
  }
  const original = path.join(dir, name);
  if (!existsSync(original)) return { bytes: null };
  const base = sharp(await readFile(original)).ensureAlpha();
  const meta = await base.metadata();
  const alpha = await sharp(maskBytes)
    .ensureAlpha()
    .extractChannel("alpha")
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (alpha.info.width !== meta.width || alpha.info.height !== meta.height) {
    return {
      reply: { status: 500, headers: { "Content-Type": "text/plain" }, body: "500 Internal Server Error" },
    };
  }
  const rgb = await sharp(await readFile(original))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const bytes = await sharp(rgb.data, {
    raw: { width: rgb.info.width, height: rgb.info.height, channels: 3 },
  })
    .joinChannel(alpha.data, { raw: { width: alpha.info.width, height: alpha.info.height, channels: 1 } })
    .png()
    .toBuffer();
  return { bytes };
}

function sha256(b: Buffer): string {
  return createHash("sha256").update(b).digest("hex");
}

export function json(value: unknown, status = 200): Reply {
  return {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8" },
    body: JSON.stringify(value),
  };
}
