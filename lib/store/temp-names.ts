// The names of every temporary file and work folder the service makes, and the owner each name encodes, so a
// sweep after a crash can tell a leftover (owner gone) from work in progress, and never touches anything else.
import { randomBytes } from "node:crypto";
import path from "node:path";

/** Who a leftover belongs to: a process of this host (by pid), or a job (by id). */
export type LeftoverOwner = { pid: number } | { job: string };

/** Job ids as the job store makes them; a work folder name carries one verbatim. */
const JOB_ID = /^j_[0-9a-f]{12}$/;

const hex8 = () => randomBytes(4).toString("hex");

/**
 * A hidden name for a temporary beside a file called `base`, used only by this process:
 * `.<base>.<pid>.<8 hex>.tmp`, plus `ext` when a tool needs the extension at the end (ffmpeg's image2 muxer, a
 * wav writer). For files and scratch folders alike.
 */
export function tempName(base: string, ext = "", pid = process.pid): string {
  if (ext && !/^\.[A-Za-z0-9]{1,8}$/.test(ext)) throw new Error(`tempName: ${ext} is not a file extension`);
  return `.${base}.${pid}.${hex8()}.tmp${ext}`;
}

/** `tempName` of `file`'s name, in `file`'s folder (same folder, so the final rename is atomic). */
export function tempPath(file: string, ext = "", pid = process.pid): string {
  return path.join(path.dirname(file), tempName(path.basename(file), ext, pid));
}

/** The assembler's scratch folder in `dir`: `.assemble-<pid>-<8 hex>`. */
export function assembleWorkPath(dir: string, pid = process.pid): string {
  return path.join(dir, `.assemble-${pid}-${hex8()}`);
}

/**
 * A render job's work folder in the take's folder: `.render_<stem>_<job id>`, the same for every attempt. Only
 * ids of the job store's shape are swept by job; any other id is made file-safe and left to its job to remove.
 */
export function jobWorkPath(dir: string, stem: string, jobId: string): string {
  const id = JOB_ID.test(jobId) ? jobId : jobId.replace(/[^A-Za-z0-9_-]/g, "_");
  return path.join(dir, `.render_${stem}_${id}`);
}

// Each pattern matches a whole name; anything else is not ours and is never touched.
const PATTERNS: readonly { re: RegExp; owner: (m: RegExpExecArray) => LeftoverOwner }[] = [
  {
    re: /^\.[^/\\]+\.(\d{1,10})\.[0-9a-f]{8}\.tmp(?:\.[A-Za-z0-9]{1,8})?$/,
    owner: (m) => ({ pid: Number(m[1]) }),
  },
  { re: /^\.assemble-(\d{1,10})-[0-9a-f]{8}$/, owner: (m) => ({ pid: Number(m[1]) }) },
  { re: /^\.render_[A-Za-z0-9_.-]+_t\d{2,}_(j_[0-9a-f]{12})$/, owner: (m) => ({ job: m[1] }) },
  // Names of earlier versions: downloads (`.part`) and keyframe cuts, both tagged with the writer's pid.
  { re: /^\.[^/\\]+\.(\d{1,10})\.part$/, owner: (m) => ({ pid: Number(m[1]) }) },
  { re: /^\.[^/\\]+\.(\d{1,10})\.cut\.png$/, owner: (m) => ({ pid: Number(m[1]) }) },
];

/** The owner a file or folder name encodes when it is one of the service's temporary names, else null. */
export function leftoverOwner(name: string): LeftoverOwner | null {
  for (const { re, owner } of PATTERNS) {
    const m = re.exec(name);
    if (!m) continue;
    const found = owner(m);
    if ("pid" in found && !(Number.isSafeInteger(found.pid) && found.pid > 0)) return null;
    return found;
  }
  return null;
}
