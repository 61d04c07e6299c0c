// The Cut view's recording end to end in a real Chromium on a real server: a generated track (sound at 1–2.5 s and
// 3.5–4.5 s, silence around) set with "Set recording…" (a multipart POST /studio/track), its waveform drawn from
// GET /studio/peaks (loud where the sound is, a hairline where it is not), the shots' audio windows shown, one
// dragged by its edge and one nudged from the keyboard, each written back into the script's `audio:` line.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type OpenPage, openPage } from "./support/browser.ts";
import { poller, serverApi } from "./support/e2e.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

const run = promisify(execFile);

let dir: string;
let shows: string;
let server: ServerProcess;
let browser: Browser;
let view: OpenPage;
let page: Page;
let track: string;
const ep = () => path.join(shows, "show", "ep01");

const api = serverApi(() => server.url);

interface Episode {
  track: { path: string; exists: boolean } | null;
  shots: { shot: string; audio_in: number | null; audio_out: number | null }[];
}
const episode = () => api<Episode>("GET", `episode?ep=${encodeURIComponent(ep())}&pass=proxy`);
const script = () => readFile(path.join(ep(), "ep01.md"), "utf8");
/** The `audio:` line of a shot's block in the script on disk, or null. */
async function windowLine(shot: string): Promise<string | null> {
  const text = await script();
  const block = text.split(/^## /m).find((b) => b.startsWith(`${shot}\n`));
  return block ? (/^audio:\s*(\S+)$/m.exec(block)?.[1] ?? null) : null;
}

const until = poller({ ms: 30_000 });

/**
 * The tallest drawn run of wave pixels in the canvas column under a time of the track, in CSS pixels. The script
 * is text: it runs in the page, and this file is checked without the browser's types.
 */
async function drawnHeightAt(t: number): Promise<number> {
  const script = `(() => {
    const at = ${JSON.stringify(t)};
    const c = document.querySelector(".wave-canvas");
    const strip = document.querySelector(".wave-strip");
    const slider = document.querySelector(".wave-edge.in");
    if (!c || !strip || !slider) return -1;
    // The zoom: a window's start edge sits at audio_in × zoom pixels.
    const li = slider.parentElement;
    const zoom = Number.parseFloat(li.style.left) / Number(slider.getAttribute("aria-valuenow"));
    const x = at * zoom - Number.parseFloat(c.style.left || "0");
    const dpr = c.width / c.clientWidth;
    const g = c.getContext("2d");
    if (!g) return -1;
    const col = g.getImageData(Math.round(x * dpr), 0, 1, c.height).data;
    let n = 0;
    for (let i = 3; i < col.length; i += 4) if (col[i] > 0) n++;
    return n / dpr;
  })()`;
  return Number(await page.evaluate(script));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "studio-audio-page-"));
  shows = path.join(dir, "shows");
  await mkdir(path.join(shows, "show"), { recursive: true });
  server = await startServer({
    STUDIO_HOME: path.join(dir, "home"),
    STUDIO_ROOTS: shows,
    STUDIO_LOG: "warn",
  });
  await api("POST", "episode/new", { parent: path.join(shows, "show"), name: "ep01", title: "Audio" });
  await api("POST", "build", { ep: ep() });
  track = path.join(dir, "voice.wav");
  const sound = "if(between(t,1,2.5)+between(t,3.5,4.5),0.6*sin(2*PI*440*t),0)";
  await run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", `aevalsrc='${sound}':s=16000:d=5.5`, track]);
  browser = await launchBrowser();
  view = await openPage(browser, `${server.url}/studio/?ep=${encodeURIComponent(ep())}&view=cut&pass=proxy`);
  page = view.page;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  server?.child.kill("SIGTERM");
  await server?.exited;
  await rm(dir, { recursive: true, force: true });
});

describe("the Cut view's recording", () => {
  it("sets a recording from the page and draws its waveform", async () => {
    const recording = page.getByRole("region", { name: "Recording" });
    await recording.getByRole("button", { name: "Set recording…" }).waitFor({ timeout: 30_000 });
    await recording.locator("input[type=file]").setInputFiles(track);
    await until("the episode's track", async () => (await episode()).track?.path === "audio/voice.wav");
    await expect
      .poll(() => page.locator(".wave-name").textContent(), { timeout: 15_000 })
      .toBe("audio/voice.wav");

    // Windows written into the script arrive with the episode's event.
    const src = await api<{ text: string; hash: string }>(
      "GET",
      `source?ep=${encodeURIComponent(ep())}&file=script`,
    );
    const text = src.text
      .replace(/^size: mcu$/m, "size: mcu\naudio: 1.00-2.50")
      .replace(/^size: fs$/m, "size: fs\naudio: 3.50-4.50");
    await api("PUT", "source", { ep: ep(), file: "script", text, base_hash: src.hash });
    const windows = page.getByRole("list", { name: "Shot windows on the recording" });
    await expect.poll(() => windows.getByRole("button").count(), { timeout: 15_000 }).toBe(2);

    // Loud where the tone plays, a hairline in the silences.
    await expect.poll(() => drawnHeightAt(1.75), { timeout: 15_000 }).toBeGreaterThan(30);
    expect(await drawnHeightAt(0.5)).toBeLessThan(3);
    expect(await drawnHeightAt(3)).toBeLessThan(3);
    expect(await drawnHeightAt(4)).toBeGreaterThan(30);
    expect(view.problems).toEqual([]);
    await view.shot("cut-recording");
  }, 90_000);

  it("drags a window's edge and writes the script's audio: line", async () => {
    const end = page.getByRole("slider", { name: "End of sh020's window (seconds)" });
    const box = await end.boundingBox();
    if (!box) throw new Error("no end edge");
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2, { steps: 6 });
    await view.shot("cut-recording-drag");
    await page.mouse.up();
    const line = await until("the dragged window in the script", async () => {
      const l = await windowLine("sh020");
      return l && l !== "1.00-2.50" ? l : null;
    });
    const [a, b] = line.split("-").map(Number);
    expect(a).toBe(1);
    expect(b).toBeGreaterThan(2.5);
    expect(line).toMatch(/^\d+\.\d\d-\d+\.\d\d$/);
    // The page reads the window back from the episode.
    await until(
      "the episode's window",
      async () => (await episode()).shots.find((s) => s.shot === "sh020")?.audio_out === b,
    );
  }, 60_000);

  it("moves a whole window from the keyboard, saved once the keys stop", async () => {
    const body = page.getByRole("button", { name: /^sh030 window 3\.50-4\.50/ });
    await body.focus();
    await page.keyboard.press("Shift+ArrowRight");
    await page.keyboard.press("Shift+ArrowRight");
    await page.keyboard.press("ArrowLeft");
    await until("the moved window in the script", async () => (await windowLine("sh030")) === "3.69-4.69");
    expect(await windowLine("sh020")).not.toBe("1.00-2.50");
    expect(view.problems).toEqual([]);
  }, 60_000);

  it("runs a dry run of the aligner: its stages live, the report shown, nothing written", async () => {
    const before = await script();
    const panel = page.getByRole("region", { name: "Align to the recording" });
    await panel.getByRole("button", { name: "Dry run" }).click();
    await panel.getByText(/^Dry run: nothing written\. /).waitFor({ timeout: 90_000 });
    const stages = panel.getByRole("list", { name: "Alignment stages" });
    await expect.poll(() => stages.locator(".align-stage.done").count()).toBe(3);
    expect(await stages.textContent()).toContain("dry run — nothing written");
    await panel.getByText("Report", { exact: true }).click();
    expect(await panel.locator(".align-report pre").textContent()).toMatch(/dry run/i);
    expect(await script()).toBe(before);
    await view.shot("cut-align-dry-run");
    expect(view.problems).toEqual([]);
  }, 120_000);
});
