// The install job: model files downloaded one after another into the engine's models folders (lib/features/
// download.ts: resumed, checked, renamed into place), each task's bytes written for the features listing and sent
// as `studio.features` events. A cancel stops the download under way (its partial file kept to resume) and starts
// no other; a file that fails its check is removed and the rest go on.
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { DownloadError, downloadAddress, downloadFile } from "../../lib/features/download.ts";
import { modelsDir } from "../../lib/features/place.ts";
import {
  freshTasks,
  type InstallTask,
  readInstallTasks,
  writeInstallTasks,
} from "../../lib/features/state.ts";
import { hfToken } from "../../lib/features/token.ts";
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { errorMessage } from "../../lib/store/json-guards.ts";

const fileName = z
  .string()
  .min(1)
  .refine((n) => !/[\\/]/.test(n) && !n.startsWith(".") && !n.includes("\0"), "must be a plain file name");

export const installItem = z.object({
  key: z.string().min(1),
  name: fileName,
  folder: z.string().regex(/^[a-z0-9_]+(\/[a-z0-9_]+)*$/i, "must be a models folder name"),
  url: z.string().regex(/^https?:\/\//, "must be an http(s) address"),
  sha256: z.string().optional(),
  size: z.number().int().min(0).optional(),
});

export const installPayload = z.object({ root: z.string().min(1), items: z.array(installItem).min(1) });
export type InstallPayload = z.infer<typeof installPayload>;

const SAVE_MS = 1000;

export const installJob = defineJobKind({
  payload: installPayload,
  async run(job, ctx) {
    const { services } = ctx;
    const p = job.payload;
    const tasks = (await readInstallTasks(services.home, job.id)) ?? freshTasks(p.items);
    let lastSave = 0;
    const save = async (force: boolean) => {
      const now = Date.now();
      if (!force && now - lastSave < SAVE_MS) return;
      lastSave = now;
      await writeInstallTasks(services.home, job.id, tasks);
    };
    const send = (task: InstallTask) => ctx.emit("studio.features", { job: job.id, task });
    const token = await hfToken(services);
    const failed: string[] = [];
    for (const [index, item] of p.items.entries()) {
      const task = tasks.find((t) => t.key === item.key);
      if (!task || task.status === "done") continue;
      if (ctx.signal.aborted) break;
      const dir = modelsDir(p.root, item.folder);
      const dest = path.join(dir, item.name);
      if (path.relative(path.join(p.root, "models"), dest).startsWith("..")) {
        Object.assign(task, {
          status: "failed",
          error: `${item.folder}/${item.name} is outside the models folder`,
        });
        failed.push(item.name);
        continue;
      }
      const there = await stat(dest).then(
        (s) => s.isFile(),
        () => false,
      );
      if (there) {
        Object.assign(task, { status: "done", note: "already installed" });
        await save(true);
        send(task);
        continue;
      }
      Object.assign(task, { status: "running", error: null });
      await save(true);
      send(task);
      ctx.progress({
        step: item.name,
        steps: p.items.length,
        log: `downloading ${item.name} into models/${item.folder}`,
      });
      try {
        const got = await downloadFile({
          url: downloadAddress(item.url, services.env),
          dest,
          token,
          env: services.env,
          signal: ctx.signal,
          ...(item.sha256 ? { sha256: item.sha256 } : {}),
          ...(item.size !== undefined ? { size: item.size } : {}),
          onProgress(bytes, total) {
            task.bytes = bytes;
            task.total = total;
            const part = total ? bytes / total : 0;
            ctx.progress({ progress: (index + part) / p.items.length });
            if (Date.now() - lastSave >= SAVE_MS) {
              void save(false).catch(() => undefined);
              send(task);
            }
          },
        });
        task.status = "done";
        task.bytes = got.bytes;
        task.total = got.bytes;
        task.note = [
          got.resumed ? `resumed from ${got.resumed} bytes` : null,
          got.checked === "sha256"
            ? "SHA-256 checked"
            : got.checked === "size"
              ? "size checked"
              : "nothing to check it against",
        ]
          .filter(Boolean)
          .join("; ");
        ctx.progress({ log: `${item.name}: done (${task.note})` });
      } catch (err) {
        if (ctx.signal.aborted) {
          task.status = "canceled";
          task.note =
            task.bytes > 0
              ? `partial download kept (${task.bytes} bytes); installing again resumes it`
              : null;
          await save(true);
          send(task);
          break;
        }
        task.status = "failed";
        task.error = errorMessage(err);
        if (err instanceof DownloadError && err.kept && task.bytes > 0)
          task.note = `partial download kept (${task.bytes} bytes); installing again resumes it`;
        failed.push(item.name);
        ctx.progress({ log: `${item.name}: ${task.error}` });
      }
      await save(true);
      send(task);
    }
    if (ctx.signal.aborted) {
      for (const t of tasks) if (t.status === "queued" || t.status === "running") t.status = "canceled";
      await save(true);
      throw new Error("canceled");
    }
    ctx.progress({ progress: 1, step: "done" });
    if (failed.length)
      throw new Error(`${failed.length} of ${p.items.length} files failed: ${failed.join(", ")}`);
  },
});
