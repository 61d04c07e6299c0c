// Two chained shots rendered through the ComfyUI double on a target that holds latents: sh020's graph holds the end
// of sh010's take. With sh010's kept latent (`<stem>.latent.safetensors`, as the project's saver keeps it) the file
// is uploaded as ComfyUI's LoadLatent reads it (a `.latent` safetensors file in the input folder) and fed to the
// hold node in front of the first-stage sampler; without one, sh010's video is uploaded, split and encoded through
// the target's video VAE instead. The double validates every graph against its node catalogue.
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderJob } from "../workers/jobs/render.ts";
import { takeSidecar } from "./support/comfy-studio.ts";
import { jobEnded } from "./support/jobs.ts";
import { type Any, chainEpisode, useChainStudio } from "./support/latent-chain.ts";

const c = useChainStudio();

/** A safetensors file as ComfyUI's SaveLatent writes it: `latent_tensor` and the format marker. */
function latentFile(): Buffer {
  const data = Buffer.alloc(4 * 4 * 2);
  for (let i = 0; i < 8; i++) data.writeFloatLE(i / 8, i * 4);
  const header = JSON.stringify({
    latent_tensor: { dtype: "F32", shape: [1, 4, 2, 1], data_offsets: [0, data.length] },
    latent_format_version_0: { dtype: "F32", shape: [0], data_offsets: [data.length, data.length] },
  });
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(header.length));
  return Buffer.concat([head, Buffer.from(header), data]);
}

const sha1 = (b: Buffer) => createHash("sha1").update(b).digest("hex");

/** The graph the double accepted for the last prompt. */
const lastGraph = (): Record<string, Any> => {
  const ok = c.double.prompts.filter((p) => p.status === 200);
  return (ok[ok.length - 1].body as Any).prompt;
};

/** The stage-1 sampler's latent source, and the hold node feeding it. */
function holdOf(g: Record<string, Any>) {
  const sampler = Object.values(g).find(
    (n: Any) => n.class_type === "SamplerCustomAdvanced" && n._meta?.title === "Stage 1 sample",
  );
  const hold = g[sampler.inputs.latent_image[0]];
  return { hold, previous: g[hold.inputs.previous_latent[0]] };
}

async function renderOk(ep: string, shots: string[]): Promise<void> {
  const res = await c.s.call("POST", "/render", { ep, shots });
  expect(res.body.errors).toEqual([]);
  expect(res.body.queued.map((q: Any) => q.shot)).toEqual(shots);
  c.pool({ render: renderJob });
  for (const q of res.body.queued) {
    const j = await jobEnded(c.store, q.prompt_id);
    expect(j.status, JSON.stringify(j.error ?? j.log)).toBe("succeeded");
  }
}

describe("latent chains on ComfyUI", { timeout: 120_000 }, () => {
  it("holds the previous take's kept latent through LoadLatent, uploaded as a .latent file", async () => {
    const ep = await chainEpisode(c.s);
    await renderOk(ep, ["sh010"]);
    // sh010 t01 kept its latent (what the project's saver writes beside the take).
    const kept = latentFile();
    await writeFile(path.join(ep, "renders_proxy", "sh010", "sh010_t01.latent.safetensors"), kept);
    const side = path.join(ep, "renders_proxy", "sh010", "sh010_t01.json");
    const sc = JSON.parse(await readFile(side, "utf8"));
    await writeFile(side, JSON.stringify({ ...sc, latent: "sh010_t01.latent.safetensors" }, null, 2));

    const uploads = c.double.uploads.length;
    await renderOk(ep, ["sh020"]);
    const g = lastGraph();
    const { hold, previous } = holdOf(g);
    expect(hold.class_type).toBe("H3ChainLatent");
    expect(hold.inputs).toMatchObject({
      overlap: 17,
      hold_audio: false,
      shot: "sh010",
      pass_: "proxy",
      fps: 24,
    });
    // What the sampler read before now enters the hold node.
    expect(g[hold.inputs.latent[0]].class_type).toBe("LTXVConcatAVLatent");
    expect(previous.class_type).toBe("LoadLatent");
    const name = `studio/${sha1(kept)}.latent`;
    expect(previous.inputs.latent).toBe(name);
    const sent = c.double.uploads.slice(uploads).find((u) => u.name.endsWith(".latent"));
    expect(sent).toMatchObject({ subfolder: "studio", type: "input", sha1: sha1(kept), size: kept.length });
    expect(await readFile(path.join(c.double.inputDir, name))).toEqual(kept);

    expect(await takeSidecar(ep, "sh020", 1)).toMatchObject({
      status: "ok",
      hold: 17,
      continued_from: { shot: "sh010", take: 1, pass: "proxy", via: "latent", overlap: 17, video_steps: 3 },
      inputs: { hold: name },
    });
    expect((await takeSidecar(ep, "sh020", 1)).save_notes).toContain(
      "its first 17 frames repeat the end of sh010 (held by its kept latent; they are not trimmed off)",
    );
  });

  it("without a kept latent, encodes the previous take's video through the target's video VAE", async () => {
    const ep = await chainEpisode(c.s);
    await renderOk(ep, ["sh010", "sh020"]);
    const g = lastGraph();
    const { hold, previous } = holdOf(g);
    expect(hold.class_type).toBe("H3ChainLatent");
    expect(previous.class_type).toBe("VAEEncode");
    expect(g[previous.inputs.vae[0]]._meta.title).toBe("Load video VAE");
    const parts = g[previous.inputs.pixels[0]];
    expect(parts.class_type).toBe("GetVideoComponents");
    const load = g[parts.inputs.video[0]];
    expect(load.class_type).toBe("LoadVideo");
    const mp4 = await readFile(path.join(ep, "renders_proxy", "sh010", "sh010_t01.mp4"));
    expect(load.inputs.file).toBe(`studio/${sha1(mp4)}.mp4`);
    expect(await takeSidecar(ep, "sh020", 1)).toMatchObject({
      hold: 17,
      continued_from: { shot: "sh010", take: 1, via: "frames" },
    });
  });

  it("fails a chained take whose previous take is gone by its start, with the reason", async () => {
    const ep = await chainEpisode(c.s);
    await renderOk(ep, ["sh010"]);
    await c.store.pause("local", true);
    const res = await c.s.call("POST", "/render", { ep, shots: ["sh020"] });
    expect(res.body.queued).toHaveLength(1);
    // sh010's only take is discarded while sh020 waits.
    const gone = await c.s.call("POST", "/discard", { ep, pass: "proxy", shot: "sh010", take: 1 });
    expect(gone.status).toBe(200);
    await c.store.pause("local", false);
    c.pool({ render: renderJob });
    const j = await jobEnded(c.store, res.body.queued[0].prompt_id);
    expect(j.status).toBe("failed");
    const sc = await takeSidecar(ep, "sh020", 1);
    expect(sc.status).toBe("failed");
    expect(sc.save_notes).toMatch(
      /^sh020 continues sh010 \(continuous: latent\) but sh010 has no finished take to hold/,
    );
  });
});
