// Deleting a take's post: its `.post.mp4` and `.post.json` removed, refused while its job still waits or runs.
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { folderTakes } from "../episode/cut-view.ts";
import { StudioError } from "../errors.ts";
import { episodeFence, removeShow } from "../paths/guarded.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { str } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { postJsonName } from "../upscale/fresh.ts";
import { readRecordNow, recordPath, versionEvent, versionMp4Path } from "../upscale/version-record.ts";

export async function deletePost(
  services: Services,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
): Promise<{ shot: string; take: number; deleted: true }> {
  const t = (await folderTakes(services, ep, pass, shot)).find((x) => x.take === take);
  if (!t) throw new StudioError(404, `${pass} take ${take} of ${shot} doesn't exist`);
  if (!t.files.includes(postJsonName(t.stem)))
    throw new StudioError(404, `${pass} take ${take} of ${shot} has no post-process`);
  const ref = { ep, pass, shot, stem: t.stem };
  await withLock(services, ep, async () => {
    const rec = await readRecordNow(ep, recordPath("post", ref));
    const jobId = str(rec?.job);
    if (rec?.status === "queued" && jobId) {
      const job = await (await services.jobs()).get(jobId);
      if (job && (job.status === "queued" || job.status === "running"))
        throw new StudioError(
          409,
          `the post of ${shot} take ${take} is still in the ${job.lane} queue (job ${jobId}): cancel it first`,
          { job: jobId },
        );
    }
    const fence = episodeFence(ep);
    await removeShow(fence, versionMp4Path("post", ref));
    await removeShow(fence, recordPath("post", ref));
    forgetJsonFile(services, recordPath("post", ref));
  });
  services.events.emit("studio.post", versionEvent(ep, shot, take, "deleted"));
  return { shot, take, deleted: true };
}
