// POST /studio/audio/import through the route table: a recording by path or upload kept in audio/ (cleaned name,
// same bytes reused, other bytes numbered, a file inside the episode used in place), nothing else touched (no
// rebuild, no event, no config change, no reference candidate), and every refusal of the route.
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { refusal } from "./support/call.ts";
import { routeFor, SCRIPT, useStudio } from "./support/studio-episode.ts";
import { postBody, uploadForm } from "./support/upload.ts";

const s = useStudio({ outside: true });

const post = (body: RequestInit["body"], headers: Record<string, string> = {}) =>
  postBody(routeFor("POST", "/audio/import").fn, s.env.services, body, headers);

const json = (body: Record<string, unknown>) =>
  post(JSON.stringify(body), { "content-type": "application/json" });

const form = uploadForm;

async function put(file: string, data: Buffer | string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, data);
  return file;
}

const uploadsLeft = async () => readdir(path.join(s.env.home, "uploads")).catch(() => [] as string[]);
const snapshot = async (ep: string) => ({
  config: await readFile(path.join(ep, "series.json"), "utf8"),
  built: (await stat(path.join(ep, "shotlist", "shotlist_proxy.json"))).mtimeMs,
});

describe("POST /studio/audio/import", () => {
  it("keeps a file by path under its cleaned name, reuses the same bytes, numbers other bytes", async () => {
    const ep = await s.episode(SCRIPT);
    const before = await snapshot(ep);
    const src = await put(path.join(path.dirname(ep), "in", "Room tone [A].FLAC"), "tone-a");
    const first = await json({ ep, source_path: src });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ path: "audio/Room tone _A_.FLAC", copied: true });
    expect(await readFile(path.join(ep, "audio", "Room tone _A_.FLAC"), "utf8")).toBe("tone-a");
    expect((await json({ ep, source_path: src })).body).toEqual({
      path: "audio/Room tone _A_.FLAC",
      copied: true,
    });
    await writeFile(src, "tone-b");
    expect((await json({ ep, source_path: src })).body).toEqual({
      path: "audio/Room tone _A_-2.FLAC",
      copied: true,
    });
    expect(await readdir(path.join(ep, "audio"))).toEqual(["Room tone _A_-2.FLAC", "Room tone _A_.FLAC"]);
    // Nothing else: no event, the config and the build as they were, no reference candidate.
    expect(s.env.events).toEqual([]);
    expect(await snapshot(ep)).toEqual(before);
    await expect(readdir(path.join(ep, "refs", "_takes"))).rejects.toThrow();
  });

  it("uses a file inside the episode where it is", async () => {
    const ep = await s.episode(SCRIPT);
    await put(path.join(ep, "sfx", "door.ogg"), "door");
    const res = await json({ ep, source_path: "sfx/door.ogg" });
    expect(res.body).toEqual({ path: "sfx/door.ogg", copied: false });
    await expect(readdir(path.join(ep, "audio"))).rejects.toThrow();
  });

  it("keeps an uploaded file", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await post(form({ ep }, { name: "música.opus", data: Buffer.from("opus") }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ path: "audio/m_sica.opus", copied: true });
    expect(await readFile(path.join(ep, "audio", "m_sica.opus"), "utf8")).toBe("opus");
    expect(await uploadsLeft()).toEqual([]);
    expect(s.env.events).toEqual([]);
  });

  it("refuses every bad form, name and place", async () => {
    const ep = await s.episode(SCRIPT);
    const bad = await put(path.join(path.dirname(ep), "in", "notes.txt"), "x");
    await put(path.join(path.dirname(ep), "in", ".wav"), "x");
    await put(path.join(s.outside, "x.wav"), "x");
    refusal(await json({ ep, source_path: bad }), 400, /not a recording/);
    refusal(
      await json({ ep, source_path: path.join(path.dirname(ep), "in", ".wav") }),
      400,
      /only an extension/,
    );
    refusal(await json({ ep, source_path: "audio/missing.wav" }), 404, /no file/);
    refusal(
      await json({ ep, source_path: path.join(s.outside, "x.wav") }),
      403,
      /outside the configured roots/,
    );
    refusal(await json({ ep, source_path: "../../outside/x.wav" }), 400, /leaves the episode folder/);
    refusal(await json({ ep, source_path: 7 }), 400, /source_path/);
    refusal(await json({ ep }), 400, /source_path is required/);
    refusal(await json({ ep, file: "a.wav" }), 400, "file must be sent as multipart/form-data");
    refusal(await post(form({ ep }, { name: "a.mp4", data: Buffer.from("v") })), 400, /not a recording/);
    refusal(await post(form({ ep }, { name: ".m4a", data: Buffer.from("v") })), 400, /only an extension/);
    refusal(
      await post(form({ ep, file: "a.wav" })),
      400,
      "file must be a file: send it in the form with a filename (multipart/form-data)",
    );
    refusal(await post(form({ ep })), 400, "file: the form has no file part");
    refusal(
      await post("--b\r\n", {
        "content-type": "multipart/form-data; boundary=b",
        "content-length": String(65 * 1024 * 1024 + 1),
      }),
      413,
      "upload: larger than 64 MB",
    );
    expect(await uploadsLeft()).toEqual([]);
    await expect(readdir(path.join(ep, "audio"))).rejects.toThrow();
    expect(s.env.events).toEqual([]);
  });
});
