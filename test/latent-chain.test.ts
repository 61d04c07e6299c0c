// Latent chains (contract rendering rule 8) through POST /studio/render, the job store and a worker pool on the
// ComfyUI double: a chain queues in cut order in one request, each job after the one it continues; a shot with
// nothing to hold is refused; a cancel in the middle fails the rest of the chain at once instead of leaving it
// waiting; a retry queues the rest again behind the retried job; the takes record `hold` and `continued_from`.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { retryJob } from "../lib/jobs/kinds.ts";
import { renderJob } from "../workers/jobs/render.ts";
import { DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { takeSidecar } from "./support/comfy-studio.ts";
import { jobEnded, jobsEnded } from "./support/jobs.ts";
import { type Any, CHAIN_TARGET, chainEpisode, useChainStudio } from "./support/latent-chain.ts";

const c = useChainStudio();

const render = (body: Record<string, unknown>) => c.s.call("POST", "/render", body);

describe("latent chains", { timeout: 120_000 }, () => {
  it("queues a whole chain in one request in cut order, each job waiting on the one it continues", async () => {
    const ep = await chainEpisode(c.s);
    await c.store.pause("local", true);
    const res = await render({ ep });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued.map((q: Any) => [q.shot, q.target])).toEqual([
      ["sh010", CHAIN_TARGET],
      ["sh020", CHAIN_TARGET],
      ["sh030", CHAIN_TARGET],
    ]);
    const [a, b, d] = res.body.queued.map((q: Any) => q.prompt_id);
    expect((await c.store.get(a))?.after).toBeNull();
    expect((await c.store.get(b))?.after).toBe(a);
    expect((await c.store.get(d))?.after).toBe(b);
    expect((await c.store.get(b))?.payload).toMatchObject({ chain: "latent" });
    expect(res.body.continuity_at_start).toEqual([
      { shot: "sh020", after: "it holds the end of sh010's new take in this run when its render starts" },
      { shot: "sh030", after: "it holds the end of sh020's new take in this run when its render starts" },
    ]);
  });

  it("refuses a chained shot whose previous shot has no take to hold and none coming", async () => {
    const ep = await chainEpisode(c.s);
    const res = await render({ ep, shots: ["sh020"] });
    expect(res.status).toBe(200);
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toEqual([
      {
        shot: "sh020",
        error:
          "sh020 continues sh010 (continuous: latent) but sh010 has no usable take to hold and none is queued: render sh010 first, or both in one request",
      },
    ]);
  });

  it("skips chained shots on a ComfyUI without the hold node, naming it", async () => {
    const ep = await chainEpisode(c.s);
    const bare = await startComfyDouble({ models: DEFAULT_MODELS, stepMs: 1 });
    const file = settingsFile(c.s.env.services);
    try {
      await writeFile(file, JSON.stringify({ local_url: bare.url }));
      c.s.env.services.engines.lookups.clear();
      await c.store.pause("local", true);
      const res = await render({ ep });
      expect(res.body.queued.map((q: Any) => q.shot)).toEqual(["sh010"]);
      expect(res.body.skipped.map((k: Any) => [k.shot, k.missing_nodes])).toEqual([
        ["sh020", ["H3ChainLatent"]],
        ["sh030", ["H3ChainLatent"]],
      ]);
    } finally {
      await writeFile(file, JSON.stringify({ local_url: c.double.url }));
      c.s.env.services.engines.lookups.clear();
      await bare.close();
    }
  });

  it("renders the chain: each take holds the end of the one before and records it", async () => {
    const ep = await chainEpisode(c.s);
    const res = await render({ ep });
    c.pool({ render: renderJob });
    for (const q of res.body.queued) {
      const j = await jobEnded(c.store, q.prompt_id);
      expect(j.status, JSON.stringify(j.error ?? j.log)).toBe("succeeded");
    }
    const first = await takeSidecar(ep, "sh010", 1);
    expect(first).not.toHaveProperty("continued_from");
    expect(first).not.toHaveProperty("hold");
    // No pack saver keeps a latent on this ComfyUI: the previous take's frames are encoded again.
    expect(await takeSidecar(ep, "sh020", 1)).toMatchObject({
      status: "ok",
      hold: 17,
      continued_from: { shot: "sh010", take: 1, pass: "proxy", via: "frames", overlap: 17, video_steps: 3 },
    });
    expect(await takeSidecar(ep, "sh030", 1)).toMatchObject({
      status: "ok",
      hold: 17,
      continued_from: { shot: "sh020", take: 1, pass: "proxy", via: "frames" },
    });
  });

  it("an upscale of a chained take records why it holds nothing of the previous upscale", async () => {
    const ep = await chainEpisode(c.s);
    const res = await render({ ep, shots: ["sh010", "sh020"] });
    c.pool({ render: renderJob });
    for (const q of res.body.queued) expect((await jobEnded(c.store, q.prompt_id)).status).toBe("succeeded");
    await c.store.pause("local", true);
    const up = await c.s.call("POST", "/upscale", { ep, pass: "proxy", shots: ["sh010", "sh020"] });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.queued.map((q: Any) => q.shot)).toEqual(["sh010", "sh020"]);
    const record = async (shot: string) =>
      JSON.parse(await readFile(path.join(ep, "renders_proxy", shot, `${shot}_t01.up.json`), "utf8"));
    expect(await record("sh010")).not.toHaveProperty("chain_hold");
    expect((await record("sh020")).chain_hold).toEqual({
      file: null,
      held: 0,
      video_steps: 0,
      why: "not held: the upscale graphs keep no latent and have no hold node, so this upscale starts from the take alone, without the tail of sh010 t01's upscale",
    });
  });

  it("a cancel in the middle fails the rest of the chain; a retry queues it again behind the retried take", async () => {
    const ep = await chainEpisode(c.s);
    await c.store.pause("local", true);
    const res = await render({ ep });
    const [a, b, d] = res.body.queued.map((q: Any) => q.prompt_id);
    const canceled = await c.s.call("POST", "/cancel", { ep, pass: "proxy", shot: "sh020", take: 1 });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: "failed", save_notes: "canceled before it ran" });

    await c.store.pause("local", false);
    c.pool({ render: renderJob });
    await jobsEnded(c.store, (j) => [a, b, d].includes(j.id));
    expect((await c.store.get(a))?.status).toBe("succeeded");
    const broken = await c.store.get(d);
    expect(broken?.status).toBe("failed");
    // Nothing waits: sh030 ran at once and failed with the reason.
    const sc3 = await takeSidecar(ep, "sh030", 1);
    expect(sc3.status).toBe("failed");
    expect(sc3.save_notes).toBe(
      "chain broken: sh030 continues sh020 t01 (proxy), which was canceled; retry that take to queue the chain again",
    );
    expect(sc3).not.toHaveProperty("continued_from");

    const retried = await retryJob(c.s.env.services, c.store, (await c.store.get(b)) as Any);
    expect(retried.payload).toMatchObject({ shot: "sh020", take: 2 });
    const again = (await c.store.list()).jobs.find(
      (j) => j.kind === "render" && (j.payload as Any).shot === "sh030" && (j.payload as Any).take === 2,
    );
    expect(again?.after).toBe(retried.id);
    expect(again?.status).toBe("queued");
    await jobsEnded(c.store, (j) => j.id === retried.id || j.id === again?.id);
    expect((await c.store.get(retried.id))?.status).toBe("succeeded");
    expect((await c.store.get(again?.id ?? ""))?.status).toBe("succeeded");
    expect(await takeSidecar(ep, "sh020", 2)).toMatchObject({
      status: "ok",
      continued_from: { shot: "sh010", take: 1, via: "frames" },
    });
    expect(await takeSidecar(ep, "sh030", 2)).toMatchObject({
      status: "ok",
      hold: 17,
      continued_from: { shot: "sh020", take: 2, pass: "proxy", via: "frames" },
    });
  });

  it("a retry of a chained take whose predecessor still renders waits on it; waiting takes are re-queued behind it", async () => {
    const ep = await chainEpisode(c.s);
    await c.store.pause("local", true);
    const res = await render({ ep });
    const [a, b, d] = res.body.queued.map((q: Any) => q.prompt_id);
    // sh020 canceled while sh010 has not run: its retry waits on sh010, and sh030 (still waiting) moves behind it.
    await c.s.call("POST", "/cancel", { ep, pass: "proxy", shot: "sh020", take: 1 });
    const retried = await retryJob(c.s.env.services, c.store, (await c.store.get(b)) as Any);
    expect(retried.after).toBe(a);
    expect((await c.store.get(d))?.status).toBe("canceled");
    expect((await takeSidecar(ep, "sh030", 1)).save_notes).toMatch(
      /^canceled before it ran: queued again behind sh020 t02/,
    );
    const again = (await c.store.list()).jobs.find(
      (j) => (j.payload as Any).shot === "sh030" && (j.payload as Any).take === 2,
    );
    expect(again?.after).toBe(retried.id);
  });
});
