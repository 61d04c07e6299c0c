// from-frame's instruction and relight's plate edits against the ComfyUI double: the frame take is edited on
// flux2_klein_edit and, for a character, the step turns the made view into the other three (each picked when
// asked); a relight edits the source's live plate into a candidate of the relit location, `count` per plate; the
// built-in card engine is refused before anything is cut or written.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { refJob } from "../workers/jobs/ref.ts";
import { stepJob } from "../workers/jobs/step.ts";
import { png, shippedImageModels, useComfyStudio } from "./support/comfy-studio.ts";
import { SCRIPT } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const c = useComfyStudio(shippedImageModels());
let ffmpeg = "ffmpeg";
beforeAll(async () => {
  ffmpeg = (await mediaTools(c.s.env.services.media)).ffmpeg;
});

/** Runs ref and step jobs until none is left queued or running; answers every job the store holds. */
async function runAll(): Promise<Any[]> {
  c.pool({ ref: refJob, step: stepJob });
  const until = Date.now() + 60_000;
  for (;;) {
    const jobs: Any[] = (await c.store.list()).jobs;
    if (jobs.every((j) => ["succeeded", "failed", "canceled"].includes(j.status))) return jobs;
    if (Date.now() > until) throw new Error(`timed out: ${JSON.stringify(jobs.map((j) => j.status))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function episode(): Promise<string> {
  const ep = await c.s.episode(SCRIPT);
  await png(path.join(ep, "refs/_bg/kitchen.png"), 1000, 600, "#d02020");
  const stem = await c.s.take(ep, "proxy", "sh010", 1, { frames: 24, sidecar: { width: 64, height: 48 } });
  const mp4 = path.join(ep, "renders_proxy", "sh010", `${stem}.mp4`);
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "color=gray:s=64x48:r=24:d=1"],
    ...["-frames:v", "24", "-c:v", "libx264", "-pix_fmt", "yuv420p", mp4],
  ]);
  return ep;
}

const sidecar = async (ep: string, key: string, stem: string): Promise<Any> =>
  JSON.parse(await readFile(path.join(ep, "refs/_takes", key, `${stem}.json`), "utf8"));

describe("from-frame with an instruction", () => {
  it("edits the frame take, then the step turns the made view into the other three, each picked", async () => {
    const ep = await episode();
    const before = c.double.prompts.length;
    const res = await c.s.call("POST", "/refs/from-frame", {
      ep,
      shot: "sh010",
      take: 1,
      ref: "subject:ada",
      instruction: "make her coat red",
      target: "flux2_klein_edit",
      pick: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.frame).toMatchObject({ take: 1, view: "01_threequarter", source: "frame" });
    expect(res.body.edits).toHaveLength(1);
    expect(res.body.step).toEqual(expect.any(String));
    expect(res.body.errors).toEqual([]);
    const edit = await c.store.get(res.body.edits[0]);
    expect(edit?.kind).toBe("ref");

    const jobs = await runAll();
    const steps = jobs.filter((j) => j.kind === "step");
    expect(
      steps.every((j) => j.status === "succeeded"),
      JSON.stringify(steps.map((j) => j.log)),
    ).toBe(true);
    // The step waited on the edit, then on the turns: more than one step job, all carrying the first's id.
    expect(steps.length).toBeGreaterThan(1);
    const refs = jobs.filter((j) => j.kind === "ref");
    expect(refs).toHaveLength(4);
    expect(refs.every((j) => j.status === "succeeded")).toBe(true);
    expect(c.double.prompts.slice(before).filter((p) => p.status === 200)).toHaveLength(4);

    const key = "subject__ada";
    const made = await sidecar(ep, key, "subject__ada_01_threequarter_t02");
    expect(made).toMatchObject({ status: "ok", source: "edited", edit: { take: 1, turn: false } });
    expect(made.edit.instruction).toBe("make her coat red");
    for (const view of ["02_side", "03_back", "04_face"]) {
      const t = await sidecar(ep, key, `subject__ada_${view}_t01`);
      expect(t).toMatchObject({
        status: "ok",
        source: "edited",
        edit: { take: 2, from_view: "01_threequarter", turn: true },
      });
    }
    const listed = await c.s.call("GET", "/refs", { ep });
    const ada = listed.body.refs.find((r: Any) => r.id === "subject:ada");
    const picked = Object.fromEntries(ada.views.map((v: Any) => [v.view, v.picked]));
    expect(picked).toEqual({ "01_threequarter": 2, "02_side": 1, "03_back": 1, "04_face": 1 });
  });

  it("a location's edit is queued with no turns; pick false leaves no step", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/from-frame", {
      ep,
      shot: "sh010",
      take: 1,
      ref: "location:street",
      instruction: "add rain",
      target: "flux2_klein_edit",
      pick: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.edits).toHaveLength(1);
    expect(res.body.step).toBeNull();
    const jobs = await runAll();
    expect(jobs.filter((j) => j.kind === "step" && j.payload?.ref === "location:street")).toEqual([]);
    expect(await sidecar(ep, "location__street", "location__street_t02")).toMatchObject({
      status: "ok",
      source: "edited",
    });
  });

  it("the built-in card engine is refused before the frame is cut", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/from-frame", {
      ep,
      shot: "sh010",
      take: 1,
      ref: "subject:ada",
      instruction: "make her coat red",
      target: "card",
    });
    expect(res.status).toBe(400);
    expect(String(res.body.error)).toMatch(/cannot edit pictures/);
    const listed = await c.s.call("GET", "/refs", { ep });
    const ada = listed.body.refs.find((r: Any) => r.id === "subject:ada");
    expect(ada.views.flatMap((v: Any) => v.takes ?? [])).toEqual([]);
  });
});

describe("relight's plate edits", () => {
  it("edits the source's live plate into candidates of the relit location, count per plate", async () => {
    const ep = await episode();
    const before = c.double.prompts.length;
    const res = await c.s.call("POST", "/refs/relight", {
      ep,
      relight: "night",
      locations: ["kitchen"],
      target: "flux2_klein_edit",
      count: 2,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued).toHaveLength(2);
    expect(res.body.queued[0]).toMatchObject({
      ref: "location:kitchen_night",
      take: 1,
      target: "flux2_klein_edit",
    });
    expect(res.body.queued[1]).toMatchObject({ ref: "location:kitchen_night", take: 2 });
    const jobs = await runAll();
    expect(jobs.filter((j) => j.kind === "ref").every((j) => j.status === "succeeded")).toBe(true);
    expect(c.double.prompts.slice(before).filter((p) => p.status === 200)).toHaveLength(2);
    const t = await sidecar(ep, "location__kitchen_night", "location__kitchen_night_t01");
    expect(t).toMatchObject({ status: "ok", source: "edited", edit: { from: "location:kitchen" } });
    expect(t.references[0]).toMatchObject({ image: 1, ref: "location:kitchen", from: "live" });
    expect(t.prompt ?? t.edit.instruction).toMatch(/Relight this scene as night/);
  });

  it("a plate with no live picture is an errors entry; the built-in engine is refused", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/relight", {
      ep,
      relight: "dusk",
      locations: ["street"],
      target: "flux2_klein_edit",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ ref: "location:street_dusk", source: "location:street" });
    expect(res.body.errors[0].error).toMatch(/no live picture/);
    const card = await c.s.call("POST", "/refs/relight", {
      ep,
      relight: "dawn",
      locations: ["kitchen"],
      target: "card",
    });
    expect(card.status).toBe(400);
    expect(String(card.body.error)).toMatch(/not an edit target/);
  });
});
