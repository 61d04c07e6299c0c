// The editor page end to end in a real Chromium on a real `node runtime/serve.js` over a temp show: a new episode,
// a script mistake shown at its line and fixed, save, build, proxy renders on `animatic` arriving live, a pick, a
// trim, assembly and the result played to its end; a save conflict; a reconnect after the server restarts.
// Screenshots of each view go to test-results/.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type OpenPage, openPage } from "./support/browser.ts";
import { serverApi, until } from "./support/e2e.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

let dir: string;
let shows: string;
let env: Record<string, string>;
let server: ServerProcess;
let browser: Browser;
let view: OpenPage;
let page: Page;
const ep = () => path.join(shows, "ep01");

const api = serverApi(() => server.url);

interface Episode {
  shots: {
    shot: string;
    cut: { take: number | null; usable: boolean; trim_in: number | null };
    takes: { status: string }[];
  }[];
}
const episode = () => api<Episode>("GET", `episode?ep=${encodeURIComponent(ep())}&pass=proxy`);

/** Poll until `check` holds (the page and the renders move at their own pace). */
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "studio-page-"));
  shows = path.join(dir, "shows");
  await mkdir(shows, { recursive: true });
  env = { STUDIO_HOME: path.join(dir, "home"), STUDIO_ROOTS: shows, STUDIO_LOG: "warn" };
  server = await startServer(env);
  browser = await launchBrowser();
  view = await openPage(browser, `${server.url}/studio/`);
  page = view.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.child.kill("SIGTERM");
  await server?.exited;
  await rm(dir, { recursive: true, force: true });
});

describe("the editor page", () => {
  it("makes a new episode from the start view", async () => {
    await page.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => page.getByLabel("Folder name").inputValue()).toBe("ep01");
    await view.shot("start");
    await page.getByRole("button", { name: "Create the episode" }).click();
    await page.waitForURL(/view=script/);
    expect(new URL(page.url()).searchParams.get("ep")).toBe(ep());
  }, 60_000);

  it("shows a script mistake at its line as it is typed, and saves the fixed script", async () => {
    const editor = page.getByRole("textbox", { name: "Script text" });
    // Typing before the script has loaded would type into an empty editor.
    await expect.poll(() => editor.textContent(), { timeout: 30_000 }).toContain("= ep01");
    await editor.click();
    await page.keyboard.press("Control+End");
    // The cursor is on the document's last line (empty after the file's final newline); the mistake goes below it.
    const lines = (await readFile(path.join(ep(), "ep01.md"), "utf8")).split("\n").length;
    await page.keyboard.type("\ndur: 3s");
    const problems = page.getByRole("list", { name: "Problems in the script check" });
    await expect
      .poll(() => problems.textContent(), { timeout: 15_000 })
      .toMatch(new RegExp(`line ${lines + 1}\\b`));
    await expect.poll(() => problems.textContent()).toMatch(/dur: 3s/);
    await view.shot("script-diagnostic");
    for (let i = 0; i < "\ndur: 3s".length; i++) await page.keyboard.press("Backspace");
    await expect
      .poll(() => problems.count().then((n) => (n ? problems.textContent() : "")), { timeout: 15_000 })
      .not.toMatch(/line/);
    await page.keyboard.type("\nA gull lands on the gate.");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await until("the saved script", async () =>
      (await readFile(path.join(ep(), "ep01.md"), "utf8")).includes("A gull lands on the gate."),
    );
  }, 120_000);

  it("builds, renders the proxy on animatic and shows the takes arriving live", async () => {
    await page.getByRole("button", { name: "Shots", exact: true }).click();
    const build = page.getByRole("button", { name: "Build", exact: true });
    // The save rebuilt the episode; a pass without a build offers Build.
    if (await build.isVisible().catch(() => false)) await build.click();
    const shots = (await until("the built proxy", () => episode())).shots.map((s) => s.shot);
    expect(shots.length).toBeGreaterThan(1);
    await page.getByRole("combobox", { name: "Shots" }).selectOption({ index: await allIndex(page) });
    await page.getByRole("button", { name: /^Render \d+ shots? · proxy$/ }).click();
    // Every shot's take becomes usable, and its row shows the take's picture without a reload.
    await until(
      "every take rendered",
      async () => (await episode()).shots.every((s) => s.cut.usable),
      120_000,
    );
    await until(
      "thumbnails in the rows",
      async () => (await page.locator("img[src*='thumb']").count()) >= shots.length,
    );
    await view.shot("shots");
  }, 180_000);

  it("picks a take in the shot's detail", async () => {
    const first = (await episode()).shots[0].shot;
    await page
      .getByRole("button", { name: new RegExp(`^${first}\\b`) })
      .first()
      .click();
    const detail = page.getByRole("region", { name: `Shot ${first}` });
    await detail
      .getByRole("article", { name: "Take 1" })
      .getByRole("button", { name: "Pick", exact: true })
      .click();
    await until("the pick", async () => (await episode()).shots[0].cut.take === 1);
    await expect.poll(() => detail.getByRole("button", { name: "Unpick" }).count()).toBe(1);
    await view.shot("shot-detail");
  }, 60_000);

  it("trims a clip in the cut, assembles, and plays the result to its end", async () => {
    await page.getByRole("button", { name: "Cut", exact: true }).click();
    const first = (await episode()).shots[0].shot;
    await page.getByRole("option", { name: new RegExp(`^${first},`) }).click();
    const inspector = page.getByRole("region", { name: `Clip ${first}` });
    const trimIn = inspector.getByRole("spinbutton", { name: "Trim in" });
    await trimIn.fill("4");
    await trimIn.press("Enter");
    await until("the trim saved", async () => (await episode()).shots[0].cut.trim_in === 4);
    await view.shot("cut");
    await page.getByRole("button", { name: "Assemble the proxy cut" }).click();
    const report = page.getByRole("region", { name: "Assembly report" });
    await until("the assembly report", () => report.isVisible(), 90_000);
    const video = page.getByLabel("The assembled cut");
    await until(
      "the assembled video's length",
      async () => (await video.evaluate((v: Played) => v.duration)) > 1,
    );
    await view.shot("assembled");
    // Played from near its end: the <video> reaches its end with the real file.
    await video.evaluate((v: Played) => {
      v.muted = true;
      v.currentTime = Math.max(0, v.duration - 0.6);
      return v.play();
    });
    await until("the end of the assembled cut", () => video.evaluate((v: Played) => v.ended), 20_000);
  }, 150_000);

  it("answers a save that meets a newer file on disk with the conflict and keeps the typed text", async () => {
    await page.getByRole("button", { name: "Script", exact: true }).first().click();
    const editor = page.getByRole("textbox", { name: "Script text" });
    await editor.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\nThe wind drops.");
    const file = path.join(ep(), "ep01.md");
    const source = await api<{ text: string; hash: string }>(
      "GET",
      `source?ep=${encodeURIComponent(ep())}&file=script`,
    );
    await api("PUT", "source", {
      ep: ep(),
      file: "script",
      text: `${source.text}Someone else's line.\n`,
      base_hash: source.hash,
      rebuild: false,
    });
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const conflict = page.getByRole("region", { name: "Save conflict" });
    await until("the conflict", () => conflict.isVisible(), 15_000);
    await view.shot("save-conflict");
    await conflict.getByRole("button", { name: "Keep mine" }).click();
    await until("my text saved over the disk's", async () => {
      const text = await readFile(file, "utf8");
      return text.includes("The wind drops.") && !text.includes("Someone else's line.");
    });
  }, 60_000);

  it("shows reconnecting while the server is down and refreshes what changed meanwhile", async () => {
    await page.getByRole("button", { name: "Cut", exact: true }).click();
    const first = (await episode()).shots[0].shot;
    await page.getByRole("option", { name: new RegExp(`^${first},`) }).click();
    const trimIn = page
      .getByRole("region", { name: `Clip ${first}` })
      .getByRole("spinbutton", { name: "Trim in" });
    await expect.poll(() => trimIn.inputValue()).toBe("4");
    const port = Number(new URL(server.url).port);
    await api("POST", "server/stop");
    await server.exited;
    const link = page.getByRole("status").filter({ hasText: /reconnecting|live|connecting/ });
    await until(
      "the reconnecting state",
      async () => /reconnecting/.test((await link.textContent()) ?? ""),
      15_000,
    );
    await view.shot("reconnecting");
    // While the server is away the cut changes on disk (another machine syncing the folder, say).
    const cutFile = path.join(ep(), "cut.json");
    await writeFile(cutFile, (await readFile(cutFile, "utf8")).replace(/"trim_in": 4/, '"trim_in": 6'));
    server = await startServer(env, port);
    await until("live again", async () => /live/.test((await link.textContent()) ?? ""), 30_000);
    await expect.poll(() => trimIn.inputValue(), { timeout: 15_000 }).toBe("6");
  }, 90_000);

  it("shows the queue and the settings", async () => {
    await page.getByRole("button", { name: "Queue", exact: true }).first().click();
    await until("the finished renders", () => page.getByRole("list", { name: "Finished jobs" }).isVisible());
    await view.shot("queue");
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await until("the server facts", () =>
      page
        .getByText(/ffmpeg/i)
        .first()
        .isVisible(),
    );
    await view.shot("settings");
  }, 120_000);

  it("goes back through the views, opens deep links, moves with the keys, and logged no page errors", async () => {
    // The browser's back returns to the views visited, each in the address.
    await page.goBack();
    await page.waitForURL(/view=queue/);
    await until("the queue again", () => page.getByRole("list", { name: "Finished jobs" }).isVisible());
    await page.goBack();
    await page.waitForURL(/view=cut/);
    // The cut assembled earlier is found where assembling wrote it, for a page opened later.
    const last = await api<{ assembled: { output: string } | null }>(
      "GET",
      `assemble/last?ep=${encodeURIComponent(ep())}&pass=proxy`,
    );
    expect(last.assembled?.output).toBe("renders_proxy/ep01_proxy.mp4");
    // A deep link opens the shot it names, and the keys move between shots.
    const shots = (await episode()).shots.map((s) => s.shot);
    await page.goto(`${server.url}/studio/?ep=${encodeURIComponent(ep())}&shot=${shots[1]}`);
    await until("the linked shot", () => page.getByRole("region", { name: `Shot ${shots[1]}` }).isVisible());
    await page.keyboard.press("j");
    await page.waitForURL(new RegExp(`shot=${shots[2]}`));
    await page.keyboard.press("k");
    await page.waitForURL(new RegExp(`shot=${shots[1]}`));
    await page.keyboard.press("?");
    const sheet = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await until("the shortcut list", () => sheet.isVisible());
    expect(await sheet.textContent()).toMatch(/Space/);
    await view.shot("shortcuts");
    await page.keyboard.press("Escape");
    // A request the server refused while it was down is not a page error; anything else is.
    expect(
      view.problems.filter((p) => !/Failed to load resource|ERR_CONNECTION_REFUSED|WebSocket/.test(p)),
    ).toEqual([]);
  }, 180_000);
});

/** What the test reads of a <video> element (the tests are type-checked without the DOM's types). */
interface Played {
  duration: number;
  currentTime: number;
  muted: boolean;
  ended: boolean;
  play(): Promise<void>;
}

/** The index of "every shot" in the render bar's shot chooser. */
async function allIndex(p: Page): Promise<number> {
  const labels = await p.getByRole("combobox", { name: "Shots" }).locator("option").allTextContents();
  const i = labels.findIndex((l) => /^(all|every)/i.test(l.trim()));
  if (i < 0) throw new Error(`no "all shots" choice among ${JSON.stringify(labels)}`);
  return i;
}
