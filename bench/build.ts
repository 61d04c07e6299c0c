// Build benchmark: a synthetic 300-shot episode on three targets; full build (both passes) and one shot preview.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { buildEpisode } from "../lib/compile/build.ts";
import { defaultVideoTarget } from "../lib/config/settings.ts";
import { prepare } from "../lib/episode/prepare.ts";
import { previewShot } from "../lib/episode/preview.ts";
import { buildFolder } from "../lib/episode/run-build.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import { benchSeries, benchServices } from "./show.ts";
import { line, time } from "./stats.ts";

const SERIES = benchSeries();

/** 30 sequences of 10 shots: dialogue, props, three targets, latent and first continuations. */
export function syntheticScript(sequences = 30, shotsPer = 10): string {
  const out = ["= bench01  A Long Night", ""];
  for (let q = 0; q < sequences; q++) {
    out.push(`# sq${String(q + 1).padStart(2, "0")}  ${q % 2 ? "street" : "kitchen"}`);
    if (q % 5 === 4) out.push("target: ltx2");
    out.push("");
    for (let s = 0; s < shotsPer; s++) {
      const id = `sh${String(q * shotsPer + s + 1).padStart(3, "0")}0`;
      out.push(`## ${id}`, `who: ${s % 2 ? "ada" : "bo"}`);
      if (s % 4 === 0) out.push("with: kettle");
      out.push(
        `size: ${["ws", "ms", "cu", "fs"][s % 4]}`,
        `dur: ${s % 3 === 0 ? "auto" : 2 + (s % 5) * 0.5}`,
      );
      if (s % 7 === 6) out.push("target: wan22_ti2v");
      if (s % 9 === 8) out.push("continuous: first");
      out.push(
        `${s % 2 ? "ADA" : "BO"} (quietly): It rained all night and nobody saw it but me, number ${s}.`,
        "MOM (V.O.): Shoes off in the house!",
        "They cross the room and stop by the window.",
        "",
      );
    }
  }
  return out.join("\n");
}

export async function run(): Promise<void> {
  const seriesText = JSON.stringify(SERIES, null, 2);
  const scriptText = syntheticScript();
  const env = {
    defaultTarget: defaultVideoTarget({ default_targets: {}, detected_targets: {} }),
    targets: shippedRegistry(),
  };

  const parse = await time(() => prepare(seriesText, scriptText), 30);
  const compile = await time(() => {
    const { story, series } = prepare(seriesText, scriptText);
    for (const pass of ["final", "proxy"] as const) buildEpisode({ story, series, pass, ...env });
    return undefined;
  }, 30);
  const preview = await time(
    () => previewShot({ seriesText, scriptText, shot: "sh1500", pass: "proxy" }, env),
    30,
  );

  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-bench-"));
  const ep = path.join(dir, "show", "bench01");
  await mkdir(ep, { recursive: true });
  await writeFile(path.join(ep, "series.json"), seriesText);
  await writeFile(path.join(ep, "bench01.md"), scriptText);
  const services = benchServices(path.join(dir, "home"));
  const answer = await buildFolder(services, ep);
  if (!answer.ok) throw new Error(`the synthetic episode does not build: ${answer.error}`);
  const shotTargets = new Set(Object.values(answer.passes.final?.report?.shot_targets ?? {}));
  const full = await time(() => buildFolder(services, ep), 15);
  await rm(dir, { recursive: true, force: true });

  console.log(
    `build (${Object.keys(answer.passes.final?.report?.shot_targets ?? {}).length} shots on ${[...shotTargets].sort().join(", ")})`,
  );
  console.log(line("  parse + load series", parse));
  console.log(line("  compile both passes in memory", compile, 100));
  console.log(line("  POST /studio/build work (read, compile, write)", full, 100));
  console.log(line("  one shot/preview", preview));
  console.log(`  preview / full in-memory build: ${(preview.median / compile.median).toFixed(3)}`);
}
