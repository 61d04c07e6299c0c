// The Finishing view end to end in a real Chromium on a real `node runtime/serve.js`: an animatic episode on the
// built-in engine whose series config has an `upscale.master` recipe; the view shows the master plan (every shot
// still to upscale, and why), queues the upscales, shows them arriving fresh, marks one Keep, refuses a bad shot
// recipe in the service's words, assembles the master with its live stage, plays it to its end, and makes its
// ProRes copy.
// Screenshots go to test-results/finishing-*.png.
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type OpenPage, openPage } from "./support/browser.ts";
import { poller, serverApi } from "./support/e2e.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

let dir: string;
let shows: string;
let server: ServerProcess;
let browser: Browser;
let view: OpenPage;
let page: Page;
const ep = () => path.join(shows, "gold", "ep01");
/** The proxy pass is what the built-in engine renders quickest; the master recipe delivers twice its size. */
const DELIVER = "896x512";

const api = serverApi(() => server.url);

interface Episode {
  shots: {
    shot: string;
    cut: { take: number | null; usable: boolean; out: boolean };
    takes: {
      take: number;
      status: string;
      upscale?: {
        status: string;
        fresh: boolean;
        width: number;
        height: number;
        keep?: boolean | null;
      } | null;
    }[];
  }[];
}
const episode = () => api<Episode>("GET", `episode?ep=${encodeURIComponent(ep())}&pass=proxy`);
const cutUpscale = (s: Episode["shots"][number]) =>
  s.takes.find((t) => t.take === s.cut.take)?.upscale ?? null;

const until = poller({ everyMs: 150 });

/** What the test reads of a <video> element (the tests are type-checked without the DOM's types). */
interface Played {
  duration: number;
  currentTime: number;
  muted: boolean;
  ended: boolean;
  videoWidth: number;
  videoHeight: number;
  play(): Promise<void>;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "studio-finishing-"));
  shows = path.join(dir, "shows");
  await mkdir(path.join(shows, "gold"), { recursive: true });
  server = await startServer({
    STUDIO_HOME: path.join(dir, "home"),
    STUDIO_ROOTS: shows,
    STUDIO_LOG: "warn",
  });
  await api("POST", "episode/new", {
    parent: path.join(shows, "gold"),
    name: "ep01",
    title: "The Gold Path",
  });
  // The master recipe: every target by the pixel method, delivered at twice the proxy's size.
  const seriesFile = path.join(ep(), "series.json");
  const series = JSON.parse(await readFile(seriesFile, "utf8"));
  series.upscale = { master: { deliver: DELIVER, fit: "crop", targets: { "*": { method: "pixel" } } } };
  await writeFile(seriesFile, JSON.stringify(series, null, 2));
  const built = await api<{ ok: boolean; error?: string }>("POST", "build", { ep: ep() });
  expect(built.ok, built.error).toBe(true);
  await api("POST", "render", { ep: ep(), pass: "proxy" });
  await until(
    "every proxy take rendered",
    async () => (await episode()).shots.every((s) => s.cut.usable),
    150_000,
  );
  browser = await launchBrowser();
  view = await openPage(browser, `${server.url}/studio/?ep=${encodeURIComponent(ep())}&view=finishing`);
  page = view.page;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  server?.child.kill("SIGTERM");
  await server?.exited;
  await rm(dir, { recursive: true, force: true });
});

describe("the Finishing view", () => {
  it("shows the master plan: every shot of the cut still to upscale, and why", async () => {
    const shots = (await episode()).shots.filter((s) => !s.cut.out);
    const table = page.getByRole("table", { name: "Shots of the cut" });
    await until(
      "the plan's rows",
      async () =>
        (await table.locator("tbody tr").filter({ hasText: "not upscaled yet" }).count()) === shots.length &&
        (await table.getByText("upscale", { exact: true }).count()) === shots.length,
      // The first request bundles the page, slow on a busy machine.
      110_000,
    );
    await expect
      .poll(() => page.getByRole("region", { name: "Master · proxy" }).textContent(), { timeout: 20_000 })
      .toContain("896×512");
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "to upscale" }).first().textContent(), {
        timeout: 20_000,
      })
      .toContain(`${shots.length} to upscale`);
    await view.shot("finishing-plan");
  }, 150_000);

  it("queues the upscales and shows them arriving fresh at the recipe's size", async () => {
    await page.getByRole("button", { name: /^Queue \d+ missing$/ }).click();
    await until(
      "every upscale fresh",
      async () => (await episode()).shots.filter((s) => !s.cut.out).every((s) => cutUpscale(s)?.fresh),
      180_000,
    );
    const shots = (await episode()).shots.filter((s) => !s.cut.out);
    for (const s of shots) expect(cutUpscale(s)).toMatchObject({ status: "ok", width: 896, height: 512 });
    const table = page.getByRole("table", { name: "Shots of the cut" });
    // Each fresh upscale's badge starts with its size (its state follows for screen readers).
    await until("the rows fresh", async () => (await table.getByText(/^896×512/).count()) === shots.length);
    await until(
      "the plan ready",
      async () => (await table.getByText("ok", { exact: true }).count()) === shots.length,
    );
    await view.shot("finishing-upscaled");
  }, 200_000);

  it("marks a shot's upscale Keep, and shows a bad shot recipe refused in the service's words", async () => {
    const first = (await episode()).shots[0].shot;
    await page.getByRole("button", { name: first, exact: true }).click();
    const detail = page.getByRole("region", { name: `Shot ${first}` });
    await detail.getByRole("checkbox", { name: "Keep" }).check();
    await until("Keep stored", async () => cutUpscale((await episode()).shots[0])?.keep === true);
    await until("the row says keep", () =>
      page.getByRole("table", { name: "Shots of the cut" }).getByText("896×512 · keep").isVisible(),
    );
    await detail.getByRole("button", { name: "Give the shot its own recipe" }).click();
    await detail.getByLabel("Scale", { exact: true }).fill("9");
    await detail.getByRole("button", { name: "Save the shot's recipe" }).click();
    await expect.poll(() => detail.getByRole("alert").textContent()).toMatch(/scale/);
    await view.shot("finishing-shot");
    await detail.getByRole("checkbox", { name: "Keep" }).uncheck();
    await until("Keep cleared", async () => !cutUpscale((await episode()).shots[0])?.keep);
  }, 60_000);

  it("assembles the master with its live stage and plays it to its end", async () => {
    const stages: string[] = [];
    const status = page.locator(".master-job");
    const watching = (async () => {
      for (let i = 0; i < 400 && !stages.includes("done"); i++) {
        const t = (await status.textContent().catch(() => null)) ?? "";
        if (t && !stages.includes(t)) stages.push(t);
        if (/master made|failed/.test(t)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await page.getByRole("button", { name: "Assemble master" }).click();
    const video = page.getByLabel("The master", { exact: true });
    await until(
      "the master's length",
      async () => (await video.evaluate((v: Played) => v.duration)) > 1,
      120_000,
    );
    await watching;
    expect(
      stages.some((s) => /master made/.test(s)),
      stages.join(" | "),
    ).toBe(true);
    const output = path.join(ep(), "master", `ep01_master_896x512.mp4`);
    await access(output);
    expect(await video.evaluate((v: Played) => [v.videoWidth, v.videoHeight])).toEqual([896, 512]);
    await view.shot("finishing-master");
    await video.evaluate((v: Played) => {
      v.muted = true;
      v.currentTime = Math.max(0, v.duration - 0.6);
      return v.play();
    });
    await until("the end of the master", () => video.evaluate((v: Played) => v.ended), 20_000);
    // A ProRes copy of the master there is: its .mov offered beside the master once made.
    await page.getByRole("button", { name: "ProRes of this master" }).click();
    const mov = page
      .getByRole("region", { name: "Master output" })
      .getByRole("link", { name: "ProRes .mov" });
    await until("the ProRes link", () => mov.isVisible(), 120_000);
    await access(path.join(ep(), "master", "ep01_master_896x512.mov"));
    expect(
      view.problems.filter((p) => !/Failed to load resource|ERR_CONNECTION_REFUSED|WebSocket/.test(p)),
    ).toEqual([]);
  }, 300_000);
});
