// POST /studio/align at its two edges: a script saved by the user while the run is hearing the recording (a fake
// whisper that waits on a file the test creates) is kept and answered as a 409 carrying the text and hash on disk,
// with nothing of the run written; and a `track` other than the series config's becomes the series track on a real
// run (through the save path) but not on a dry run.
import { createHash } from "node:crypto";
import { chmod, copyFile, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { audioWindowOf } from "../lib/align/script-windows.ts";
import { wordsCachePath } from "../lib/align/words-cache.ts";
import { refusal } from "./support/call.ts";
import { type DialogueStudio, dialogueStudio, LINES, RECORDING } from "./support/espeak-dialogue.ts";
import { waitFor } from "./support/jobs.ts";
import type { Studio } from "./support/studio-episode.ts";

let dialogue: DialogueStudio;
let s: Studio;
let ep: string;

beforeAll(async () => {
  dialogue = await dialogueStudio();
  ({ s, ep } = dialogue);
}, 120_000);

afterAll(async () => {
  await dialogue?.stop();
});

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );
const sha1 = (bytes: Uint8Array) => createHash("sha1").update(bytes).digest("hex");
const history = async () => (await readdir(path.join(ep, "_history")).catch(() => [])).sort();
const seriesBytes = () => readFile(path.join(ep, "series.json"));
const overridesText = () => readFile(path.join(ep, "overrides.json"), "utf8").catch(() => null);

/** Each line's words as a whisper prints them, 0.3 s apart from the line's known start. */
function whisperLines(starts: number[]): string {
  return LINES.flatMap((l, i) =>
    l.text
      .split(" ")
      .map(
        (w, k) =>
          `H3PIPE_WORD ${JSON.stringify({ w: ` ${w}`, start: starts[i] + k * 0.3, end: starts[i] + k * 0.3 + 0.25 })}`,
      ),
  ).join("\n");
}

/**
 * A Python with faster-whisper as the probe sees it whose transcription says it is listening (creates `listening`),
 * waits until `go` exists, then prints `words`.
 */
async function gatedWhisper(
  dir: string,
  words: string,
): Promise<{ py: string; listening: string; go: string }> {
  const py = path.join(dir, "gated-python");
  const listening = path.join(dir, "listening");
  const go = path.join(dir, "go");
  await writeFile(
    py,
    `#!/bin/sh
case "$2" in *H3PIPE_ALIGN_PROBE*)
  echo 'H3PIPE_ALIGN_PROBE {"numpy": "1", "faster-whisper": "1", "openai-whisper": null}'; exit 0;;
esac
: > "${listening}"
while [ ! -f "${go}" ]; do sleep 0.05; done
cat <<'WORDS'
${words}
WORDS
`,
  );
  await chmod(py, 0o755);
  return { py, listening, go };
}

describe("POST /studio/align when the script is saved during the run", () => {
  it("answers 409 with the text and hash on disk, keeps the user's edit and writes nothing of its own", async () => {
    const other = "audio/heard.wav";
    await copyFile(path.join(ep, RECORDING), path.join(ep, other));
    const fake = await gatedWhisper(s.env.dir, whisperLines(dialogue.starts));
    const seriesBefore = await seriesBytes();
    const overridesBefore = await overridesText();
    const read = await s.call("GET", "/source", { ep, file: "script" });
    expect(read.status).toBe(200);

    s.env.services.env.H3PIPE_ALIGN_PYTHON = fake.py;
    let answer: ReturnType<typeof s.call> | undefined;
    try {
      // A track other than the config's, so the run would also set the series track had it got that far.
      answer = s.call("POST", "/align", { ep, track: other });
      await waitFor(() => exists(fake.listening), 60_000);

      const edit = read.body.text.replace("BO: It is on the table by the window.\n", "$&Bo shrugs.\n");
      expect(edit).not.toBe(read.body.text);
      const saved = await s.call("PUT", "/source", {
        ep,
        file: "script",
        text: edit,
        base_hash: read.body.hash,
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const historyAfterEdit = await history();
      const onDisk = await readFile(path.join(ep, "ep01.md"));
      // What PUT /studio/source answers a save from the same stale base.
      const stale = await s.call("PUT", "/source", {
        ep,
        file: "script",
        text: read.body.text,
        base_hash: read.body.hash,
      });
      expect(stale.status).toBe(409);
      s.env.events.length = 0;

      await writeFile(fake.go, "");
      const res = await answer;
      answer = undefined;
      refusal(res, 409, /ep01\.md changed on disk/, ["file", "hash", "text", "log"]);
      expect(res.body).toMatchObject({ file: "script", hash: stale.body.hash, text: stale.body.text });
      expect(res.body.error).toBe(stale.body.error);
      expect(res.body.hash).toBe(sha1(onDisk));
      expect(res.body.text).toBe(edit);

      expect(await readFile(path.join(ep, "ep01.md"), "utf8")).toBe(edit);
      expect(await exists(path.join(ep, "align_report.md"))).toBe(false);
      expect(await history()).toEqual(historyAfterEdit);
      expect((await seriesBytes()).equals(seriesBefore)).toBe(true);
      expect(await overridesText()).toBe(overridesBefore);
      expect(s.env.events.some((e) => e.type === "studio.episode")).toBe(false);
      // The words heard stay beside the recording: they are true of it whatever the script says.
      expect(await exists(wordsCachePath(path.join(ep, other)))).toBe(true);
    } finally {
      await writeFile(fake.go, "");
      await answer?.catch(() => undefined);
      delete s.env.services.env.H3PIPE_ALIGN_PYTHON;
    }
  }, 120_000);
});

describe("POST /studio/align with a track other than the series config's", () => {
  const take2 = "audio/take2.wav";

  it("a dry run changes neither the config nor the overrides", async () => {
    await copyFile(path.join(ep, RECORDING), path.join(ep, take2));
    const seriesBefore = await seriesBytes();
    const overridesBefore = await overridesText();
    const historyBefore = await history();
    const res = await s.call("POST", "/align", { ep, track: take2, dry_run: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ dry_run: true, recording: take2, series_hash: null });
    expect(res.body.track).toMatchObject({ path: RECORDING });
    expect((await seriesBytes()).equals(seriesBefore)).toBe(true);
    expect(await overridesText()).toBe(overridesBefore);
    expect(await history()).toEqual(historyBefore);
  }, 120_000);

  it("a real run makes it the series track through the save path, and answers the new config", async () => {
    const seriesBefore = await seriesBytes();
    const historyBefore = await history();
    const res = await s.call("POST", "/align", { ep, track: take2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = await seriesBytes();
    const config = JSON.parse(after.toString("utf8"));
    expect(config.audio).toMatchObject({ track: take2, mode: "source_track" });
    expect(res.body).toMatchObject({ dry_run: false, recording: take2, series_hash: sha1(after) });
    expect(res.body.series_hash).not.toBe(sha1(seriesBefore));
    expect(res.body.track).toMatchObject({ path: take2, exists: true, aligned: LINES.length });
    expect(res.body.track.words).toBe(res.body.words);
    // The config's old bytes kept in the history, as every save does.
    const added = (await history()).filter((n) => !historyBefore.includes(n));
    const copy = added.find((n) => n.startsWith("series.json."));
    expect(copy, added.join(", ")).toBeDefined();
    expect((await readFile(path.join(ep, "_history", copy ?? ""))).equals(seriesBefore)).toBe(true);
    const text = await readFile(path.join(ep, "ep01.md"), "utf8");
    for (const l of LINES) expect(audioWindowOf(text, l.shot), l.shot).not.toBeNull();
    // The episode as the page reads it names the new track.
    const episode = await s.call("GET", "/episode", { ep, pass: "proxy" });
    expect(episode.body.track).toMatchObject({ path: take2 });
  }, 120_000);
});
