// The upscale job: one take's planned upscale made and its record closed with the saver's fields (status,
// finished, frames, size, mp4, audio copied, encoder, save_ms, save_notes), or failed with the reason; a cancel
// stops ffmpeg and closes it "canceled". On the built-in lane the picture is scaled by ffmpeg's lanczos (crop or
// pad to a delivery size, a light unsharp unless keep_soft is 1) and the take's audio stream is copied as it is.
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { passFolder, safeShot } from "../../lib/episode/takes.ts";
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { probeClip } from "../../lib/media/clip-probe.ts";
import { runFfmpeg } from "../../lib/media/ffmpeg.ts";
import { episodeFence, guardPath, readShowText } from "../../lib/paths/guarded.ts";
import { localIso } from "../../lib/render/time.ts";
import { parseJson } from "../../lib/store/json-file.ts";
import { errorMessage, isObject, type JsonObject } from "../../lib/store/json-guards.ts";
import { withLock } from "../../lib/store/lock.ts";
import { upJsonName, upMp4Name } from "../../lib/upscale/fresh.ts";
import type { PlannedUpscale } from "../../lib/upscale/plan.ts";
import { type UpscalePayload, upscaleEvent, writeUpscaleRecord } from "../../lib/upscale/queue.ts";

const payload: z.ZodType<UpscalePayload> = z.object({
  ep: z.string().min(1),
  pass: z.enum(["final", "proxy"]),
  shot: z.string().min(1),
  take: z.number().int().min(1),
  stem: z.string().min(1),
  lane: z.string().min(1),
  plan: z.looseObject({}) as unknown as z.ZodType<PlannedUpscale>,
});

/** The ffmpeg filter of the built-in resample: lanczos to the made size, crop or pad to the delivery, unsharp. */
export function resampleFilter(plan: PlannedUpscale): string {
  const made = plan.deliver?.made ?? [plan.width, plan.height];
  const steps = [`scale=${made[0]}:${made[1]}:flags=lanczos`];
  if (plan.deliver && plan.deliver.fit === "crop") steps.push(`crop=${plan.width}:${plan.height}`);
  if (plan.deliver && plan.deliver.fit === "pad") {
    steps.push(`pad=${plan.width}:${plan.height}:(ow-iw)/2:(oh-ih)/2:black`);
  }
  if (plan.sharpen) steps.push("unsharp=5:5:0.4:5:5:0");
  steps.push("setsar=1", "format=yuv420p");
  return steps.join(",");
}

async function readRecord(ep: string, file: string): Promise<JsonObject | null> {
  try {
    const v = parseJson(await readShowText(episodeFence(ep), file));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

export const upscaleJob = defineJobKind({
  payload,
  async run(job, ctx) {
    const p = job.payload;
    const services = ctx.services;
    const dir = path.join(p.ep, passFolder(p.pass), safeShot(p.shot));
    const json = path.join(dir, upJsonName(p.stem));
    const close = async (fields: JsonObject) =>
      withLock(services, p.ep, async () => {
        const now = await readRecord(p.ep, json);
        // Redone or deleted meanwhile: this job's record is not there any more.
        if (now?.status !== "queued" || now.job !== job.id) return false;
        await writeUpscaleRecord(services, p.ep, json, { ...now, ...fields });
        return true;
      });
    const current = await readRecord(p.ep, json);
    if (current?.status !== "queued" || current.job !== job.id) return;
    const started = Date.now();
    const temp = path.join(dir, `.${p.stem}.up.${job.id}.mp4`);
    try {
      if (p.lane !== "builtin")
        throw new Error(`upscales on the ${p.lane} backend are not run by this worker yet`);
      const src = await guardPath(episodeFence(p.ep), path.join(dir, `${p.stem}.mp4`));
      const info = await probeClip(services, src);
      const seconds = info.duration ?? 0;
      const hasAudio = info.audio !== null;
      ctx.progress({ log: `${p.stem}: ffmpeg lanczos to ${p.plan.width}x${p.plan.height}`, progress: 0 });
      const crf =
        p.plan.quality === "master" ? ["-preset", "slow", "-crf", "14"] : ["-preset", "fast", "-crf", "20"];
      const args = [
        "-i",
        src,
        "-map",
        "0:v:0",
        ...(hasAudio ? ["-map", "0:a:0", "-c:a", "copy"] : []),
        "-vf",
        resampleFilter(p.plan),
        "-c:v",
        "libx264",
        ...crf,
        "-pix_fmt",
        "yuv420p",
        "-movflags",
        "+faststart",
        "-f",
        "mp4",
        await guardPath(episodeFence(p.ep), temp),
      ];
      const mp4Start = Date.now();
      const report = await runFfmpeg(args, {
        media: services.media,
        signal: ctx.signal,
        onProgress: (s) => ctx.progress({ progress: seconds > 0 ? Math.min(0.99, s / seconds) : 0.5 }),
      });
      const mp4Ms = Date.now() - mp4Start;
      await rename(temp, path.join(dir, upMp4Name(p.stem)));
      const frames = report.frames ?? null;
      const closed = await close({
        status: "ok",
        finished: localIso(services.now()),
        frames,
        width: p.plan.width,
        height: p.plan.height,
        mp4: upMp4Name(p.stem),
        audio: hasAudio ? "copied" : "none",
        encoder: "libx264",
        save_ms: { mp4: mp4Ms, audio: 0, total: Date.now() - started },
        save_notes: `${upMp4Name(p.stem)}: mp4 written (libx264)${hasAudio ? "; take's audio copied" : "; the take is mute"}`,
      });
      if (closed) ctx.emit("studio.upscale", upscaleEvent(p.ep, p.shot, p.take, "ok"));
      ctx.progress({ progress: 1, log: `${p.stem}: upscaled to ${p.plan.width}x${p.plan.height}` });
    } catch (err) {
      await rm(temp, { force: true }).catch(() => {});
      const canceled = ctx.signal.aborted;
      const why = canceled ? "canceled" : errorMessage(err);
      const closed = await close({
        status: "failed",
        finished: localIso(services.now()),
        mp4: null,
        save_notes: `${upMp4Name(p.stem)}: failed: ${why}`,
      }).catch(() => false);
      if (closed) ctx.emit("studio.upscale", upscaleEvent(p.ep, p.shot, p.take, "failed"));
      throw err;
    }
  },
});
