// Custom targets kept in the settings (`<settings dir>/targets/<id>`, beside settings.json): saved and removed with
// `scope: "settings"` and no episode, listed for every show with `scope: "settings"`, known to the compile thread (a
// script may name one), rendered in any show, and a show's own target of the same id winning in that show. A
// hosted-model target keeps the test on the router double; the refusals of the scope field are here too.
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { showDirOf } from "../lib/targets/listing.ts";
import { jobEnded } from "./support/jobs.ts";
import { useRouterStudio } from "./support/router-double.ts";
import { refusal, SCRIPT } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const QUICK = "router_zeta_quick";
/** The three-shot script with sh020 on the settings' target: a build fails where that target is unknown. */
const NAMING_QUICK = SCRIPT.replace("## sh020\n", `## sh020\ntarget: ${QUICK}\n`);
const c = useRouterStudio(200);
let settingsDir: string;
/** The proposed target of zeta/quick, enabled (draft false) so renders take it at once. */
let quick: Any;

beforeAll(async () => {
  settingsDir = path.dirname(settingsFile(c.s.env.services));
  const inspected = await c.s.call("POST", "/targets/router-inspect", { model: "zeta/quick" });
  quick = { ...inspected.body.target, draft: false };
});

const listed = async (ep: string | null, id: string): Promise<Any> => {
  const res = await c.s.call("GET", "/targets", { ...(ep ? { ep } : {}), kind: "video" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.targets.find((t: Any) => t.id === id);
};

/** Render sh020 of `ep` (on `target`, else the shot's own) on the router; answers the task the provider got. */
async function render(ep: string, target?: string): Promise<Any> {
  const res = await c.s.call("POST", "/render", {
    ep,
    pass: "final",
    shots: ["sh020"],
    redo: true,
    ...(target ? { target } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.errors).toEqual([]);
  const [q] = res.body.queued;
  c.pool();
  const job = await jobEnded(c.store, q.prompt_id);
  expect(job.status, JSON.stringify(job.error ?? job.log)).toBe("succeeded");
  const sidecar = JSON.parse(
    await readFile(
      path.join(ep, "renders", "sh020", `sh020_t${String(q.take).padStart(2, "0")}.json`),
      "utf8",
    ),
  );
  expect(sidecar).toMatchObject({ status: "ok", backend: "router", target: q.target });
  return { target: q.target, task: c.double.submits.at(-1) };
}

describe("a custom target saved in the settings", () => {
  it("is saved without an episode, listed for every show, and renders in any show", async () => {
    const saved = await c.s.call("PUT", "/targets/custom", { scope: "settings", target: quick });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const file = path.join(settingsDir, "targets", QUICK, "target.json");
    expect(saved.body).toMatchObject({ ok: true, id: QUICK, scope: "settings", path: file, draft: false });
    expect(saved.body.targets.map((t: Any) => [t.id, t.scope])).toEqual([[QUICK, "settings"]]);
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ id: QUICK, backend: "router" });
    expect(c.s.env.events).toEqual([]);

    expect(await listed(null, QUICK)).toMatchObject({ custom: true, scope: "settings", backend: "router" });
    const a = await c.s.episode(SCRIPT);
    const b = await c.s.episode(SCRIPT);
    expect(await showDirOf(c.s.env.services, a)).not.toBe(await showDirOf(c.s.env.services, b));
    expect(await listed(a, QUICK)).toMatchObject({ custom: true, scope: "settings" });
    expect((await render(a, QUICK)).task).toMatchObject({ model: "zeta/quick", duration: 5 });
    expect((await render(b, QUICK)).task).toMatchObject({ model: "zeta/quick" });
  });

  it("is known to the build: a script may name it on a shot", async () => {
    expect(NAMING_QUICK).toContain(`target: ${QUICK}`);
    const ep = await c.s.episode(NAMING_QUICK);
    const done = await render(ep);
    expect(done.target).toBe(QUICK);
    expect(done.task).toMatchObject({ model: "zeta/quick" });
  });

  it("gives way to a show's own target of the same id, in that show only", async () => {
    const mine = await c.s.episode(SCRIPT);
    const other = await c.s.episode(SCRIPT);
    const motion = (await c.s.call("POST", "/targets/router-inspect", { model: "acme/motion-2" })).body
      .target;
    const own = {
      ...motion,
      id: QUICK,
      draft: false,
      label: "Motion, the show's own",
    };
    const saved = await c.s.call("PUT", "/targets/custom", { ep: mine, target: own });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ scope: "show" });
    expect(saved.body.targets.map((t: Any) => [t.id, t.scope])).toEqual([[QUICK, "show"]]);

    expect(await listed(mine, QUICK)).toMatchObject({ scope: "show", label: own.label });
    expect(await listed(other, QUICK)).toMatchObject({ scope: "settings" });
    expect((await render(mine, QUICK)).task).toMatchObject({ model: "acme/motion-2" });
    expect((await render(other, QUICK)).task).toMatchObject({ model: "zeta/quick" });

    // Removing the show's own brings the settings' one back in that show.
    const del = await c.s.call("DELETE", "/targets/custom", { ep: mine, id: QUICK });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(await listed(mine, QUICK)).toMatchObject({ scope: "settings" });
  });

  it("flips its draft flag and is deleted with scope settings", async () => {
    const flip = await c.s.call("PUT", "/targets/custom", { scope: "settings", id: QUICK, draft: true });
    expect(flip.status, JSON.stringify(flip.body)).toBe(200);
    expect(flip.body).toMatchObject({ ok: true, scope: "settings", draft: true });
    const ep = await c.s.episode(SCRIPT);
    expect(await listed(ep, QUICK)).toMatchObject({ draft: true, scope: "settings" });

    const del = await c.s.call("DELETE", "/targets/custom", { scope: "settings", id: QUICK });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body).toMatchObject({ ok: true, id: QUICK, scope: "settings", deleted: true, targets: [] });
    await expect(access(path.join(settingsDir, "targets", QUICK))).rejects.toThrow();
    expect(await listed(ep, QUICK)).toBeUndefined();
    const naming = await c.s.episode(NAMING_QUICK, { build: false });
    const build = await c.s.call("POST", "/build", { ep: naming });
    expect(build.body.ok).toBe(false);
    expect(build.body.error).toContain(`target '${QUICK}' is not a video target`);
    refusal(
      await c.s.call("DELETE", "/targets/custom", { scope: "settings", id: QUICK }),
      404,
      `the settings has no custom target "${QUICK}"`,
    );
  });
});

describe("the scope field", () => {
  it("refuses a wrong scope, an episode with scope settings, no episode for a show, and built-in ids", async () => {
    const ep = await c.s.episode(SCRIPT);
    refusal(
      await c.s.call("PUT", "/targets/custom", { scope: "machine", target: quick }),
      400,
      'scope must be show or settings (got "machine")',
    );
    refusal(
      await c.s.call("PUT", "/targets/custom", { scope: "settings", ep, target: quick }),
      400,
      /send no ep with it/,
    );
    refusal(await c.s.call("PUT", "/targets/custom", { target: quick }), 400, /ep is required/);
    refusal(
      await c.s.call("PUT", "/targets/custom", { scope: "show", target: quick }),
      400,
      /ep is required/,
    );
    refusal(
      await c.s.call("PUT", "/targets/custom", { scope: "settings", target: { ...quick, id: "ltx2" } }),
      400,
      /built in/,
    );
    refusal(
      await c.s.call("PUT", "/targets/custom", { scope: "settings", id: "ltx2", draft: false }),
      400,
      /built in/,
    );
    refusal(
      await c.s.call("PUT", "/targets/custom", { scope: "settings", id: "nope", draft: false }),
      404,
      /no custom/,
    );
    refusal(await c.s.call("DELETE", "/targets/custom", { scope: "settings", id: "ltx2" }), 400, /built in/);
    refusal(await c.s.call("DELETE", "/targets/custom", { scope: "settings", id: "nope" }), 404, /no custom/);
    refusal(
      await c.s.call("DELETE", "/targets/custom", { scope: "settings", ep, id: "nope" }),
      400,
      /send no ep/,
    );
    refusal(await c.s.call("DELETE", "/targets/custom", { scope: 3, id: "nope" }), 400, /scope/);
    expect((await c.s.call("DELETE", "/targets/custom", { scope: "settings" })).status).toBe(400);
    expect(
      (await c.s.call("GET", "/targets", { kind: "video" })).body.targets.some((t: Any) => t.custom),
    ).toBe(false);
  });
});
