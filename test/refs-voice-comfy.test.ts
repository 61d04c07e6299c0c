// A voice candidate on `ltx2_voice` for real, through the ComfyUI double (the real protocol): PUT /studio/refs/
// defaults sets the episode's voice target, POST /studio/refs/generate-missing queues Ada's voice on it (lane local),
// a WorkerPool runs the `ref` job on the ComfyUI engine, and the candidate ends `ok` as a WAV beside its sidecar,
// the graph ComfyUI got carrying the voice's brief.
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { refJob } from "../workers/jobs/ref.ts";
import { jobEnded, useComfyStudio } from "./support/comfy-studio.ts";
import { seriesS } from "./support/series-s.ts";
import { SCRIPT } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const c = useComfyStudio();
beforeAll(() => {
  c.pool({ ref: refJob });
});
const ended = (id: string, ms?: number): Promise<Any> => jobEnded(c.store, id, ms);

describe("generate-missing with voice_target ltx2_voice", () => {
  it("queues the voice on ltx2_voice and it finishes ok as a WAV from ComfyUI", async () => {
    // Cloned voices and a shot on H3 where Ada speaks: that shot reads her voice sample, so it is missing.
    const series = seriesS();
    series.refs = { target: "card", keyframe_target: "card" };
    series.audio = { mode: "clone" };
    const script = SCRIPT.replace("who: ada", "who: ada\ntarget: minimax_h3_ref2va\nADA: Hi there.");
    const ep = await c.s.episode(script, { series });
    const set = await c.s.call("PUT", "/refs/defaults", { ep, voice_target: "ltx2_voice" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const res = await c.s.call("POST", "/refs/generate-missing", { ep, kinds: ["series"], pass: "final" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    const voice = res.body.queued.find((q: Any) => q.ref === "voice:ada");
    expect(voice, JSON.stringify(res.body.queued)).toMatchObject({ target: "ltx2_voice" });
    // Only the voice runs here: the pictures would go to the built-in lane, which no worker serves in this test.
    expect((await c.store.get(voice.prompt_id))?.lane).toBe("local");
    const job = await ended(voice.prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job)).toBe("succeeded");

    const dir = path.join(ep, "refs/_takes/voice__ada");
    const sc: Any = JSON.parse(await readFile(path.join(dir, "voice__ada_t01.json"), "utf8"));
    expect(sc).toMatchObject({
      status: "ok",
      target: "ltx2_voice",
      backend: "local",
      audio: "voice__ada_t01.wav",
    });
    const wav = await readFile(path.join(dir, "voice__ada_t01.wav"));
    expect(wav.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(wav.subarray(8, 12).toString("latin1")).toBe("WAVE");
    expect((await stat(path.join(dir, "voice__ada_t01.wav"))).size).toBeGreaterThan(44);
    const last: Any = c.double.prompts.at(-1);
    const texts = Object.values(last.body.prompt).map((n: Any) => n.inputs?.text);
    expect(texts).toContain(sc.prompt);
    await afterAnswerSettled(c.s.env.services, ep);
  });
});
