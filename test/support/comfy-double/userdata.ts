// User data routes (engines A.14) over <base>/user/default: saved workflows, listings (v1 and v2), file
// read/write/delete/move with URL-encoded paths, /users and /settings.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { json, type Reply, within } from "./files.ts";

const text = (status: number, body = ""): Reply => ({
  status,
  headers: body ? { "Content-Type": "text/plain; charset=utf-8" } : {},
  body,
});

async function walk(dir: string, recurse: boolean): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isFile()) out.push(full);
    else if (entry.isDirectory() && recurse) out.push(...(await walk(full, true)));
  }
  return out;
}

async function fileInfo(file: string, root: string) {
  const st = await stat(file);
  return {
    path: path.relative(root, file).split(path.sep).join("/"),
    size: st.size,
    modified: st.mtimeMs / 1000,
    created: st.ctimeMs / 1000,
  };
}

/** Resolve a user path; null when it escapes the user root (403). Creates the parent like the real server. */
async function userPath(root: string, rel: string, create = true): Promise<string | null> {
  const file = path.resolve(root, rel);
  if (!within(root, file)) return null;
  if (create) await mkdir(path.dirname(file), { recursive: true });
  return file;
}

export async function userdataRoute(
  userRoot: string,
  method: string,
  seg: string[],
  q: URLSearchParams,
  body: Buffer,
): Promise<Reply | null> {
  const root = path.join(userRoot, "default");
  const get = method === "GET" || method === "HEAD";
  if (seg[0] === "users" && seg.length === 1 && get) return json({ storage: "server", migrated: true });
  if (seg[0] === "settings") {
    const file = path.join(root, "comfy.settings.json");
    const load = async (): Promise<Record<string, unknown>> =>
      existsSync(file) ? JSON.parse(await readFile(file, "utf8")) : {};
    const save = async (v: Record<string, unknown>) => {
      await mkdir(root, { recursive: true });
      await writeFile(file, JSON.stringify(v, null, 4));
    };
    if (seg.length === 1 && get) return json(await load());
    if (seg.length === 2 && get) return json((await load())[seg[1]] ?? null);
    if (method === "POST") {
      const value = JSON.parse(body.toString("utf8") || "null");
      const settings = await load();
      if (seg.length === 1) Object.assign(settings, value);
      else if (seg.length === 2) settings[seg[1]] = value;
      else return null;
      await save(settings);
      return { status: 200 };
    }
    return null;
  }
  if (seg[0] === "v2" && seg[1] === "userdata" && seg.length === 2 && get) {
    if (!existsSync(root)) return json([]);
    const target = path.resolve(root, q.get("path") ?? "");
    if (!within(root, target)) return text(403, "Invalid path");
    if (!existsSync(target)) return text(404, "Path not found");
    if (!(await stat(target)).isDirectory()) return text(400, "Path is not a directory");
    const items: Record<string, unknown>[] = [];
    const scan = async (dir: string) => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        const rel = path.relative(root, full).split(path.sep).join("/");
        if (entry.isDirectory()) {
          items.push({ name: entry.name, path: rel, type: "directory" });
          await scan(full);
        } else if (entry.isFile()) {
          const st = await stat(full);
          items.push({
            name: entry.name,
            path: rel,
            type: "file",
            size: st.size,
            modified: st.mtimeMs / 1000,
          });
        }
      }
    };
    await scan(target);
    items.sort((a, b) =>
      a.type !== b.type ? (a.type === "directory" ? -1 : 1) : String(a.path).localeCompare(String(b.path)),
    );
    return json(items);
  }
  if (seg[0] !== "userdata") return null;
  if (seg.length === 1 && get) {
    const dir = q.get("dir") ?? "";
    if (!dir) return text(400, "Directory not provided");
    const base = path.resolve(root, dir);
    if (!within(root, base)) return text(403, "Invalid directory");
    if (!existsSync(base)) return text(404, "Directory not found");
    const recurse = (q.get("recurse") ?? "").toLowerCase() === "true";
    const full = (q.get("full_info") ?? "").toLowerCase() === "true";
    const split = (q.get("split") ?? "").toLowerCase() === "true";
    const files = await walk(base, recurse);
    const out = await Promise.all(
      files.map(async (f) => {
        if (full) return fileInfo(f, base);
        const rel = path.relative(base, f).split(path.sep).join("/");
        return split ? [rel, ...rel.split("/")] : rel;
      }),
    );
    return json(out);
  }
  const fullInfo = (q.get("full_info") ?? "false").toLowerCase() === "true";
  const overwrite = (q.get("overwrite") ?? "true") !== "false";
  if (seg.length === 2) {
    if (!seg[1]) return { status: 400 };
    const file = await userPath(root, seg[1], method === "POST");
    if (file === null) return { status: 403 };
    if (get) {
      if (!existsSync(file) || !(await stat(file)).isFile()) return { status: 404 };
      return {
        status: 200,
        headers: { "Content-Type": "application/octet-stream" },
        body: await readFile(file),
      };
    }
    if (method === "DELETE") {
      if (!existsSync(file)) return { status: 404 };
      await rm(file);
      return { status: 204 };
    }
    if (method === "POST") {
      if (!overwrite && existsSync(file)) return text(409, "File already exists");
      await writeFile(file, body);
      return json(
        fullInfo ? await fileInfo(file, root) : path.relative(root, file).split(path.sep).join("/"),
      );
    }
    return null;
  }
  if (seg.length === 4 && seg[2] === "move" && method === "POST") {
    const source = await userPath(root, seg[1], false);
    if (source === null) return { status: 403 };
    if (!existsSync(source)) return { status: 404 };
    const dest = await userPath(root, seg[3]);
    if (dest === null) return { status: 403 };
    if (!overwrite && existsSync(dest)) return text(409, "File already exists");
    await rename(source, dest);
    return json(fullInfo ? await fileInfo(dest, root) : path.relative(root, dest).split(path.sep).join("/"));
  }
  return null;
}
