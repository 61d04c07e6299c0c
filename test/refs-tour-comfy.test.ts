// Camera tours on a ComfyUI video target for real: POST /studio/refs/tour with `target: ltx2` against the ComfyUI
// double (the real protocol), a job store and a WorkerPool running the `tour` job; the plate uploaded and loaded as
// the graph's first frame, the move as the prompt, the length on ltx2's frame grid, the returned video kept as the
// tour's and its held moments cut as takes; the sidecar names the target and backend.
import { mkdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { tourJob } from "../workers/jobs/tour.ts";
import { jobEnded, useComfyStudio } from "./support/comfy-studio.ts";
import { SCRIPT } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const c = useComfyStudio();
beforeAll(() => {
  c.pool({ tour: tourJob });
});
const ended = (id: string, ms?: number): Promise<Any> => jobEnded(c.store, id, ms);

describe("POST /studio/refs/tour on a ComfyUI video target", () => {
  it("renders the move on ltx2 from the plate as the first frame, keeps the video and cuts its holds", async () => {
    const ep = await c.s.episode(SCRIPT);
    const ffmpeg = (await mediaTools(c.s.env.services.media)).ffmpeg;
    const src = path.join(ep, "_in", "plate.png");
    await mkdir(path.dirname(src), { recursive: true });
    await execa(ffmpeg, [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=320x180:d=1",
      "-frames:v",
      "1",
      src,
    ]);
    const imported = await c.s.call("POST", "/refs/import", {
      ep,
      ref: "location:kitchen",
      source_path: "_in/plate.png",
      pick: true,
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);

    const res = await c.s.call("POST", "/refs/tour", {
      ep,
      ref: "location:kitchen",
      move: "pan_left",
      seconds: 2,
      seed: "77",
      target: "ltx2",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [q] = res.body.queued;
    expect((await c.store.get(q.backend_prompt_id))?.lane).toBe("local");
    const job = await ended(q.backend_prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job)).toBe("succeeded");

    const dir = path.join(ep, "refs/_takes/location__kitchen/_tours");
    const sc: Any = JSON.parse(await readFile(path.join(dir, "tour_t01.json"), "utf8"));
    expect(sc).toMatchObject({
      status: "ok",
      target: "ltx2",
      backend: "local",
      video: "tour_t01.mp4",
      seed: "77",
    });
    expect(sc.prompt).toMatch(/^the camera makes a slow pan to the left through .+, no people$/);
    expect(sc.holds.length).toBeGreaterThanOrEqual(1);
    expect((await stat(path.join(dir, "tour_t01.mp4"))).size).toBeGreaterThan(0);
    expect(
      (await stat(path.join(ep, "refs/_takes/location__kitchen/location__kitchen_tour_t01.png"))).size,
    ).toBeGreaterThan(0);

    // The graph ComfyUI got: the plate uploaded and loaded, the prompt and 2 s on ltx2's grid (8n+1).
    expect(c.double.uploads.length).toBeGreaterThanOrEqual(1);
    const last: Any = c.double.prompts.at(-1);
    const graph: Any = last.body.prompt;
    const nodes: Any[] = Object.values(graph);
    const uploaded = c.double.uploads.map((u) => u.name.split("/").pop());
    const loaded = nodes.map((n) => n.inputs?.image).filter((v) => typeof v === "string");
    expect(loaded.some((v: string) => uploaded.includes(v.split("/").pop()))).toBe(true);
    expect(JSON.stringify(graph)).toContain(sc.prompt);
    const lengths = nodes.map((n) => n.inputs?.length).filter((v) => typeof v === "number");
    expect(lengths).toContain(49);
    await afterAnswerSettled(c.s.env.services, ep);
  });
});
