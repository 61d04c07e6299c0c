// Freshness of upscales and posts by the stamp of the file each was made from (size + mtime, else SHA-1), and the
// version a cut plays: a re-rendered take makes both stale, identical bytes copied back keep them fresh.
import { utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pyJson } from "../lib/script/canonical.ts";
import { postOf, sourceStamp, upscaleOf } from "../lib/upscale/fresh.ts";
import { playedVersion } from "../lib/upscale/versions.ts";
import { useStudio } from "./support/studio-episode.ts";

const studio = useStudio();

async function record(file: string, value: Record<string, unknown>) {
  await writeFile(file, pyJson(value, { indent: 2 }));
}

/** A take with a finished upscale and post, each stamped from the file it was made from. */
async function finished() {
  const ep = await studio.folder({});
  const stem = await studio.take(ep, "final", "sh010", 1, { sidecar: { width: 640, height: 360 } });
  const dir = path.join(ep, "renders", "sh010");
  await writeFile(path.join(dir, `${stem}.mp4`), "take bytes");
  await writeFile(path.join(dir, `${stem}.up.mp4`), "upscale bytes");
  await writeFile(path.join(dir, `${stem}.post.mp4`), "post bytes");
  const takeStamp = await sourceStamp(ep, path.join(dir, `${stem}.mp4`));
  await record(path.join(dir, `${stem}.up.json`), {
    shot: "sh010",
    take: 1,
    status: "ok",
    width: 1280,
    height: 720,
    ...takeStamp,
  });
  const upStamp = await sourceStamp(ep, path.join(dir, `${stem}.up.mp4`));
  await record(path.join(dir, `${stem}.post.json`), {
    shot: "sh010",
    take: 1,
    status: "ok",
    width: 1280,
    height: 720,
    ...upStamp,
  });
  return { ep, dir, stem };
}

const services = () => studio.env.services;

describe("upscale and post freshness", () => {
  it("fresh while the stamps hold; the post plays over the upscale", async () => {
    const { ep, dir, stem } = await finished();
    const up = await upscaleOf(services(), ep, "final", "sh010", 1);
    expect(up).toMatchObject({ status: "ok", fresh: true, mp4: path.join(dir, `${stem}.up.mp4`) });
    expect(await postOf(services(), ep, "final", "sh010", 1)).toMatchObject({ status: "ok", fresh: true });
    expect(
      await playedVersion(services(), ep, "final", "sh010", 1, { upscaled: true, post: "present" }),
    ).toEqual({
      file: path.join(dir, `${stem}.post.mp4`),
      kind: "post",
      width: 1280,
      height: 720,
      why: "its post",
    });
    expect(
      await playedVersion(services(), ep, "final", "sh010", 1, { upscaled: true, post: "off" }),
    ).toMatchObject({
      kind: "upscale",
      why: "its upscale",
    });
    expect(
      await playedVersion(services(), ep, "final", "sh010", 1, { upscaled: false, post: "off" }),
    ).toMatchObject({
      file: path.join(dir, `${stem}.mp4`),
      kind: "take",
      width: 640,
    });
  });

  it("a re-rendered take (other bytes) makes the upscale and its post stale", async () => {
    const { ep, dir, stem } = await finished();
    await writeFile(path.join(dir, `${stem}.mp4`), "a new render");
    expect(await upscaleOf(services(), ep, "final", "sh010", 1)).toMatchObject({ fresh: false });
    expect(await postOf(services(), ep, "final", "sh010", 1)).toMatchObject({ fresh: false });
    expect(
      await playedVersion(services(), ep, "final", "sh010", 1, { upscaled: true, post: "present" }),
    ).toMatchObject({
      kind: "take",
      why: "its take (its upscale was made from an older take)",
    });
  });

  it("identical bytes copied back (new mtime, same SHA-1) stay fresh", async () => {
    const { ep, dir, stem } = await finished();
    const later = new Date(Date.now() + 60_000);
    await writeFile(path.join(dir, `${stem}.mp4`), "take bytes");
    await utimes(path.join(dir, `${stem}.mp4`), later, later);
    expect(await upscaleOf(services(), ep, "final", "sh010", 1)).toMatchObject({ fresh: true });
    expect(await postOf(services(), ep, "final", "sh010", 1)).toMatchObject({ fresh: true });
  });

  it("a changed upscale makes only the post stale; queued and failed records are never fresh", async () => {
    const { ep, dir, stem } = await finished();
    await writeFile(path.join(dir, `${stem}.up.mp4`), "another upscale");
    const up = await upscaleOf(services(), ep, "final", "sh010", 1);
    expect(up?.fresh).toBe(true);
    expect(await postOf(services(), ep, "final", "sh010", 1)).toMatchObject({ fresh: false });
    expect(
      await playedVersion(services(), ep, "final", "sh010", 1, { upscaled: true, post: "present" }),
    ).toMatchObject({
      kind: "upscale",
      why: "its upscale (its post is stale)",
    });
    await record(path.join(dir, `${stem}.up.json`), { ...up?.record, status: "failed" });
    expect(await upscaleOf(services(), ep, "final", "sh010", 1)).toMatchObject({
      status: "failed",
      fresh: false,
    });
    await writeFile(path.join(dir, `${stem}.up.json`), "{ half written");
    expect(await upscaleOf(services(), ep, "final", "sh010", 1)).toMatchObject({
      status: "queued",
      fresh: false,
    });
  });

  it("no record: null, and the take plays", async () => {
    const ep = await studio.folder({});
    await studio.take(ep, "final", "sh020", 2);
    expect(await upscaleOf(services(), ep, "final", "sh020", 2)).toBeNull();
    expect(
      await playedVersion(services(), ep, "final", "sh020", 2, { upscaled: true, post: "off" }),
    ).toMatchObject({
      kind: "take",
      why: "its take (not upscaled yet)",
    });
  });
});
