// PUT /studio/pick, PUT /studio/cut, POST /studio/cut/reset and /studio/cut/copy on built episodes with takes on disk.
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { refusal, SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();

const cutOf = (ep: string) => s.readJson(path.join(ep, "cut.json")) as Promise<Record<string, unknown>>;
const writeCutFile = (ep: string, cut: unknown) => writeFile(path.join(ep, "cut.json"), JSON.stringify(cut));
const history = async (ep: string) =>
  (await readdir(path.join(ep, "_history")).catch(() => [] as string[])).filter((n) =>
    n.startsWith("cut.json."),
  );

describe("PUT /studio/cut", () => {
  it("stores entries compactly and answers the whole file", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await s.call("PUT", "/cut", {
      ep,
      pass: "proxy",
      entries: [
        { shot: "sh010", trim_in: 0, locked: false, note: "" },
        { shot: "sh020", take: 2, trim_out: 12, flag: true },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.cut).toEqual({
      episode: "e01",
      final: [],
      proxy: [{ shot: "sh010" }, { shot: "sh020", take: 2, trim_out: 12, flag: true }],
    });
    expect(await cutOf(ep)).toEqual(res.body.cut);
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("keeps orphans, out/flag/locked, notes and an audio source; the same pass is dropped from entries", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await s.call("PUT", "/cut", {
      ep,
      pass: "final",
      entries: [
        { shot: "sh030", pass: "final", out: true, locked: true, note: "too dark" },
        { shot: "sh900", take: 4 },
        {
          shot: "sh010",
          pass: "proxy",
          take: 1,
          audio: { source: "take", shot: "sh020", take: 1, gain: 1, start: 0 },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect((await cutOf(ep)).final).toEqual([
      { shot: "sh030", locked: true, out: true, note: "too dark" },
      { shot: "sh900", take: 4 },
      {
        shot: "sh010",
        take: 1,
        pass: "proxy",
        audio: { source: "take", shot: "sh020", take: 1, pass: "final" },
      },
    ]);
  });

  it("does not enforce locked: a locked entry is replaced like any other", async () => {
    const ep = await s.episode(SCRIPT);
    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh010", locked: true, trim_in: 3 }] });
    const res = await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh010" }] });
    expect(res.status).toBe(200);
    expect((await cutOf(ep)).proxy).toEqual([{ shot: "sh010" }]);
  });

  it("refuses duplicates, unknown fields, bad trims and bad values with a message naming the shot", async () => {
    const ep = await s.episode(SCRIPT);
    const put = (entries: unknown[]) => s.call("PUT", "/cut", { ep, pass: "proxy", entries });
    refusal(await put([{ shot: "sh010" }, { shot: "sh010" }]), 400, "sh010 is in the cut twice");
    refusal(await put([{ shot: "sh010", muted: true }]), 400, "sh010: unknown cut field(s) muted");
    refusal(
      await put([{ shot: "sh010", zeta: 1, alpha: 2 }]),
      400,
      "sh010: unknown cut field(s) alpha, zeta",
    );
    refusal(
      await put([{ shot: "sh010", trim_in: -1 }]),
      400,
      /^sh010: trim_in must be a whole number of frames >= 0/,
    );
    refusal(
      await put([{ shot: "sh010", trim_out: 1.5 }]),
      400,
      /^sh010: trim_out must be a whole number of frames >= 0/,
    );
    refusal(await put([{ shot: "sh010", locked: "yes" }]), 400, "sh010: locked must be true or false");
    refusal(await put([{ shot: "sh010", out: 1 }]), 400, "sh010: out must be true or false");
    refusal(await put([{ shot: "sh010", take: 0 }]), 400, /^sh010: take must be a take number/);
    refusal(await put([{ shot: "sh010", pass: "FINAL" }]), 400, /^sh010: pass must be 'final' or 'proxy'/);
    refusal(await put([{ shot: "sh010", note: 3 }]), 400, "sh010: note must be text");
    refusal(
      await put([{ shot: "sh010", audio: { gain: 2 } }]),
      400,
      /^sh010: audio must be an object with a source/,
    );
    refusal(
      await put([{ shot: "sh010", audio: { source: "take", gain: 9 } }]),
      400,
      "sh010: audio.gain must be a number from 0 to 4",
    );
    refusal(await put([{ take: 1 }]), 400, /^entries\[0\]: shot is required/);
    refusal(await put(["sh010"]), 400, /^entries\[0\]: a cut entry is an object/);
    refusal(await s.call("PUT", "/cut", { ep }), 400, "entries: required");
    refusal(await s.call("PUT", "/cut", { ep, pass: "FINAL", entries: [] }), 400, /^pass: /);
    await expect(readFile(path.join(ep, "cut.json"))).rejects.toThrow();
    expect(s.env.events).toEqual([]);
  });

  it("refuses trims that leave less than one frame of a take whose frame count is known", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 1, { frames: 72 });
    await s.take(ep, "proxy", "sh020", 1, { frames: 50, fps: 25 }); // 48 frames at the episode's 24 fps
    await s.take(ep, "proxy", "sh030", 1, { sidecar: { frames: null } });
    const put = (entries: unknown[]) => s.call("PUT", "/cut", { ep, entries });
    refusal(
      await put([{ shot: "sh010", take: 1, trim_in: 40, trim_out: 32 }]),
      400,
      "sh010: trim_in 40 + trim_out 32 leave less than one frame of take 1 (72 frames)",
    );
    expect((await put([{ shot: "sh010", take: 1, trim_in: 40, trim_out: 31 }])).status).toBe(200);
    // No pick: the newest usable take is the one that plays, and its rate counts.
    refusal(
      await put([{ shot: "sh020", trim_in: 48 }]),
      400,
      /^sh020: trim_in 48 \+ trim_out 0 leave less than one frame/,
    );
    expect((await put([{ shot: "sh020", trim_in: 47 }])).status).toBe(200);
    // Unknown frame counts (no frames recorded, or no take at all) are not checked.
    expect((await put([{ shot: "sh030", trim_in: 500 }])).status).toBe(200);
    expect((await put([{ shot: "sh900", trim_in: 500 }])).status).toBe(200);
  });

  it("serialises concurrent writes: two PUTs at once both land whole and the file stays valid JSON", async () => {
    const ep = await s.episode(SCRIPT);
    const final = [{ shot: "sh030" }, { shot: "sh020" }, { shot: "sh010", flag: true }];
    const proxy = [{ shot: "sh020", trim_in: 2 }, { shot: "sh010" }, { shot: "sh030" }];
    const answers = await Promise.all([
      s.call("PUT", "/cut", { ep, pass: "final", entries: final }),
      s.call("PUT", "/cut", { ep, pass: "proxy", entries: proxy }),
      s.call("PUT", "/pick", { ep, pass: "final", shot: "sh020", take: null }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const cut = await cutOf(ep);
    expect(cut.final).toEqual(final);
    expect(cut.proxy).toEqual(proxy);
    const many = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        s.call("PUT", "/cut", { ep, pass: "proxy", entries: [{ shot: "sh010", trim_in: i + 1 }] }),
      ),
    );
    expect(many.every((a) => a.status === 200)).toBe(true);
    const last = (await cutOf(ep)).proxy as { shot: string; trim_in: number }[];
    expect(last).toHaveLength(1);
    expect(last[0].trim_in).toBeGreaterThanOrEqual(1);
    expect((await readdir(ep)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("keeps the previous cut.json in _history only when the content changes", async () => {
    const ep = await s.episode(SCRIPT);
    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh010" }] });
    expect(await history(ep)).toEqual([]);
    const before = await readFile(path.join(ep, "cut.json"), "utf8");
    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh010" }] });
    expect(await history(ep)).toEqual([]);
    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh010", flag: true }] });
    const copies = await history(ep);
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(/^cut\.json\.\d{8}-\d{6}$/);
    expect(await readFile(path.join(ep, "_history", copies[0]), "utf8")).toBe(before);
  });
});

describe("PUT /studio/pick", () => {
  it("applies the reading rules and writes the full order: duplicates, missing shots, orphans, unknown keys", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh030", 1);
    await writeCutFile(ep, {
      episode: "e01",
      final: [{ shot: "sh020" }],
      proxy: [
        { shot: "sh030" },
        { shot: "sh999", note: "old shot" },
        { shot: "sh010", take: 1, pass: "proxy", mystery: 7 },
        { shot: "sh030", take: 9 },
      ],
      custom: true,
    });
    const res = await s.call("PUT", "/pick", { ep, pass: "proxy", shot: "sh030", take: 1 });
    expect(res.status).toBe(200);
    expect(res.body.cut).toEqual({
      episode: "e01",
      final: [{ shot: "sh020" }],
      proxy: [
        { shot: "sh030", take: 1 },
        { shot: "sh999", note: "old shot" },
        { shot: "sh010", take: 1, mystery: 7 },
        { shot: "sh020" },
      ],
      custom: true,
    });
    expect(await cutOf(ep)).toEqual(res.body.cut);
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);

    // A script shot missing at the start goes to the front; later ones follow their nearest earlier shot.
    await s.take(ep, "final", "sh020", 1);
    const front = await s.call("PUT", "/pick", { ep, pass: "final", shot: "sh020", take: 1 });
    expect(front.body.cut.final).toEqual([{ shot: "sh010" }, { shot: "sh020", take: 1 }, { shot: "sh030" }]);
  });

  it("refuses a locked entry (409 locked: true) and an unusable take (409), and force lifts both", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh020", 1);
    await s.take(ep, "proxy", "sh020", 4, { status: "failed" });
    await s.take(ep, "proxy", "sh020", 5, { mp4: false });
    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh020", take: 1, locked: true }] });
    s.env.events.length = 0;

    const locked = await s.call("PUT", "/pick", { ep, pass: "proxy", shot: "sh020", take: 1 });
    refusal(locked, 409, /^sh020 is locked in the proxy cut/, ["locked"]);
    expect(locked.body.locked).toBe(true);
    refusal(await s.call("PUT", "/pick", { ep, shot: "sh020", take: null }), 409, /locked/, ["locked"]);

    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh020", take: 1 }] });
    s.env.events.length = 0;
    refusal(
      await s.call("PUT", "/pick", { ep, pass: "proxy", shot: "sh020", take: 4 }),
      409,
      /^sh020 proxy take 4 is not usable \(failed\); pick it anyway with force$/,
    );
    refusal(
      await s.call("PUT", "/pick", { ep, pass: "proxy", shot: "sh020", take: 5 }),
      409,
      /is not usable \(its video is missing\); pick it anyway with force$/,
    );
    expect(s.env.events).toEqual([]);

    const forced = await s.call("PUT", "/pick", { ep, pass: "proxy", shot: "sh020", take: 4, force: true });
    expect(forced.status).toBe(200);
    expect(forced.body.cut.proxy.find((e: { shot: string }) => e.shot === "sh020")).toEqual({
      shot: "sh020",
      take: 4,
    });

    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh020", take: 1, locked: true }] });
    const both = await s.call("PUT", "/pick", { ep, pass: "proxy", shot: "sh020", take: 4, force: true });
    expect(both.body.cut.proxy.find((e: { shot: string }) => e.shot === "sh020")).toEqual({
      shot: "sh020",
      take: 4,
      locked: true,
    });
  });

  it("take null goes back to the latest usable take; from_pass picks a placeholder from the other pass", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 2);
    await s.take(ep, "final", "sh010", 1);
    const placeholder = await s.call("PUT", "/pick", {
      ep,
      pass: "final",
      shot: "sh010",
      take: 2,
      from_pass: "proxy",
    });
    expect(placeholder.status).toBe(200);
    expect(placeholder.body.cut.final[0]).toEqual({ shot: "sh010", take: 2, pass: "proxy" });
    const own = await s.call("PUT", "/pick", {
      ep,
      pass: "final",
      shot: "sh010",
      take: 1,
      from_pass: "final",
    });
    expect(own.body.cut.final[0]).toEqual({ shot: "sh010", take: 1 });
    const back = await s.call("PUT", "/pick", { ep, pass: "final", shot: "sh010", take: null });
    expect(back.body.cut.final[0]).toEqual({ shot: "sh010" });
    // The other pass's take must exist there.
    refusal(
      await s.call("PUT", "/pick", { ep, pass: "final", shot: "sh010", take: 1, from_pass: "proxy" }),
      404,
      "sh010 has no proxy take 1",
    );
  });

  it("answers 404 for a shot in neither the build nor the cut, a missing take and an unbuilt pass", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(
      await s.call("PUT", "/pick", { ep, shot: "sh999", take: 1 }),
      404,
      "sh999 is not in the proxy build or the proxy cut",
    );
    refusal(await s.call("PUT", "/pick", { ep, shot: "sh010", take: 3 }), 404, "sh010 has no proxy take 3");
    // An orphan of the cut can still be picked.
    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh999" }] });
    await s.take(ep, "proxy", "sh999", 1);
    expect((await s.call("PUT", "/pick", { ep, shot: "sh999", take: 1 })).status).toBe(200);

    const unbuilt = await s.episode(SCRIPT, { build: false });
    refusal(
      await s.call("PUT", "/pick", { ep: unbuilt, shot: "sh010", take: 1 }),
      404,
      "the proxy pass has no build: build the episode first",
    );
    refusal(await s.call("PUT", "/pick", { ep, shot: "sh010" }), 400, "take: required");
    refusal(await s.call("PUT", "/pick", { ep, shot: "sh010", take: 1, force: "yes" }), 400, /^force: /);
  });
});

describe("POST /studio/cut/reset", () => {
  it("order: script order with orphans after; picks, locks, notes, out and flag kept", async () => {
    const ep = await s.episode(SCRIPT);
    await s.call("PUT", "/cut", {
      ep,
      entries: [
        { shot: "sh777", note: "orphan a" },
        { shot: "sh030", take: 2, out: true },
        { shot: "sh010", locked: true, trim_in: 4, note: "keep" },
        { shot: "sh888" },
        { shot: "sh020", flag: true, trim_out: 3 },
      ],
    });
    s.env.events.length = 0;
    const res = await s.call("POST", "/cut/reset", { ep, pass: "proxy", what: "order" });
    expect(res.status).toBe(200);
    expect(res.body.cut.proxy).toEqual([
      { shot: "sh010", trim_in: 4, locked: true, note: "keep" },
      { shot: "sh020", trim_out: 3, flag: true },
      { shot: "sh030", take: 2, out: true },
      { shot: "sh777", note: "orphan a" },
      { shot: "sh888" },
    ]);
    expect(await cutOf(ep)).toEqual(res.body.cut);
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("trims and audio clear except on locked entries; all does everything", async () => {
    const ep = await s.episode(SCRIPT);
    const audio = { source: "file", path: "audio/line.wav" };
    const entries = [
      { shot: "sh030", trim_in: 2, audio },
      { shot: "sh010", trim_in: 5, trim_out: 1, locked: true, audio },
      { shot: "sh020", trim_out: 6, audio },
    ];
    await s.call("PUT", "/cut", { ep, entries });
    const trims = await s.call("POST", "/cut/reset", { ep, what: "trims" });
    expect(trims.body.cut.proxy).toEqual([
      { shot: "sh030", audio },
      { shot: "sh010", trim_in: 5, trim_out: 1, locked: true, audio },
      { shot: "sh020", audio },
    ]);
    const audioReset = await s.call("POST", "/cut/reset", { ep, what: "audio" });
    expect(audioReset.body.cut.proxy).toEqual([
      { shot: "sh030" },
      { shot: "sh010", trim_in: 5, trim_out: 1, locked: true, audio },
      { shot: "sh020" },
    ]);
    await s.call("PUT", "/cut", { ep, entries });
    const all = await s.call("POST", "/cut/reset", { ep, what: "all" });
    expect(all.body.cut.proxy).toEqual([
      { shot: "sh010", trim_in: 5, trim_out: 1, locked: true, audio },
      { shot: "sh020" },
      { shot: "sh030" },
    ]);
  });

  it("writes the full list, with a history copy only when something changes", async () => {
    const ep = await s.episode(SCRIPT);
    const first = await s.call("POST", "/cut/reset", { ep, what: "order" });
    expect(first.body.cut.proxy).toEqual([{ shot: "sh010" }, { shot: "sh020" }, { shot: "sh030" }]);
    expect(await history(ep)).toEqual([]);
    await s.call("POST", "/cut/reset", { ep, what: "all" });
    expect(await history(ep)).toEqual([]);
    await s.call("PUT", "/cut", { ep, entries: [{ shot: "sh020" }, { shot: "sh010" }, { shot: "sh030" }] });
    expect(await history(ep)).toHaveLength(1);
    await s.call("POST", "/cut/reset", { ep, what: "order" });
    expect(await history(ep)).toHaveLength(2);
  });

  it("refuses a bad what (400) and an unbuilt pass (404)", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await s.call("POST", "/cut/reset", { ep, what: "everything" }), 400, /^what: /);
    refusal(await s.call("POST", "/cut/reset", { ep }), 400, /^what: /);
    await rm(path.join(ep, "shotlist", "shotlist.json"));
    refusal(
      await s.call("POST", "/cut/reset", { ep, pass: "final", what: "order" }),
      404,
      "the final pass has no build: build the episode first",
    );
  });
});

describe("POST /studio/cut/copy", () => {
  it("order: shared shots follow the source, a target-only shot stays after the one it follows, out is copied", async () => {
    const ep = await s.episode(SCRIPT);
    await s.call("PUT", "/cut", {
      ep,
      pass: "proxy",
      entries: [
        { shot: "sh030", out: true, note: "proxy note", flag: true, take: 3 },
        { shot: "sh020", locked: true },
        { shot: "sh010" },
      ],
    });
    await s.call("PUT", "/cut", {
      ep,
      pass: "final",
      entries: [
        { shot: "sh600" },
        { shot: "sh010", out: true, take: 1 },
        { shot: "sh900", note: "after sh010" },
        { shot: "sh020" },
        { shot: "sh030", locked: true },
      ],
    });
    s.env.events.length = 0;
    const res = await s.call("POST", "/cut/copy", { ep, from: "proxy", to: "final", what: "order" });
    expect(res.status).toBe(200);
    expect(res.body.cut.final).toEqual([
      { shot: "sh600" },
      { shot: "sh030", locked: true },
      { shot: "sh020" },
      { shot: "sh010", take: 1 },
      { shot: "sh900", note: "after sh010" },
    ]);
    expect(res.body.cut.proxy[0]).toEqual({
      shot: "sh030",
      take: 3,
      out: true,
      flag: true,
      note: "proxy note",
    });
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("trims: copied, then cut down from trim_out first so a frame of the target take stays; locked untouched", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "final", "sh010", 1, { frames: 48 });
    await s.call("PUT", "/cut", {
      ep,
      pass: "proxy",
      entries: [
        { shot: "sh010", trim_in: 30, trim_out: 30 },
        { shot: "sh020", trim_in: 2 },
        { shot: "sh030", trim_out: 9 },
      ],
    });
    await s.call("PUT", "/cut", {
      ep,
      pass: "final",
      entries: [
        { shot: "sh010", take: 1 },
        { shot: "sh020", trim_out: 4 },
        { shot: "sh030", locked: true, trim_in: 1 },
      ],
    });
    const res = await s.call("POST", "/cut/copy", { ep, from: "proxy", to: "final", what: "trims" });
    expect(res.body.cut.final).toEqual([
      { shot: "sh010", take: 1, trim_in: 30, trim_out: 17 },
      { shot: "sh020", trim_in: 2 },
      { shot: "sh030", trim_in: 1, locked: true },
    ]);
  });

  it("audio: sources copied as they are; all copies order, trims and audio", async () => {
    const ep = await s.episode(SCRIPT);
    const audio = { source: "take", shot: "sh010", take: 2, pass: "proxy", offset: 3 };
    await s.call("PUT", "/cut", {
      ep,
      pass: "proxy",
      entries: [{ shot: "sh020", audio, trim_in: 1 }, { shot: "sh010" }, { shot: "sh030" }],
    });
    await s.call("PUT", "/cut", {
      ep,
      pass: "final",
      entries: [
        { shot: "sh010", audio: { source: "file", path: "a.wav" } },
        { shot: "sh020" },
        { shot: "sh030" },
      ],
    });
    const copied = await s.call("POST", "/cut/copy", { ep, from: "proxy", to: "final", what: "audio" });
    expect(copied.body.cut.final).toEqual([{ shot: "sh010" }, { shot: "sh020", audio }, { shot: "sh030" }]);
    const all = await s.call("POST", "/cut/copy", { ep, from: "proxy", to: "final", what: "all" });
    expect(all.body.cut.final).toEqual([
      { shot: "sh020", trim_in: 1, audio },
      { shot: "sh010" },
      { shot: "sh030" },
    ]);
  });

  it("refuses the same pass, bad passes or what (400) and an unbuilt pass (404)", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(
      await s.call("POST", "/cut/copy", { ep, from: "proxy", to: "proxy", what: "order" }),
      400,
      "from and to must be different passes",
    );
    refusal(
      await s.call("POST", "/cut/copy", { ep, from: "draft", to: "final", what: "order" }),
      400,
      /^from: /,
    );
    refusal(await s.call("POST", "/cut/copy", { ep, from: "proxy", to: "final", what: "x" }), 400, /^what: /);
    await rm(path.join(ep, "shotlist", "shotlist_proxy.json"));
    refusal(
      await s.call("POST", "/cut/copy", { ep, from: "final", to: "proxy", what: "order" }),
      404,
      "the proxy pass has no build: build the episode first",
    );
  });
});
