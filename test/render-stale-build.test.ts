// A render asked for after a save whose build failed renders the last good build: the answer says which build
// (its time) and why the newer text was not used; a good build since clears it.
import { stat, utimes } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localTime } from "../lib/episode/build-failure.ts";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { makeStudio, SCRIPT, type Studio } from "./support/studio-episode.ts";

let s: Studio;
let store: StudioJobStore;

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
});
afterAll(async () => {
  await store.close();
  await s.cleanup();
});

const BROKEN = SCRIPT.replace("who: bo", "who: dan");
const DAN_ERROR = "unknown subject 'dan' (subjects: ada, bo, cy, gina, gina_towel, kettle, mom)";

/** Date the episode's build back by a minute, as if it had been made a while before the saves that follow. */
async function buildMadeEarlier(ep: string): Promise<Date> {
  const earlier = new Date(Date.now() - 60_000);
  for (const name of ["shotlist.json", "shotlist_proxy.json", "shots.json"]) {
    await utimes(path.join(ep, "shotlist", name), earlier, earlier);
  }
  return (await stat(path.join(ep, "shotlist", "shotlist_proxy.json"))).mtime;
}

async function save(ep: string, text: string) {
  const read = await s.call("GET", "/source", { ep, file: "script" });
  const saved = await s.call("PUT", "/source", { ep, file: "script", text, base_hash: read.body.hash });
  expect(saved.status).toBe(200);
  return saved.body;
}

describe("POST /studio/render after a save that does not build", () => {
  it("warns that the takes come from the last good build, then not once the script builds again", async () => {
    const ep = await s.episode(SCRIPT);
    const built = await buildMadeEarlier(ep);

    const fresh = await s.call("POST", "/render", { ep, pass: "proxy", shots: ["sh010"] });
    expect(fresh.status).toBe(200);
    expect(fresh.body.queued).toHaveLength(1);
    expect(fresh.body).not.toHaveProperty("warning");

    const saved = await save(ep, BROKEN);
    expect(saved.build.ok).toBe(false);
    const savedAt = (await stat(path.join(ep, "ep01.md"))).mtime;

    const stale = await s.call("POST", "/render", { ep, pass: "proxy", shots: ["sh030"] });
    expect(stale.status).toBe(200);
    // The render still happens, from the build on disk.
    expect(stale.body.queued.map((q: { shot: string }) => q.shot)).toEqual(["sh030"]);
    expect(stale.body.warning).toBe(
      `rendering from the build of ${localTime(built)}: the script saved at ${localTime(savedAt)} does not build ` +
        `(${DAN_ERROR} at script line 8)`,
    );
    // The final pass was built at the same time and fails the same way.
    const final = await s.call("POST", "/render", { ep, pass: "final", shots: ["sh030"] });
    expect(final.body.warning).toContain("does not build");

    const fixed = await save(ep, SCRIPT);
    expect(fixed.build.ok).toBe(true);
    const after = await s.call("POST", "/render", { ep, pass: "proxy", shots: ["sh030"], redo: true });
    expect(after.status).toBe(200);
    expect(after.body.queued).toHaveLength(1);
    expect(after.body).not.toHaveProperty("warning");
  });

  it("says nothing when the newer text was saved without a build failing on it", async () => {
    const ep = await s.episode(SCRIPT);
    await buildMadeEarlier(ep);
    // Saved without a rebuild: newer text, but no build has failed on it.
    const read = await s.call("GET", "/source", { ep, file: "script" });
    const saved = await s.call("PUT", "/source", {
      ep,
      file: "script",
      text: `${SCRIPT}\n`,
      base_hash: read.body.hash,
      rebuild: false,
    });
    expect(saved.body.build).toBeNull();
    const answer = await s.call("POST", "/render", { ep, pass: "proxy", shots: ["sh010"] });
    expect(answer.body).not.toHaveProperty("warning");
  });

  it("names series.json when it is the newer file that does not build", async () => {
    const ep = await s.episode(SCRIPT);
    const built = await buildMadeEarlier(ep);
    const read = await s.call("GET", "/source", { ep, file: "series" });
    const series = JSON.parse(read.body.text);
    delete series.subjects.bo;
    const saved = await s.call("PUT", "/source", {
      ep,
      file: "series",
      text: JSON.stringify(series, null, 2),
      base_hash: read.body.hash,
    });
    expect(saved.body.build.ok).toBe(false);
    const answer = await s.call("POST", "/render", { ep, pass: "proxy", shots: ["sh010"] });
    expect(answer.body.warning).toMatch(
      new RegExp(
        `^rendering from the build of ${localTime(built)}: series\\.json saved at .* does not build \\(`,
      ),
    );
    expect(answer.body.warning).toContain("unknown subject 'bo'");
  });
});
