// POST /studio/track through the route table and over a real server: a recording by path or upload kept in
// audio/ (reused, numbered, in place), the series config's audio.track/mode written through the save path with
// the mode remembered and restored, the rebuild, the event, the track's facts, and every refusal of the route.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "./support/call.ts";
import { makeTone } from "./support/media.ts";
import { seriesS } from "./support/series-s.ts";
import { startServer } from "./support/server.ts";
import { routeFor, SCRIPT, useStudio } from "./support/studio-episode.ts";
import { postBody, uploadForm } from "./support/upload.ts";

const s = useStudio({ outside: true });

let tone: Buffer;
let toneB: Buffer;
beforeAll(async () => {
  tone = await tonePcm(440, 1.5);
  toneB = await tonePcm(660, 1.5);
});

/** A mono 22.05 kHz wav of a sine. */
const tonePcm = async (freq: number, seconds: number): Promise<Buffer> =>
  readFile(
    await makeTone("ffmpeg", path.join(s.env.dir, `tone-${freq}.wav`), seconds, freq, {
      rate: 22050,
      channels: 1,
    }),
  );

const post = (body: RequestInit["body"], headers: Record<string, string> = {}) =>
  postBody(routeFor("POST", "/track").fn, s.env.services, body, headers);

const json = (body: Record<string, unknown>) =>
  post(JSON.stringify(body), { "content-type": "application/json" });

const form = uploadForm;

async function put(file: string, data: Buffer | string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, data);
  return file;
}

const config = async (ep: string) => JSON.parse(await readFile(path.join(ep, "series.json"), "utf8"));
const overrides = async (ep: string) =>
  JSON.parse(await readFile(path.join(ep, "overrides.json"), "utf8").catch(() => "{}"));
const uploadsLeft = async () => readdir(path.join(s.env.home, "uploads")).catch(() => [] as string[]);
const events = () => s.env.events.map((e) => e.type);

describe("POST /studio/track (JSON source_path)", () => {
  it("copies the recording into audio/, sets the series track and mode, rebuilds, answers its facts", async () => {
    const ep = await s.episode(SCRIPT.replace("dur: 3", "audio: 0.2-1.2"));
    const src = await put(path.join(path.dirname(ep), "takes", "Dialogue mix!.wav"), tone);
    const res = await json({ ep, source_path: src });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      path: "audio/Dialogue mix_.wav",
      copied: true,
      reformatted: false,
      track: { path: "audio/Dialogue mix_.wav", exists: true, rate: 22050, words: 0, aligned: 1 },
    });
    expect(res.body.track.duration).toBeCloseTo(1.5, 2);
    expect(res.body.build.ok).toBe(true);
    expect(res.body.hash).toMatch(/^[0-9a-f]{40}$/);
    expect(await readFile(path.join(ep, "audio", "Dialogue mix_.wav"))).toEqual(tone);
    expect((await config(ep)).audio).toEqual({ mode: "source_track", track: "audio/Dialogue mix_.wav" });
    expect((await overrides(ep)).audio).toEqual({ mode_before_track: "generate" });
    expect(await readdir(path.join(ep, "_history"))).toHaveLength(1);
    expect(events()).toEqual(["studio.episode"]);
    // The episode answer names it too.
    const episode = await s.call("GET", "/episode", { ep, pass: "proxy" });
    expect(episode.body.track).toMatchObject({ path: "audio/Dialogue mix_.wav", exists: true });

    // The same bytes again: the same file; other bytes: a numbered name, and the series track follows.
    const again = await json({ ep, source_path: src, pass: "final" });
    expect(again.body).toMatchObject({ path: "audio/Dialogue mix_.wav", copied: true });
    await writeFile(src, toneB);
    const other = await json({ ep, source_path: src });
    expect(other.body.path).toBe("audio/Dialogue mix_-2.wav");
    expect((await config(ep)).audio.track).toBe("audio/Dialogue mix_-2.wav");
    expect((await overrides(ep)).audio).toEqual({ mode_before_track: "generate" });
  });

  it("uses a recording inside the episode where it is (copied false), by a relative path", async () => {
    const ep = await s.episode(SCRIPT);
    await put(path.join(ep, "sound", "mix.wav"), tone);
    const res = await json({ ep, source_path: "sound/mix.wav" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      path: "sound/mix.wav",
      copied: false,
      track: { path: "sound/mix.wav" },
    });
    await expect(readdir(path.join(ep, "audio"))).rejects.toThrow();
  });

  it("clears the track: mode restored, memory dropped, the recording kept", async () => {
    const ep = await s.episode(SCRIPT);
    await put(path.join(ep, "sound", "mix.wav"), tone);
    await json({ ep, source_path: "sound/mix.wav" });
    s.env.events.length = 0;
    const res = await json({ ep, track: null });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ track: null, path: null, copied: false, reformatted: false });
    expect(res.body.build.ok).toBe(true);
    expect((await config(ep)).audio).toEqual({ mode: "generate" });
    expect((await overrides(ep)).audio).toBeUndefined();
    expect(await readFile(path.join(ep, "sound", "mix.wav"))).toEqual(tone);
    expect(events()).toEqual(["studio.episode"]);
  });

  it("rewrites a config not in the 2-space layout, keeping its BOM and CRLF, and says so", async () => {
    const ep = await s.episode(SCRIPT);
    const compact = `\ufeff${JSON.stringify(seriesS())}\r\n`;
    await writeFile(path.join(ep, "series.json"), compact);
    await put(path.join(ep, "sound", "mix.wav"), tone);
    const res = await json({ ep, source_path: "sound/mix.wav" });
    expect(res.body.reformatted).toBe(true);
    const bytes = await readFile(path.join(ep, "series.json"));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString("utf8")).toContain('{\r\n  "series": {\r\n');
    const [copy] = await readdir(path.join(ep, "_history"));
    expect(await readFile(path.join(ep, "_history", copy), "utf8")).toBe(compact);
  });

  it("answers 200 when the rebuild fails", async () => {
    const ep = await s.episode(SCRIPT);
    await writeFile(path.join(ep, "ep01.md"), SCRIPT.replace("who: ada", "who: nobody_known"));
    await put(path.join(ep, "sound", "mix.wav"), tone);
    const res = await json({ ep, source_path: "sound/mix.wav" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.build.ok).toBe(false);
    expect((await config(ep)).audio.track).toBe("sound/mix.wav");
  });
});

describe("POST /studio/track refusals", () => {
  it("refuses bad forms and types", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await json({ ep, file: "x.wav" }), 400, "file must be sent as multipart/form-data");
    refusal(await json({ ep, source_path: 3 }), 400, /source_path/);
    refusal(await json({ ep }), 400, /source_path is required/);
    refusal(await json({ ep, track: "audio/x.wav" }), 400, /track/);
    refusal(await json({ ep, source_path: "a.wav", track: null }), 400, /not both/);
    refusal(await json({ ep, source_path: "ep01.md" }), 400, /not a recording/);
    refusal(await json({ ep, source_path: "audio/none.wav" }), 404, /no file/);
    refusal(
      await json({ ep, source_path: path.join(s.outside, "x.wav") }),
      403,
      /outside the configured roots/,
    );
    refusal(await json({ ep, source_path: "a.wav", pass: "draft" }), 400, /pass/);
    refusal(await post("ep=1", { "content-type": "text/plain" }), 400, /send JSON or multipart/);
    expect((await config(ep)).audio).toEqual({ mode: "generate" });
    expect(s.env.events).toEqual([]);
  });

  it("refuses a config that is not JSON and writes nothing at all", async () => {
    const ep = await s.episode(SCRIPT);
    await writeFile(path.join(ep, "series.json"), '{"series": ');
    const src = await put(path.join(path.dirname(ep), "in", "mix.wav"), tone);
    refusal(await json({ ep, source_path: src }), 400, /series.json is not valid JSON/, ["line", "col"]);
    expect(await readFile(path.join(ep, "series.json"), "utf8")).toBe('{"series": ');
    await expect(readdir(path.join(ep, "audio"))).rejects.toThrow();
    await expect(readdir(path.join(ep, "_history"))).rejects.toThrow();
    expect(s.env.events).toEqual([]);
  });
});

describe("POST /studio/track (multipart)", () => {
  it("keeps an uploaded recording under its cleaned name and sets it", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await post(form({ ep, pass: "final" }, { name: "Take #2.mp3", data: tone }));
    // The extension decides: the bytes are a wav, the probe still reads them.
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ path: "audio/Take _2.mp3", copied: true, track: { exists: true } });
    expect(await readFile(path.join(ep, "audio", "Take _2.mp3"))).toEqual(tone);
    expect(await uploadsLeft()).toEqual([]);
  });

  it("refuses a file that is not a recording, a name that is only an extension, a text file field, no file", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await post(form({ ep }, { name: "notes.txt", data: tone })), 400, /not a recording/);
    refusal(await post(form({ ep }, { name: ".wav", data: tone })), 400, /only an extension/);
    refusal(
      await post(form({ ep, file: "x.wav" })),
      400,
      "file must be a file: send it in the form with a filename (multipart/form-data)",
    );
    refusal(await post(form({ ep })), 400, /no file part/);
    expect(await uploadsLeft()).toEqual([]);
    await expect(readdir(path.join(ep, "audio"))).rejects.toThrow();
    expect(s.env.events).toEqual([]);
  });

  it("refuses an upload declared over 64 MB before reading it", async () => {
    const ep = await s.episode(SCRIPT);
    const boundary = "b0undary";
    refusal(
      await post(
        `--${boundary}\r\nContent-Disposition: form-data; name="ep"\r\n\r\n${ep}\r\n--${boundary}--`,
        {
          "content-type": `multipart/form-data; boundary=${boundary}`,
          "content-length": String(65 * 1024 * 1024 + 1),
        },
      ),
      413,
      "upload: larger than 64 MB",
    );
    expect(await uploadsLeft()).toEqual([]);
  });
});

describe("POST /studio/track over a real server", () => {
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
  });

  it("streams a multipart upload into audio/ and sets the track", async () => {
    const ep = await s.episode(SCRIPT);
    server = await startServer({ STUDIO_HOME: s.env.home, STUDIO_ROOTS: s.root });
    const res = await fetch(`${server.url}/studio/track`, {
      method: "POST",
      body: form({ ep }, { name: "voice.wav", data: tone }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      path: "audio/voice.wav",
      copied: true,
      track: { rate: 22050, exists: true },
    });
    expect(await readFile(path.join(ep, "audio", "voice.wav"))).toEqual(tone);
    expect((await config(ep)).audio.track).toBe("audio/voice.wav");
    await rm(path.join(ep, "audio"), { recursive: true });
  }, 60_000);
});
