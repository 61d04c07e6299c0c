// Simple-mode projects for real: POST /studio/clips/ensure makes `<root>/Clips/` (series config marked simple, the
// episode `clips/`) once and finds it after, in the root asked for or the first one; POST /studio/clips/new names a
// show folder from a title; every refusal (no root, a root outside, a title with no letters, a folder taken).
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { projectFolderName } from "../lib/clips/new-clip.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
beforeAll(async () => {
  s = await makeStudio({ outside: true });
});
afterAll(async () => {
  await s.cleanup();
});
beforeEach(() => {
  s.env.events.length = 0;
});

const episodeEvents = () => s.env.events.filter((e) => e.type === "studio.episode").map((e) => e.data);

describe("POST /studio/clips/ensure", () => {
  it("makes the Clips project in the first root, marked simple, and finds it the second time", async () => {
    const first = await s.call("POST", "/clips/ensure", {});
    expect(first.status).toBe(200);
    const ep = path.join(s.root, "Clips", "clips");
    expect(first.body).toEqual({ ep, made: true });
    expect(episodeEvents()).toEqual([{ ep }]);
    const series = JSON.parse(await readFile(path.join(s.root, "Clips", "series.json"), "utf8"));
    expect(series.simple).toBe(true);
    expect(series.series.title).toBe("Clips");
    expect(await readFile(path.join(ep, "clips.md"), "utf8")).toBe("= clips  Clips\n");

    const listed = (await s.call("GET", "/episodes")).body as Any[];
    expect(listed.find((e) => e.ep === ep)).toMatchObject({ name: "clips", simple: true, series: "Clips" });

    s.env.events.length = 0;
    const again = await s.call("POST", "/clips/ensure", {});
    expect(again.body).toEqual({ ep, made: false });
    expect(episodeEvents()).toEqual([]);
  });

  it("makes again only the part that was removed, leaving the rest as it was", async () => {
    const ep = path.join(s.root, "Clips", "clips");
    const config = path.join(s.root, "Clips", "series.json");
    await writeFile(config, '{"series": {"id": "mine", "title": "Mine"}, "simple": true}\n');
    await rm(path.join(ep, "clips.md"));
    const answer = await s.call("POST", "/clips/ensure", {});
    expect(answer.body).toEqual({ ep, made: true });
    expect(await readFile(config, "utf8")).toContain('"Mine"');
    expect(await readFile(path.join(ep, "clips.md"), "utf8")).toBe("= clips  Clips\n");
  });

  it("two calls at once make it once", async () => {
    const show = await s.show("racing");
    const answers = await Promise.all([
      s.call("POST", "/clips/ensure", { root: show }),
      s.call("POST", "/clips/ensure", { root: show }),
    ]);
    expect(answers.map((a) => (a.body as Any).made).sort()).toEqual([false, true]);
  });

  it("goes in the root asked for; refuses one outside the roots (403), a missing one or none at all (409)", async () => {
    const other = await s.show("other-root");
    const answer = await s.call("POST", "/clips/ensure", { root: other });
    expect(answer.body).toEqual({ ep: path.join(other, "Clips", "clips"), made: true });

    const outside = await s.call("POST", "/clips/ensure", { root: s.outside });
    expect(outside.status).toBe(403);
    expect((outside.body as Any).error).toMatch(/outside the configured roots/);

    const missing = await s.call("POST", "/clips/ensure", { root: path.join(s.root, "nope") });
    expect(missing.status).toBe(409);

    const relative = await s.call("POST", "/clips/ensure", { root: "shows" });
    expect(relative.status).toBe(400);

    const saved = s.env.services.env.STUDIO_ROOTS;
    s.env.services.env.STUDIO_ROOTS = path.join(s.root, "gone");
    try {
      const none = await s.call("POST", "/clips/ensure", {});
      expect(none.status).toBe(409);
      expect((none.body as Any).error).toMatch(/no root exists/);
    } finally {
      s.env.services.env.STUDIO_ROOTS = saved;
    }
  });

  it("refuses a Clips that is a file (409) or a link leading out of the roots (403)", async () => {
    const show = await s.show("with-file");
    await writeFile(path.join(show, "Clips"), "not a folder");
    expect((await s.call("POST", "/clips/ensure", { root: show })).status).toBe(409);

    const linked = await s.show("with-link");
    await mkdir(path.join(s.outside, "Clips-target"), { recursive: true });
    await symlink(path.join(s.outside, "Clips-target"), path.join(linked, "Clips"));
    const out = await s.call("POST", "/clips/ensure", { root: linked });
    expect(out.status).toBe(403);
  });
});

describe("POST /studio/clips/new", () => {
  it("names the show folder from the title and writes a simple config and the clips episode", async () => {
    const answer = await s.call("POST", "/clips/new", { title: "  Sunset Chase: Take Two!  " });
    expect(answer.status).toBe(200);
    const ep = path.join(s.root, "Sunset-Chase-Take-Two", "clips");
    expect(answer.body).toEqual({ ep });
    expect(episodeEvents()).toEqual([{ ep }]);
    const series = JSON.parse(
      await readFile(path.join(s.root, "Sunset-Chase-Take-Two", "series.json"), "utf8"),
    );
    expect(series).toMatchObject({
      simple: true,
      series: { id: "sunset_chase_take_two", title: "Sunset Chase: Take Two!" },
    });
    expect(await readFile(path.join(ep, "clips.md"), "utf8")).toBe("= clips  Sunset Chase: Take Two!\n");
  });

  it("refuses a title with no letters or digits (400), a folder that exists (409) and no root (409)", async () => {
    const blank = await s.call("POST", "/clips/new", { title: " !?-- " });
    expect(blank.status).toBe(400);
    expect((blank.body as Any).error).toMatch(/no letters or digits/);

    await s.call("POST", "/clips/new", { title: "Twice" });
    const taken = await s.call("POST", "/clips/new", { title: "Twice" });
    expect(taken.status).toBe(409);
    expect((taken.body as Any).error).toMatch(/already exists/);

    const saved = s.env.services.env.STUDIO_ROOTS;
    s.env.services.env.STUDIO_ROOTS = path.join(s.root, "gone");
    try {
      expect((await s.call("POST", "/clips/new", { title: "Nowhere" })).status).toBe(409);
    } finally {
      s.env.services.env.STUDIO_ROOTS = saved;
    }
    expect((await s.call("POST", "/clips/new", {})).status).toBe(400);
  });

  it("folder names follow the folder-name rules", () => {
    expect(projectFolderName("Café au lait")).toBe("Cafe-au-lait");
    expect(projectFolderName("refs")).toBe("refs-clips");
    expect(projectFolderName("NUL")).toBe("NUL-clips");
    expect(projectFolderName("...hidden...")).toBe("hidden");
    expect(projectFolderName("x".repeat(100))).toHaveLength(64);
    expect(() => projectFolderName("日本語")).toThrow(/no letters or digits/);
  });
});
