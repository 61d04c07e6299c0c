// Drafts on the router (contract rendering rule 9): a proxy render on a draft-capable router target makes a draft
// take the proxy cut plays, GET /studio/drafts lists it, a final made from it sends the draft's task id alone at
// 1080p and records `from_draft`; a take that is not a finished proxy draft is refused (400), an expired one 409.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { jobEnded } from "./support/jobs.ts";
import { saveRouterTarget, useRouterStudio } from "./support/router-double.ts";
import { refusal, SCRIPT } from "./support/studio-episode.ts";

const TARGET = "router_acme_motion_2";
const DAY = 86_400_000;
const c = useRouterStudio(300);
let ep: string;
let draftTake: number;

const sidecarOf = async (pass: "final" | "proxy", shot: string, take: number) =>
  JSON.parse(
    await readFile(
      path.join(
        ep,
        pass === "final" ? "renders" : "renders_proxy",
        shot,
        `${shot}_t${String(take).padStart(2, "0")}.json`,
      ),
      "utf8",
    ),
  );

beforeAll(async () => {
  ep = await c.s.episode(SCRIPT);
  await saveRouterTarget(c.s, ep, "acme/motion-2", TARGET);
  c.pool();
});

describe("draft takes", () => {
  it("a proxy render on a draft-capable router target makes a draft the proxy cut plays", async () => {
    const res = await c.s.call("POST", "/render", {
      ep,
      pass: "proxy",
      shots: ["sh020"],
      target: TARGET,
      redo: true,
    });
    expect(res.body.errors).toEqual([]);
    const [q] = res.body.queued;
    const job = await jobEnded(c.store, q.prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job.log)).toBe("succeeded");
    expect(c.double.submits.at(-1)).toMatchObject({ resolution: "480p", draft: true, duration: 4 });
    draftTake = q.take;
    const sidecar = await sidecarOf("proxy", "sh020", draftTake);
    const task = [...c.double.tasks.keys()].at(-1);
    expect(sidecar.status).toBe("ok");
    expect(sidecar.draft).toMatchObject({ task, made: expect.any(String), expires: expect.any(String) });
    const life = Date.parse(sidecar.draft.expires) - Date.parse(sidecar.draft.made);
    expect(Math.abs(life - 7 * DAY)).toBeLessThan(60_000);

    const episode = await c.s.call("GET", "/episode", { ep, pass: "proxy" });
    const shot = episode.body.shots.find((x: { shot: string }) => x.shot === "sh020");
    const take = shot.takes.find((t: { take: number }) => t.take === draftTake);
    expect(take.draft).toMatchObject({ task, expired: false });
    expect(take.has_video).toBe(true);

    const drafts = await c.s.call("GET", "/drafts", { ep });
    expect(drafts.status, JSON.stringify(drafts.body)).toBe(200);
    expect(drafts.body.drafts).toEqual([
      {
        shot: "sh020",
        take: draftTake,
        thumb: `renders_proxy/sh020/sh020_t${String(draftTake).padStart(2, "0")}.jpg`,
        mp4: `renders_proxy/sh020/sh020_t${String(draftTake).padStart(2, "0")}.mp4`,
        expires: sidecar.draft.expires,
        expired: false,
        finals: [],
        made_from_it: false,
        target: TARGET,
      },
    ]);
  });

  it("makes a final from the draft's task id alone at 1080p and records from_draft", async () => {
    const task = (await sidecarOf("proxy", "sh020", draftTake)).draft.task;
    const res = await c.s.call("POST", "/render", { ep, pass: "final", from_draft: { sh020: draftTake } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    const [q] = res.body.queued;
    expect(q).toMatchObject({ shot: "sh020", target: TARGET });
    const job = await jobEnded(c.store, q.prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job.log)).toBe("succeeded");
    expect(c.double.submits.at(-1)).toEqual({
      model: "acme/motion-2",
      from_draft: task,
      resolution: "1080p",
    });
    const sidecar = await sidecarOf("final", "sh020", q.take);
    expect(sidecar).toMatchObject({ status: "ok", from_draft: { shot: "sh020", take: draftTake, task } });
    expect(sidecar.draft).toBeUndefined();
    const drafts = await c.s.call("GET", "/drafts", { ep });
    expect(drafts.body.drafts[0]).toMatchObject({ finals: [q.take], made_from_it: true });
    const episode = await c.s.call("GET", "/episode", { ep, pass: "final" });
    const shot = episode.body.shots.find((x: { shot: string }) => x.shot === "sh020");
    expect(shot.takes.at(-1).from_draft).toMatchObject({ take: draftTake, task });
  });

  it("refuses what is not a finished proxy draft (400) and an expired draft (409)", async () => {
    const render = (body: Record<string, unknown>) => c.s.call("POST", "/render", { ep, ...body });
    const fresh = { task: "t-fresh", made: new Date().toISOString() };
    refusal(await render({ pass: "proxy", from_draft: { sh020: draftTake } }), 400, /with pass "final"/);
    refusal(await render({ pass: "final", from_draft: { sh020: 99 } }), 400, /sh020 t99 is not a proxy take/);
    await c.s.take(ep, "proxy", "sh010", 7, { sidecar: { target: TARGET } });
    refusal(await render({ pass: "final", from_draft: { sh010: 7 } }), 400, /not a proxy draft take/);
    await c.s.take(ep, "proxy", "sh010", 8, { status: "queued", sidecar: { target: TARGET, draft: fresh } });
    refusal(
      await render({ pass: "final", from_draft: { sh010: 8 } }),
      400,
      /not a finished draft \(queued\)/,
    );
    refusal(
      await render({ pass: "final", from_draft: { sh010: "one" } }),
      400,
      /from_draft.sh010 must be a take/,
    );
    refusal(await render({ pass: "final", from_draft: ["sh010"] }), 400, /from_draft must be/);
    refusal(
      await render({ pass: "final", shots: ["sh030"], from_draft: { sh020: draftTake } }),
      400,
      /from_draft names sh020, which shots leaves out/,
    );
    // Made eight days ago: past the 7-day life.
    const old = { task: "t-old", made: new Date(Date.now() - 8 * DAY).toISOString() };
    await c.s.take(ep, "proxy", "sh030", 4, { sidecar: { target: TARGET, draft: old } });
    const before = c.double.submits.length;
    refusal(
      await render({ pass: "final", from_draft: { sh030: 4 } }),
      409,
      /sh030 t04 expired \(drafts last 7 days\)/,
    );
    expect(c.double.submits.length).toBe(before);
    const drafts = await c.s.call("GET", "/drafts", { ep });
    expect(drafts.body.drafts.find((d: { shot: string }) => d.shot === "sh030")).toMatchObject({
      take: 4,
      expired: true,
      finals: [],
    });
  });
});
