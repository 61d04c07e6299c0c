// The References view end to end in a real Chromium on a real `node runtime/serve.js`: a starter episode whose
// shots cast Riley (his sheet path set, no sheet yet) rendered on `animatic`; four view pictures dropped on the four
// view columns with their upload progress shown; the sheet stitched from them (checked by pixels); renders that
// record the sheet; another side view imported and picked in the page; the shots that show Riley turned `ref`-stale.
// Screenshots go to test-results/ (refs-sheet.png, refs-stale.png).
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type OpenPage, openPage } from "./support/browser.ts";
import { serverApi, until } from "./support/e2e.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

let dir: string;
let shows: string;
let server: ServerProcess;
let browser: Browser;
let view: OpenPage;
let page: Page;
const ep = () => path.join(shows, "ep01");
/** The starter's series config names Riley's sheet one folder up, in the series home. */
const sheetFile = () => path.join(shows, "refs", "riley", "riley_sheet_4panel.png");

const api = serverApi(() => server.url);

interface Episode {
  shots: {
    shot: string;
    subjects: unknown;
    takes: { take: number; status: string; stale: string[] }[];
  }[];
}
const episode = () => api<Episode>("GET", `episode?ep=${encodeURIComponent(ep())}&pass=proxy`);

/** Poll until `check` holds (the page, the uploads and the renders move at their own pace). */
/** Renders every shot of the proxy pass once more and waits for all of them to finish. */
async function renderAll(): Promise<void> {
  const before = await episode();
  const counts = new Map(before.shots.map((s) => [s.shot, s.takes.length]));
  // `redo`: a shot with a usable take is otherwise skipped.
  await api("POST", "render", { ep: ep(), pass: "proxy", redo: true });
  await until(
    "every shot's new take",
    async () =>
      (await episode()).shots.every(
        (s) => s.takes.length > (counts.get(s.shot) ?? 0) && s.takes.every((t) => t.status === "ok"),
      ),
    120_000,
  );
}

type Rgb = [number, number, number];
/** The four views' figure colours, in sheet order (three-quarter, side, back, face), and the second side's. */
const COLOURS: Rgb[] = [
  [220, 40, 40],
  [40, 180, 60],
  [40, 70, 220],
  [230, 200, 30],
];
const SECOND_SIDE: Rgb = [200, 40, 200];
const BACKGROUND: Rgb = [226, 226, 226];

/** A view picture: a coloured standing figure on a light plain background, as PNG bytes. */
async function viewPicture(colour: Rgb): Promise<Buffer> {
  const figure = await sharp({
    create: {
      width: 120,
      height: 300,
      channels: 3,
      background: { r: colour[0], g: colour[1], b: colour[2] },
    },
  })
    .png()
    .toBuffer();
  return sharp({
    create: {
      width: 256,
      height: 384,
      channels: 3,
      background: { r: BACKGROUND[0], g: BACKGROUND[1], b: BACKGROUND[2] },
    },
  })
    .composite([{ input: figure, gravity: "centre" }])
    .png()
    .toBuffer();
}

/**
 * Drops files on `target` as a person dragging them from their file manager would: a real `drop` event whose
 * DataTransfer carries Files made in the page from the bytes given.
 */
async function dropFiles(target: Locator, files: { name: string; bytes: Buffer }[]): Promise<void> {
  // Page code as text: the test's own compile has no DOM types.
  const payload = JSON.stringify(files.map((f) => ({ name: f.name, b64: f.bytes.toString("base64") })));
  const transfer = await target.page().evaluateHandle(`(() => {
    const dt = new DataTransfer();
    for (const { name, b64 } of ${payload}) {
      const raw = atob(b64);
      const data = new Uint8Array(raw.length);
      for (let i = 0; i < raw.length; i++) data[i] = raw.charCodeAt(i);
      dt.items.add(new File([data], name, { type: "image/png" }));
    }
    return dt;
  })()`);
  await target.dispatchEvent("dragenter", { dataTransfer: transfer });
  await target.dispatchEvent("dragover", { dataTransfer: transfer });
  await target.dispatchEvent("drop", { dataTransfer: transfer });
  await transfer.dispose();
}

/** The starter's shots that cast Riley (sh040 shows nobody). */
const RILEY_SHOTS = ["sh010", "sh020", "sh030"];

/** A shot's row in the Shots view's list. */
const shotRow = (shot: string) =>
  page.getByRole("listitem").filter({ has: page.getByRole("button", { name: new RegExp(`^${shot}\\b`) }) });

const sha1 = async (file: string) =>
  createHash("sha1")
    .update(await readFile(file))
    .digest("hex");

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "studio-page-refs-"));
  shows = path.join(dir, "shows");
  await mkdir(shows, { recursive: true });
  server = await startServer({
    STUDIO_HOME: path.join(dir, "home"),
    STUDIO_ROOTS: shows,
    STUDIO_LOG: "warn",
  });
  // The starter episode: Riley is cast in sh010–sh030, his sheet path set in the series config, no file there yet.
  await api("POST", "episode/new", { parent: shows, name: "ep01", title: "The Gold Path" });
  await api("POST", "build", { ep: ep() });
  await renderAll();
  browser = await launchBrowser();
  view = await openPage(browser, `${server.url}/studio/?ep=${encodeURIComponent(ep())}&view=refs`);
  page = view.page;
  // Every "Uploading …" bar the page shows, seen as it appears (a small file on loopback is gone within a frame).
  await page.evaluate(`(() => {
    const seen = [];
    window.uploadsSeen = seen;
    new MutationObserver(() => {
      for (const bar of document.querySelectorAll("progress[aria-label^='Uploading ']")) {
        const label = bar.getAttribute("aria-label") ?? "";
        if (!seen.includes(label)) seen.push(label);
      }
    }).observe(document.body, { childList: true, subtree: true, attributes: true });
  })()`);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  server?.child.kill("SIGTERM");
  await server?.exited;
  await rm(dir, { recursive: true, force: true });
});

describe("the References view", () => {
  it("recorded Riley's sheet as a missing optional slot in the first renders", async () => {
    const sidecar = JSON.parse(
      await readFile(path.join(ep(), "renders_proxy", "sh010", "sh010_t01.json"), "utf8"),
    );
    const slot = sidecar.refs.find((r: { subject?: string }) => r.subject === "riley");
    expect(slot).toMatchObject({ path: "../refs/riley/riley_sheet_4panel.png", optional: true, sha1: null });
  });

  it("imports four view pictures by dropping them on the view columns, with upload progress", async () => {
    await page.getByRole("button", { name: /subject:riley/ }).click();
    const detail = page.getByRole("region", { name: "Reference Riley" });
    await expect
      .poll(() => detail.getByRole("img", { name: /^Live picture of Riley: No picture/ }).count())
      .toBe(1);
    const views = ["Three-quarter", "Side", "Back", "Face"];
    for (const [i, title] of views.entries()) {
      const column = detail.getByRole("region", { name: `${title} view of Riley` });
      const where = `Riley ${title.toLowerCase()}`;
      const name = `riley_${["threequarter", "side", "back", "face"][i]}.png`;
      await dropFiles(column.getByRole("group", { name: `Import into ${where}` }), [
        { name, bytes: await viewPicture(COLOURS[i]) },
      ]);
      // The candidate arrives in its own column, made live ("Make imports live" is on by default).
      const label = `${title.toLowerCase()} t01`;
      const card = column.getByRole("article", { name: `Candidate ${label} of Riley` });
      await card.waitFor({ timeout: 30_000 });
      await expect.poll(() => card.getByText("live", { exact: true }).count(), { timeout: 30_000 }).toBe(1);
    }
    const seen = (await page.evaluate("window.uploadsSeen")) as string[];
    expect(seen).toEqual([
      "Uploading riley_threequarter.png",
      "Uploading riley_side.png",
      "Uploading riley_back.png",
      "Uploading riley_face.png",
    ]);
  }, 90_000);

  it("shows the sheet stitched from the four pictures", async () => {
    const live = page.getByRole("img", { name: "Live picture of Riley", exact: true });
    await live.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => live.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth), {
        timeout: 15_000,
      })
      .toBeGreaterThan(0);
    // The list row says it is live too.
    await expect
      .poll(() => page.getByRole("button", { name: /subject:riley/ }).textContent())
      .toMatch(/live/);
    await view.shot("refs-sheet");
    // By pixels: four equal panels side by side, each showing its view's figure at its centre, the page's file the
    // one on disk.
    const served = Buffer.from(
      await (
        await fetch(
          `${server.url}/studio/file?ep=${encodeURIComponent(ep())}&path=${encodeURIComponent("../refs/riley/riley_sheet_4panel.png")}`,
        )
      ).arrayBuffer(),
    );
    expect(served.equals(await readFile(sheetFile()))).toBe(true);
    const { data, info } = await sharp(served).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const panel = info.width / 4;
    expect(Number.isInteger(panel)).toBe(true);
    const at = (x: number, y: number) => {
      const o = (Math.round(y) * info.width + Math.round(x)) * info.channels;
      return [data[o], data[o + 1], data[o + 2]];
    };
    for (const [i, colour] of COLOURS.entries()) {
      const centre = at(panel * i + panel / 2, info.height / 2);
      for (let c = 0; c < 3; c++)
        expect(Math.abs(centre[c] - colour[c]), `panel ${i + 1}: ${centre}`).toBeLessThan(8);
      const corner = at(panel * i + 2, 2);
      for (let c = 0; c < 3; c++)
        expect(Math.abs(corner[c] - BACKGROUND[c]), `panel ${i + 1} corner`).toBeLessThan(8);
    }
  }, 60_000);

  it("renders the shots again, recording the stitched sheet", async () => {
    await renderAll();
    const sheet = await sha1(sheetFile());
    const sidecar = JSON.parse(
      await readFile(path.join(ep(), "renders_proxy", "sh020", "sh020_t02.json"), "utf8"),
    );
    expect(sidecar.refs.find((r: { subject?: string }) => r.subject === "riley")?.sha1).toBe(sheet);
    // The new takes are current; the first ones went `ref`-stale when the sheet appeared where they had none.
    const shots = (await episode()).shots;
    expect(shots.map((s) => s.takes.find((t) => t.take === 2)?.stale)).toEqual([[], [], [], []]);
    expect(shots.filter((s) => s.takes[0].stale.includes("ref")).map((s) => s.shot)).toEqual(RILEY_SHOTS);
    // The Shots view shows the rows current (each shows its newest take).
    await page.getByRole("button", { name: "Shots", exact: true }).click();
    for (const shot of [...RILEY_SHOTS, "sh040"]) {
      const row = shotRow(shot);
      await expect.poll(() => row.getByText(/^t02 /).count(), { timeout: 15_000 }).toBe(1);
      expect(await row.getByTitle("Out of date: ref changed").count()).toBe(0);
    }
  }, 150_000);

  it("imports another side view, picks it in the page, and the shots that show Riley turn ref-stale", async () => {
    await page.getByRole("button", { name: "References", exact: true }).click();
    const detail = page.getByRole("region", { name: "Reference Riley" });
    const before = await sha1(sheetFile());
    // Imported as a candidate only, then picked by hand.
    await detail.getByRole("checkbox", { name: "Make imports live" }).uncheck();
    const side = detail.getByRole("region", { name: "Side view of Riley" });
    await dropFiles(side.getByRole("group", { name: "Import into Riley side" }), [
      { name: "riley_side_v2.png", bytes: await viewPicture(SECOND_SIDE) },
    ]);
    const card = side.getByRole("article", { name: "Candidate side t02 of Riley" });
    await card.waitFor({ timeout: 30_000 });
    expect(await card.getByText("live", { exact: true }).count()).toBe(0);
    await card.getByRole("button", { name: "Pick side t02 of Riley" }).click();
    await expect.poll(() => card.getByText("live", { exact: true }).count(), { timeout: 30_000 }).toBe(1);
    await until("the sheet stitched again", async () => (await sha1(sheetFile())) !== before, 30_000);
    // The second panel is the new side view.
    const { data, info } = await sharp(sheetFile()).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const o = (Math.round(info.height / 2) * info.width + Math.round((info.width / 4) * 1.5)) * info.channels;
    for (let c = 0; c < 3; c++) expect(Math.abs(data[o + c] - SECOND_SIDE[c])).toBeLessThan(8);

    // The service says which takes went stale: every shot casting Riley, and not sh040 (nobody in it).
    const stale = await until("the ref-stale takes", async () => {
      const e = await episode();
      const marked = e.shots.filter((s) => s.takes.find((t) => t.take === 2)?.stale.includes("ref"));
      return marked.length ? marked.map((s) => s.shot) : null;
    });
    expect(stale).toEqual(RILEY_SHOTS);

    // The Shots view shows it on each row, without a reload.
    await page.getByRole("button", { name: "Shots", exact: true }).click();
    for (const shot of RILEY_SHOTS) {
      await expect
        .poll(() => shotRow(shot).getByTitle("Out of date: ref changed").count(), { timeout: 15_000 })
        .toBe(1);
    }
    expect(await shotRow("sh040").getByTitle("Out of date: ref changed").count()).toBe(0);
    await view.shot("refs-stale");
  }, 90_000);

  it("imports files dropped on the whole view into the references their names match, listing the rest", async () => {
    await page.getByRole("button", { name: "References", exact: true }).click();
    const bytes = await viewPicture([120, 90, 60]);
    // Dropped on the list, outside any reference's own zone.
    await dropFiles(page.getByRole("region", { name: "Props" }), [
      { name: "backpack.png", bytes },
      { name: "street_final.png", bytes },
      { name: "treasure_map.png", bytes },
    ]);
    const report = page.getByRole("region", { name: "Import of dropped files" });
    await expect.poll(() => report.textContent(), { timeout: 30_000 }).toMatch(/2 of 3 files imported/);
    const imported = report.getByRole("list", { name: "Files imported" });
    expect(await imported.textContent()).toMatch(/backpack\.png.*into Riley's backpack/);
    expect(await imported.textContent()).toMatch(/street_final\.png.*into street/);
    expect(await report.getByRole("list", { name: "Files not imported" }).textContent()).toMatch(
      /treasure_map\.png.*no picture reference of this episode is called "treasure_map"/,
    );
    // Each made live ("Make imports live" is on again in a fresh view), its row saying so.
    const refs = await api<{ refs: { id: string; exists: boolean }[] }>(
      "GET",
      `refs?ep=${encodeURIComponent(ep())}`,
    );
    expect(refs.refs.filter((r) => r.exists).map((r) => r.id)).toEqual(
      expect.arrayContaining(["subject:backpack", "location:street"]),
    );
    await expect
      .poll(() => page.getByRole("button", { name: /subject:backpack/ }).textContent())
      .toMatch(/live/);
    await view.shot("refs-bulk");
    await report.getByRole("button", { name: "Close the import report" }).click();
    await expect.poll(() => report.count()).toBe(0);
    expect(view.problems).toEqual([]);
  }, 60_000);
});
