// Master benchmark: a built 40-shot episode whose final takes all have a fresh upscale made with the series recipe
// (896x512, 12 frames at 24 fps, AAC), so every row is ok and the master needs no re-encode of any picture. The
// master (plan, join, report: what a `master` job does) against a plain ffmpeg concat of the same upscale files
// with every stream copied, same run. Goal: the master within 1.3x of the concat. The master's join alone is timed
// too: the loudness passes the master must make are sound work a plain concat never does.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { assembleEpisode } from "../lib/assemble/assemble.ts";
import { buildFolder } from "../lib/episode/run-build.ts";
import { MASTER_BY } from "../lib/master/job-state.ts";
import { takeLock } from "../lib/master/lock.ts";
import { planMaster, playedFiles } from "../lib/master/plan.ts";
import { masterNames, runMaster } from "../lib/master/run.ts";
import { concatList } from "../lib/media/assemble-args.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { createMediaTools } from "../lib/media/tools.ts";
import { mapLimit } from "../lib/store/map-limit.ts";
import { sourceStamp } from "../lib/upscale/fresh.ts";
import { askFromRecipe, planUpscaleTake } from "../lib/upscale/plan.ts";
import { benchSeries, benchServices } from "./show.ts";
import { line, time } from "./stats.ts";
import { testClip } from "./test-clip.ts";

const SHOTS = 40;
const FRAMES = 12;
const FPS = 24;
const RECIPE = { deliver: "896x512", fit: "crop", targets: { "*": { method: "pixel" } } };

const shotId = (i: number) => `sh${String((i + 1) * 10).padStart(4, "0")}`;

function script(): string {
  const out = ["= mst01  Masters", "", "# sq01  kitchen", ""];
  for (let i = 0; i < SHOTS; i++) out.push(`## ${shotId(i)}`, `dur: ${FRAMES / FPS}`, "Ada waits.", "");
  return out.join("\n");
}

export async function run(): Promise<void> {
  const { ffmpeg } = await mediaTools(createMediaTools(() => ({ PATH: process.env.PATH })));
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-bench-master-"));
  try {
    const ep = path.join(dir, "show", "mst01");
    await mkdir(ep, { recursive: true });
    const series = { ...benchSeries(), upscale: { master: RECIPE } };
    await writeFile(path.join(ep, "series.json"), JSON.stringify(series, null, 2));
    await writeFile(path.join(ep, "mst01.md"), script());
    const services = benchServices(path.join(dir, "home"), { PATH: process.env.PATH, STUDIO_ROOTS: dir });
    const built = await buildFolder(services, ep);
    if (!built.ok) throw new Error(`the bench episode does not build: ${built.error}`);

    const take = path.join(dir, "take.mp4");
    const up = path.join(dir, "up.mp4");
    await testClip(ffmpeg, take, { width: 448, height: 256, frames: FRAMES, fps: FPS });
    await testClip(ffmpeg, up, { width: 896, height: 512, frames: FRAMES, fps: FPS });
    const plan = planUpscaleTake(
      {
        ...{ shot: "x", take: 1, usable: true, status: "ok", target: "animatic", width: 448, height: 256 },
        ...{ steps: null, seed: null, latent: false, builtin: true, upscaleSpec: null, freshUpscale: null },
      },
      askFromRecipe(RECIPE.targets["*"], {
        deliver: RECIPE.deliver,
        fit: "crop",
        quality: "review",
        encoder: "auto",
      }),
    );
    if (!("ok" in plan)) throw new Error(plan.error);
    const ups = await mapLimit(
      [...Array(SHOTS)].map((_, i) => shotId(i)),
      8,
      async (shot) => {
        const folder = path.join(ep, "renders", shot);
        await mkdir(folder, { recursive: true });
        const stem = `${shot}_t01`;
        const sidecar = {
          ...{ version: 1, shot, take: 1, pass: "final", status: "ok", frames: FRAMES, fps: FPS },
          ...{ width: 448, height: 256, target: "animatic", backend: "builtin", mp4: `${stem}.mp4` },
        };
        await writeFile(path.join(folder, `${stem}.json`), JSON.stringify(sidecar));
        await copyFile(take, path.join(folder, `${stem}.mp4`));
        await copyFile(up, path.join(folder, `${stem}.up.mp4`));
        const stamp = await sourceStamp(ep, path.join(folder, `${stem}.mp4`));
        const record = {
          ...{ shot, take: 1, status: "ok", width: 896, height: 512, frames: FRAMES, quality: "review" },
          ...{ recipe: plan.ok.recipe, recipe_hash: plan.ok.recipe_hash, mp4: `${stem}.up.mp4` },
          ...{ source_size: stamp?.source_size, source_mtime_ns: `@${stamp?.source_mtime_ns}@` },
          source_sha1: stamp?.source_sha1,
        };
        await writeFile(
          path.join(folder, `${stem}.up.json`),
          JSON.stringify(record).replace(/"@(\d+)@"/, "$1"),
        );
        return path.join(folder, `${stem}.up.mp4`);
      },
    );

    let n = 0;
    const master = async () => {
      const held = await takeLock(ep, MASTER_BY, new Date(), async () => ({}));
      const end = await runMaster(
        services,
        `bench${n++}`,
        {
          ep,
          pass: "final",
          action: "assemble",
          allow_gaps: false,
          prores: false,
          post: "off",
          lock: held.lock,
        },
        { emit() {} },
      );
      if (end.state !== "done") throw new Error(`the bench master failed: ${end.error}`);
    };
    const list = path.join(dir, "ups.ffconcat");
    await writeFile(
      list,
      concatList(
        ups.map((file) => ({ file, frames: FRAMES })),
        FPS,
      ),
    );
    const concat = () =>
      execa(ffmpeg, [
        "-v",
        "error",
        "-y",
        "-f",
        "concat",
        "-safe",
        "0",
        "-i",
        list,
        "-c",
        "copy",
        path.join(dir, "c.mp4"),
      ]);
    // The master's join alone (plan, then the assembly from the upscales): what the picture and per-clip sound cost
    // before the loudness passes, which decode the whole sound three times (measure, normalise, measure again).
    const join = async () => {
      const plan = await planMaster(services, ep, "final", { conform: false, post: "off" });
      const files = playedFiles(plan);
      const names = masterNames("mst01", plan.size);
      const a = await assembleEpisode(services, ep, "final", {
        size: plan.size,
        names: {
          mp4: names.mp4.replace(".mp4", "_join.mp4"),
          shots: names.shots.replace(".txt", "_join.txt"),
        },
        play: async (c) => files.get(c.shot) ?? { file: c.file, kind: "take", why: "its take" },
      });
      if (!a.ok || a.report.reencoded !== 0) throw new Error(`the bench join re-encoded: ${a.error ?? ""}`);
    };
    const m = await time(master, 5, 1);
    const j = await time(join, 5, 1);
    const c = await time(concat, 5, 1);
    console.log(`master (${SHOTS} shots with fresh upscales at 896x512, ${(SHOTS * FRAMES) / FPS} s)`);
    console.log(line("  master (plan, join, report)", m));
    console.log(line("  the master's join alone (no loudness)", j));
    console.log(line("  plain ffmpeg concat, streams copied", c));
    console.log(`  join / concat: ${(j.median / c.median).toFixed(2)}x (every picture copied)`);
    console.log(`  master / concat: ${(m.median / c.median).toFixed(2)}x (goal: at most 1.3x)`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
