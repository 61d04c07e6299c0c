// The clip probe cache: probes remembered per file version on disk in the settings folder (a new process reads them
// without ffprobe), asked again when the file changes or the entry is damaged; and a take rendered on the built-in
// engine probed once in place by its render job, so assembling it in a new process starts no ffprobe.
import { mkdir, readdir, readFile, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assembleEpisode } from "../lib/assemble/assemble.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { clipInfoOf, probeCacheDir, probeClipCached } from "../lib/media/probe-cache.ts";
import type { MediaTools } from "../lib/media/tools.ts";
import { createCaches } from "../lib/store/caches.ts";
import { renderJob } from "../workers/jobs/render.ts";
import { hostMedia } from "./support/ctx.ts";
import { jobEnded } from "./support/jobs.ts";
import { makeClip, useMediaStudio } from "./support/media.ts";
import { SCRIPT, type Studio } from "./support/studio-episode.ts";

const media = useMediaStudio({ render: renderJob });
let s: Studio;
let ffmpeg: string;
let store: JobStore;
let dir: string;

beforeAll(async () => {
  ({ s, ffmpeg, store } = media);
  dir = path.join(s.env.dir, "clips");
  await mkdir(dir, { recursive: true });
});

/** The host's media tools, with every ffprobe run's last argument (the file) written down. */
function counted(media: MediaTools): { media: MediaTools; probed: string[] } {
  const probed: string[] = [];
  return {
    probed,
    media: {
      ...media,
      run(name, args, opts) {
        if (name === "ffprobe") probed.push(String(args[args.length - 1]));
        return media.run(name, args, opts);
      },
    },
  };
}

/** Services as a fresh process has them: empty caches, the same settings folder. */
function freshProcess() {
  const c = counted(hostMedia);
  return { services: { home: s.env.home, caches: createCaches(), media: c.media }, probed: c.probed };
}

/** A clip of `frames` at 24 fps, `width`×`height`, a pattern with a tone. */
const clip = (name: string, width = 64, height = 36, frames = 12) =>
  makeClip(ffmpeg, path.join(dir, name), { width, height, frames });

describe("probeClipCached", () => {
  it("probes a file once: a new process reads the stored probe without ffprobe, by the file's real path", async () => {
    const file = await clip("a.mp4");
    const first = freshProcess();
    const info = await probeClipCached(first.services, file);
    expect(info.video).toMatchObject({ codec: "h264", width: 64, height: 36, frames: 12, pixFmt: "yuv420p" });
    expect(info.audio).toMatchObject({ codec: "aac", sampleRate: 48000 });
    expect(first.probed).toEqual([file]);
    expect(await probeClipCached(first.services, file)).toEqual(info);
    expect(first.probed).toHaveLength(1);

    const stored = (await readdir(probeCacheDir(s.env.home), { recursive: true })).filter((f) =>
      f.endsWith(".json"),
    );
    expect(stored).toHaveLength(1);

    const link = path.join(dir, "a-link.mp4");
    await symlink(file, link);
    const second = freshProcess();
    expect(await probeClipCached(second.services, link)).toEqual(info);
    expect(second.probed).toEqual([]);
  });

  it("asks again when the file changes (size or time) and when the stored entry is damaged", async () => {
    const file = await clip("b.mp4", 64, 36, 12);
    const one = freshProcess();
    expect((await probeClipCached(one.services, file)).video?.frames).toBe(12);

    await clip("b.mp4", 96, 54, 24);
    const two = freshProcess();
    expect((await probeClipCached(two.services, file)).video).toMatchObject({ width: 96, frames: 24 });
    expect(two.probed).toEqual([file]);

    // Same bytes, another modification time: another version of the file.
    await utimes(file, new Date(), new Date(Date.now() - 60_000));
    const three = freshProcess();
    await probeClipCached(three.services, file);
    expect(three.probed).toEqual([file]);

    const entries = (await readdir(probeCacheDir(s.env.home), { recursive: true }))
      .filter((f) => f.endsWith(".json"))
      .map((f) => path.join(probeCacheDir(s.env.home), f));
    for (const e of entries) {
      const data = JSON.parse(await readFile(e, "utf8"));
      if (data.path === file) await writeFile(e, JSON.stringify({ ...data, info: { video: "nonsense" } }));
    }
    const four = freshProcess();
    expect((await probeClipCached(four.services, file)).video?.width).toBe(96);
    expect(four.probed).toEqual([file]);
  });

  it("rejects a gone file with ENOENT and a file that is not media with ffprobe's words, remembering neither", async () => {
    const p = freshProcess();
    await expect(probeClipCached(p.services, path.join(dir, "nothing.mp4"))).rejects.toMatchObject({
      code: "ENOENT",
    });
    const text = path.join(dir, "text.mp4");
    await writeFile(text, "not a video");
    await expect(probeClipCached(p.services, text)).rejects.toThrow(/Invalid data|moov atom/);
    await expect(probeClipCached(p.services, text)).rejects.toThrow();
    expect(p.probed).toEqual([text, text]);
  });

  it("reads back only well-formed probes", () => {
    const video = {
      codec: "h264",
      width: 8,
      height: 8,
      fps: null,
      frames: null,
      pixFmt: null,
      timescale: null,
      sar: null,
      duration: null,
    };
    expect(clipInfoOf({ duration: null, video, audio: null })).toEqual({
      duration: null,
      video,
      audio: null,
    });
    expect(clipInfoOf({ duration: 1, video: { ...video, width: "8" }, audio: null })).toBeNull();
    expect(
      clipInfoOf({ duration: 1, video: null, audio: { codec: "aac", sampleRate: "x", channels: 2 } }),
    ).toBeNull();
    expect(clipInfoOf({ duration: "1", video: null, audio: null })).toBeNull();
    expect(clipInfoOf([])).toBeNull();
  });
});

describe("a rendered take's probe", { timeout: 120_000 }, () => {
  it("is made by the render job, so a first assembly in a new process starts no ffprobe", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await s.call("POST", "/render", { ep });
    expect(res.body.queued).toHaveLength(3);
    for (const q of res.body.queued as { prompt_id: string }[])
      expect((await jobEnded(store, q.prompt_id)).status).toBe("succeeded");
    const p = freshProcess();
    const answer = await assembleEpisode({ ...s.env.services, ...p.services }, ep, "proxy");
    expect(answer.ok).toBe(true);
    expect(answer.report).toMatchObject({ clips: 3, copied: 3, reencoded: 0, frames: 72 + 48 + 48 });
    expect(
      p.probed.filter((f) => f.endsWith(".mp4") && f.includes(`${path.sep}renders_proxy${path.sep}sh`)),
    ).toEqual([]);
  });
});
