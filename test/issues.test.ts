// GET/POST/DELETE /studio/issues and GET /studio/issues/export: snapshots, `addressed`, bulk deletes, the export.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readBuild } from "../lib/episode/shotlists.ts";
import { storyHash } from "../lib/script/canonical.ts";
import { createCaches } from "../lib/store/caches.ts";
import { refusal, SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();

const issuesFile = (ep: string) => path.join(ep, "_issues.json");
const note = (ep: string, body: Record<string, unknown>) =>
  s.call("POST", "/issues", { ep, pass: "proxy", shot: "sh010", note: "Ada's coat is blue", ...body });

describe("POST /studio/issues", () => {
  it("snapshots the shot as rendered: take, script lines, prompt, seed, refs and the take's file", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 1, { seed: "9223372036854775000" });
    await s.take(ep, "proxy", "sh010", 2, { seed: 777 });
    await s.call("PUT", "/pick", { ep, pass: "proxy", shot: "sh010", take: 1 });
    s.env.events.length = 0;

    const res = await note(ep, { note: "  Ada's coat is blue  " });
    expect(res.status).toBe(200);
    const entry = (await readBuild({ caches: createCaches() }, ep, "proxy"))!.shots.get("sh010")!.entry;
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}$/),
      shot: "sh010",
      pass: "proxy",
      take: 1,
      shot_hash: storyHash(entry),
      target: "animatic",
      script: "## sh010\nwho: ada\ndur: 3\nAda waits.",
      prompt: entry.prompt,
      seed: "9223372036854775000",
      refs: [
        { role: "subject", id: "ada", path: "refs/ada/ada_sheet_4panel.png" },
        { role: "background", id: "kitchen", path: "refs/_bg/kitchen.png" },
        { role: "first", id: "shot:sh010:first", path: "refs/shots/sh010/first.png" },
      ],
      take_file: "renders_proxy/sh010/sh010_t01.mp4",
      note: "Ada's coat is blue",
      when: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/),
      // Take 2 is newer and usable: the note is already addressed.
      addressed: true,
    });
    expect(s.env.events).toEqual([
      { type: "studio.issues", data: { ep, pass: "proxy", shot: "sh010", id: res.body.id } },
    ]);
    const text = await readFile(issuesFile(ep), "utf8");
    expect(text).toContain('"seed": 9223372036854775000');
    expect(text).not.toContain("addressed");
    const stored = JSON.parse(text);
    expect(stored.version).toBe(1);
    expect(Object.keys(stored.items[0])).toEqual([
      "id",
      "shot",
      "pass",
      "take",
      "shot_hash",
      "target",
      "script",
      "prompt",
      "seed",
      "refs",
      "take_file",
      "note",
      "when",
    ]);
  });

  it("take defaults to the cut's take, else the newest usable, else null; a named take must exist", async () => {
    const ep = await s.episode(SCRIPT);
    const none = await note(ep, {});
    expect(none.body).toMatchObject({ take: null, take_file: null, addressed: false });
    expect(none.body.seed).toMatch(/^\d{16,19}$/);

    await s.take(ep, "proxy", "sh010", 1);
    await s.take(ep, "proxy", "sh010", 2, { mp4: false });
    await s.take(ep, "proxy", "sh010", 3, { status: "failed" });
    expect((await note(ep, {})).body.take).toBe(1);
    expect((await note(ep, { take: 3 })).body).toMatchObject({ take: 3, take_file: null });
    expect((await note(ep, { take: null })).body.take).toBeNull();
    // A placeholder from the other pass is not this pass's take.
    await s.take(ep, "final", "sh010", 5);
    await s.call("PUT", "/pick", { ep, pass: "proxy", shot: "sh010", take: 5, from_pass: "final" });
    expect((await note(ep, {})).body.take).toBe(1);
    refusal(await note(ep, { take: 9 }), 404, "sh010 has no proxy take 9");
  });

  it("refuses an empty or over-long note (400), a shot not in the pass's build and an unbuilt pass (404)", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await note(ep, { note: "   " }), 400, /^note: .*empty/);
    refusal(
      await note(ep, { note: "x".repeat(4001) }),
      400,
      "note: at most 4000 characters (this one has 4001)",
    );
    refusal(await note(ep, { note: undefined }), 400, "note: required");
    refusal(await note(ep, { shot: "sh999" }), 404, "sh999 is not in the proxy build");
    const unbuilt = await s.episode(SCRIPT, { build: false });
    refusal(await note(unbuilt, {}), 404, "the proxy pass has no build: build the episode first");
    await expect(readFile(issuesFile(ep))).rejects.toThrow();
    expect(s.env.events).toEqual([]);
    expect((await note(ep, { note: "y".repeat(4000) })).status).toBe(200);
  });
});

describe("GET /studio/issues", () => {
  it("lists notes in the order noted, filters by pass and computes addressed on every read", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh020", 1);
    const a = (await note(ep, { shot: "sh020", note: "first" })).body;
    const b = (await note(ep, { shot: "sh010", note: "second", pass: "final" })).body;
    const c = (await note(ep, { shot: "sh030", note: "third" })).body;
    const all = await s.call("GET", "/issues", { ep });
    expect(all.status).toBe(200);
    expect(all.body.issues.map((i: { id: string }) => i.id)).toEqual([a.id, b.id, c.id]);
    expect(all.body.issues.map((i: { addressed: boolean }) => i.addressed)).toEqual([false, false, false]);
    const proxy = await s.call("GET", "/issues", { ep, pass: "proxy" });
    expect(proxy.body.issues.map((i: { note: string }) => i.note)).toEqual(["first", "third"]);

    // A newer usable take addresses the sh020 note; a failed one would not.
    await s.take(ep, "proxy", "sh020", 2, { status: "failed" });
    expect((await s.call("GET", "/issues", { ep, pass: "proxy" })).body.issues[0].addressed).toBe(false);
    await s.take(ep, "proxy", "sh020", 3);
    expect((await s.call("GET", "/issues", { ep, pass: "proxy" })).body.issues[0].addressed).toBe(true);

    // A rebuilt story addresses the sh030 note; the snapshot itself never changes.
    await writeFile(path.join(ep, "ep01.md"), SCRIPT.replace("Cy runs.", "Cy runs home."));
    await s.call("POST", "/build", { ep });
    const after = (await s.call("GET", "/issues", { ep })).body.issues;
    expect(after.map((i: { addressed: boolean }) => i.addressed)).toEqual([true, false, true]);
    expect(after[2].script).toBe("## sh030\ndur: 2\nCy runs.");
    expect(JSON.parse(await readFile(issuesFile(ep), "utf8")).items[0].addressed).toBeUndefined();
  });

  it("answers an empty list without a file, and 500 for a file of a newer version", async () => {
    const ep = await s.episode(SCRIPT);
    expect((await s.call("GET", "/issues", { ep })).body).toEqual({ issues: [] });
    const newer = JSON.stringify({ version: 2, items: [] });
    await writeFile(issuesFile(ep), newer);
    refusal(await s.call("GET", "/issues", { ep }), 500, /version 2, newer than this service reads \(1\)/);
    refusal(await note(ep, {}), 500, /version 2/);
    expect(await readFile(issuesFile(ep), "utf8")).toBe(newer);
  });
});

describe("DELETE /studio/issues", () => {
  it("removes by id (comma-separated) and deletes the file when the last note goes", async () => {
    const ep = await s.episode(SCRIPT);
    const a = (await note(ep, { note: "a" })).body;
    const b = (await note(ep, { note: "b" })).body;
    const c = (await note(ep, { note: "c", pass: "final" })).body;
    s.env.events.length = 0;
    const res = await s.call("DELETE", "/issues", { ep, id: `${a.id},${c.id},nothere` });
    expect(res.status).toBe(200);
    expect(res.body.removed).toBe(2);
    expect(res.body.issues.map((i: { id: string }) => i.id)).toEqual([b.id]);
    expect(s.env.events).toEqual([{ type: "studio.issues", data: { ep, pass: null, removed: 2 } }]);
    const last = await s.call("DELETE", "/issues", { ep, id: b.id });
    expect(last.body).toEqual({ removed: 1, issues: [] });
    await expect(readFile(issuesFile(ep))).rejects.toThrow();
  });

  it("clear=1 empties a pass; addressed=1 removes only the addressed notes", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 1);
    const old = (await note(ep, { note: "old take" })).body;
    const kept = (await note(ep, { shot: "sh020", note: "still wrong" })).body;
    const fin = (await note(ep, { note: "final one", pass: "final" })).body;
    await s.take(ep, "proxy", "sh010", 2);
    s.env.events.length = 0;

    const addressed = await s.call("DELETE", "/issues", { ep, pass: "proxy", clear: 1, addressed: 1 });
    expect(addressed.body.removed).toBe(1);
    expect(addressed.body.issues.map((i: { id: string }) => i.id)).toEqual([kept.id]);
    expect(s.env.events).toEqual([{ type: "studio.issues", data: { ep, pass: "proxy", removed: 1 } }]);
    const listed = (await s.call("GET", "/issues", { ep })).body.issues.map((i: { id: string }) => i.id);
    expect(listed).toEqual([kept.id, fin.id]);
    expect(listed).not.toContain(old.id);

    const cleared = await s.call("DELETE", "/issues", { ep, pass: "proxy", clear: 1 });
    expect(cleared.body).toEqual({ removed: 1, issues: [] });
    expect((await s.call("GET", "/issues", { ep })).body.issues.map((i: { id: string }) => i.id)).toEqual([
      fin.id,
    ]);
  });

  it("refuses a request with neither id nor clear (400)", async () => {
    const ep = await s.episode(SCRIPT);
    await note(ep, {});
    s.env.events.length = 0;
    refusal(await s.call("DELETE", "/issues", { ep }), 400, /^give id .* or pass with clear=1/);
    refusal(await s.call("DELETE", "/issues", { ep, pass: "proxy" }), 400, /^give id/);
    refusal(
      await s.call("DELETE", "/issues", { ep, pass: "proxy", clear: "maybe" }),
      400,
      /^clear: must be 1 or 0/,
    );
    expect(s.env.events).toEqual([]);
    expect((await s.call("GET", "/issues", { ep })).body.issues).toHaveLength(1);
  });
});

describe("GET /studio/issues/export", () => {
  it("gives Markdown by default (also for format=markdown), leaving out addressed notes unless addressed=1", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 1);
    await note(ep, { note: "coat is blue" });
    await note(ep, { shot: "sh020", note: "Bo should frown" });
    await s.take(ep, "proxy", "sh010", 2);

    const md = await s.call("GET", "/issues/export", { ep });
    expect(md.status).toBe(200);
    expect(md.body.format).toBe("md");
    expect(md.body.text).toMatch(/^# ep01: 1 issue\n/);
    expect(md.body.text).toContain("ep01.md");
    expect(md.body.text).toContain("## sh020");
    expect(md.body.text).toContain("Bo should frown");
    expect(md.body.text).toContain("```\n## sh020\nwho: bo\ndur: 2\nBo waits.\n```");
    expect(md.body.text).not.toContain("coat is blue");

    const markdown = await s.call("GET", "/issues/export", {
      ep,
      format: "markdown",
      addressed: 1,
      pass: "proxy",
    });
    expect(markdown.body.format).toBe("md");
    expect(markdown.body.text).toMatch(/^# ep01: 2 issues \(proxy pass\)/);
    expect(markdown.body.text).toContain("## sh010 · take 1 · animatic");
    expect(markdown.body.text).toContain("coat is blue");
    expect(markdown.body.text).toContain("Rendered file: `renders_proxy/sh010/sh010_t01.mp4`");
  });

  it("gives a JSON bundle with format=json, and refuses an unknown format", async () => {
    const ep = await s.episode(SCRIPT);
    await note(ep, { note: "coat is blue" });
    const json = await s.call("GET", "/issues/export", { ep, format: "json" });
    expect(json.body).toMatchObject({ format: "json", episode: "ep01", ep, pass: null });
    expect(json.body.instruction).toContain("ep01.md");
    expect(json.body.issues).toHaveLength(1);
    expect(json.body.issues[0]).toMatchObject({ note: "coat is blue", addressed: false });
    expect(typeof json.body.issues[0].seed).toBe("string");
    const empty = await s.call("GET", "/issues/export", { ep, format: "md", pass: "final" });
    expect(empty.body.text).toContain("*Nothing noted.*");
    refusal(await s.call("GET", "/issues/export", { ep, format: "pdf" }), 400, /^format: /);
  });
});
