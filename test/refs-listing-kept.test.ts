// GET /studio/refs keeps each reference as last listed and the answer's text while nothing changed: every change
// a route or the disk makes (an override, the defaults, a pick, a new candidate) still shows in the next listing,
// and putting a change back answers the first text again. What follows an answer looks only at references the
// listing saw pending: a queued take whose job is gone is still closed when the live file is in place.
import { mkdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { folderFence } from "../lib/paths/guarded.ts";
import { parseRefId } from "../lib/refs/ids.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { listRefsAt } from "../lib/refs/listing.ts";
import { refsPlace } from "../lib/refs/place.ts";
import { addTake, copyFrom, listTakes } from "../lib/refs/takes.ts";
import { SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();

/** An imported picture of one colour as a new candidate of `ref`; answers its take number. */
async function candidate(
  ep: string,
  ref: string,
  rgb: [number, number, number],
  view: "01_threequarter" | null = null,
): Promise<number> {
  const dir = path.join(path.dirname(ep), "_in");
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${rgb.join("-")}.png`);
  await sharp({
    create: { width: 8, height: 8, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
  })
    .png()
    .toFile(file);
  const place = await refsPlace(s.env.services, ep);
  const made = await addTake(s.env.services, place, parseRefId(ref), {
    view,
    ext: "png",
    write: copyFrom(folderFence(path.dirname(ep), "the show"), file),
    fields: { source: "imported" },
  });
  // A takes folder changed this very moment is read again at every listing; one a minute old is kept.
  const past = new Date(Date.now() - 60_000);
  await utimes(path.dirname(made.sidecarPath), past, past);
  return made.take;
}

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
const listing = async (ep: string): Promise<any> => {
  const res = await s.call("GET", "/refs", { ep });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await afterAnswerSettled(s.env.services, ep);
  return res.body;
};

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
const find = (body: any, id: string) => body.refs.find((r: { id: string }) => r.id === id);

describe("GET /studio/refs kept between listings", () => {
  it("shows an override, new defaults and a new pick, and answers as before once they are undone", async () => {
    const ep = await s.episode(SCRIPT);
    const first = await candidate(ep, "subject:kettle", [200, 10, 10]);
    await listing(ep); // auto-pick places the first candidate
    const before = await listing(ep);
    expect(find(before, "subject:kettle")).toMatchObject({ exists: true, picked: first });
    expect(await listing(ep)).toEqual(before);
    // Kept indeed: the same objects and the same text again.
    const place = await refsPlace(s.env.services, ep);
    const [a, b] = [await listRefsAt(s.env.services, place), await listRefsAt(s.env.services, place)];
    expect(b.refs.every((r, i) => r === a.refs[i])).toBe(true);
    expect(b.text).toBe(a.text);
    expect(JSON.parse(a.text)).toEqual(before);

    const prompt = "a brass kettle, dented on one side";
    expect(
      (await s.call("PUT", "/refs/override", { ep, ref: "subject:kettle", fields: { prompt } })).status,
    ).toBe(200);
    const overridden = await listing(ep);
    expect(find(overridden, "subject:kettle").prompt).toBe(prompt);
    expect(find(overridden, "subject:kettle").effective.prompt).toBe(prompt);
    expect((await s.call("DELETE", "/refs/override", { ep, ref: "subject:kettle" })).status).toBe(200);
    expect(await listing(ep)).toEqual(before);

    expect((await s.call("PUT", "/refs/defaults", { ep, target: "flux2_klein_edit" })).status).toBe(200);
    const retargeted = await listing(ep);
    expect(retargeted.defaults).toMatchObject({ target: "flux2_klein_edit", target_source: "editor" });
    expect(find(retargeted, "subject:kettle").effective.target).toBe("flux2_klein_edit");
    expect((await s.call("PUT", "/refs/defaults", { ep, target: null })).status).toBe(200);
    expect(await listing(ep)).toEqual(before);

    const second = await candidate(ep, "subject:kettle", [10, 10, 200]);
    const added = await listing(ep);
    expect(find(added, "subject:kettle").takes.map((t: { take: number }) => t.take)).toEqual([first, second]);
    expect((await s.call("PUT", "/refs/pick", { ep, ref: "subject:kettle", take: second })).status).toBe(200);
    const repicked = await listing(ep);
    expect(find(repicked, "subject:kettle")).toMatchObject({ picked: second, live_owner: ep });
    expect(find(repicked, "subject:kettle").sha1).not.toBe(find(before, "subject:kettle").sha1);
    expect((await s.call("PUT", "/refs/pick", { ep, ref: "subject:kettle", take: first })).status).toBe(200);
    const back = await listing(ep);
    expect(find(back, "subject:kettle")).toEqual({
      ...find(before, "subject:kettle"),
      takes: find(added, "subject:kettle").takes,
    });
  });

  it("shows a character's view pick, which changes no live file until all four views are picked", async () => {
    const ep = await s.episode(SCRIPT);
    const take = await candidate(ep, "subject:ada", [90, 90, 20], "01_threequarter");
    await writeFile(
      path.join(ep, "refs/_picks.json"),
      JSON.stringify({ version: 1, refs: { "subject:ada": { cleared: "2026-01-01T00:00:00" } } }),
    );
    const before = await listing(ep);
    expect(await listing(ep)).toEqual(before);
    const view = () => find(before, "subject:ada").views[0];
    expect(view()).toMatchObject({ view: "01_threequarter", picked: null });
    const res = await s.call("PUT", "/refs/pick", { ep, ref: "subject:ada", view: "01_threequarter", take });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = find(await listing(ep), "subject:ada");
    expect(after).toMatchObject({ exists: false, cleared: false });
    expect(after.views[0]).toMatchObject({ view: "01_threequarter", picked: take });
  });

  it("sees the first candidate of a reference whose takes folder appears under a kept refs/_takes", async () => {
    const ep = await s.episode(SCRIPT);
    await candidate(ep, "subject:kettle", [30, 30, 30]);
    await listing(ep); // auto-pick places it
    const parent = path.join(ep, "refs/_takes");
    const past = new Date(Date.now() - 60_000);
    await utimes(parent, past, past);
    const before = await listing(ep);
    expect(find(before, "location:street").takes).toEqual([]);
    expect(await listing(ep)).toEqual(before);
    const take = await candidate(ep, "location:street", [40, 50, 60]);
    const after = await listing(ep);
    expect(find(after, "location:street").takes.map((t: { take: number }) => t.take)).toEqual([take]);
  });

  it("closes a queued take whose job is gone on a reference whose live file is in place", async () => {
    const ep = await s.episode(SCRIPT);
    await candidate(ep, "subject:kettle", [20, 120, 20]);
    await listing(ep);
    expect(find(await listing(ep), "subject:kettle").exists).toBe(true);
    // A take queued long ago by a job nobody holds any more, written as a render's reservation leaves it.
    const dir = path.join(ep, "refs/_takes/subject__kettle");
    await writeFile(
      path.join(dir, "subject__kettle_t02.json"),
      JSON.stringify({
        version: 1,
        ref: "subject:kettle",
        view: null,
        take: 2,
        status: "queued",
        job: "gone-job",
        queued: "2020-01-01T00:00:00",
      }),
    );
    const swept = await listing(ep);
    expect(find(swept, "subject:kettle").takes.map((t: { status: string }) => t.status)).toEqual([
      "ok",
      "queued",
    ]);
    const place = await refsPlace(s.env.services, ep);
    const takes = await listTakes(s.env.services, place, parseRefId("subject:kettle"));
    expect(takes.map((t) => t.status)).toEqual(["ok", "failed"]);
    expect(s.env.events).toContainEqual({
      type: "studio.ref",
      data: { ep, ref: "subject:kettle", view: null, take: 2, status: "failed" },
    });
    expect(find(await listing(ep), "subject:kettle").takes.map((t: { status: string }) => t.status)).toEqual([
      "ok",
      "failed",
    ]);
  });
});
