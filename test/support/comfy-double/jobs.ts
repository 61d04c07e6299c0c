// The jobs API of newer builds (engines A.15): /api/jobs listing with filters/sort/pagination, one job
// with outputs and workflow, and the cancel endpoints. It reads the same in-memory queue and history.
import { type DoubleCore, isCanonicalUuid } from "./core.ts";
import { json, type Reply } from "./files.ts";
import type { HistoryEntry, Message, Task } from "./types.ts";

const STATUSES = ["pending", "in_progress", "completed", "failed", "cancelled"];
const IMAGE = /\.(png|jpe?g|webp|gif|bmp)$/i;
const VIDEO = /\.(mp4|webm|mov|mkv)$/i;
const AUDIO = /\.(wav|flac|mp3|ogg|m4a|opus)$/i;

interface Row {
  task: Task;
  status: string;
  entry?: HistoryEntry;
  messages: Message[];
}

function fileItems(outputs: Record<string, Record<string, unknown[]>>) {
  const items: { nodeId: string; key: string; item: Record<string, unknown> }[] = [];
  for (const [nodeId, out] of Object.entries(outputs)) {
    for (const [key, list] of Object.entries(out)) {
      if (key === "animated" || !Array.isArray(list)) continue;
      for (const item of list) {
        if (item && typeof item === "object" && "filename" in item) {
          items.push({ nodeId, key, item: item as Record<string, unknown> });
        }
      }
    }
  }
  return items;
}

function mediaType(filename: string): string | null {
  if (VIDEO.test(filename)) return "video";
  if (IMAGE.test(filename)) return "images";
  if (AUDIO.test(filename)) return "audio";
  return null;
}

function rows(core: DoubleCore): Row[] {
  const out: Row[] = [];
  for (const task of core.queue.pending()) out.push({ task, status: "pending", messages: [] });
  const running = core.queue.running;
  if (running) out.push({ task: running, status: "in_progress", messages: core.queue.runningMessages });
  for (const entry of core.queue.history.values()) {
    const last = entry.status.messages.at(-1)?.[0];
    const status =
      entry.status.status_str === "success"
        ? "completed"
        : last === "execution_interrupted"
          ? "cancelled"
          : "failed";
    out.push({ task: entry.task, status, entry, messages: entry.status.messages });
  }
  return out;
}

function job(row: Row, full: boolean): Record<string, unknown> {
  const { task, entry, messages } = row;
  const start = messages.find((m) => m[0] === "execution_start")?.[1].timestamp;
  const terminal = messages.find((m) =>
    ["execution_success", "execution_error", "execution_interrupted"].includes(m[0]),
  );
  const error = messages.find((m) => m[0] === "execution_error")?.[1];
  const pnginfo = task.extraData.extra_pnginfo as { workflow?: { id?: unknown } } | undefined;
  const out: Record<string, unknown> = {
    id: task.promptId,
    status: row.status,
    priority: task.number,
    create_time: task.extraData.create_time,
    execution_start_time: start,
    execution_end_time: terminal?.[1].timestamp,
    execution_error: error,
    workflow_id: pnginfo?.workflow?.id,
  };
  if (entry) {
    const items = fileItems(entry.outputs as Record<string, Record<string, unknown[]>>);
    const previewable = items.filter(
      (i) =>
        (i.item.type === "output" || i.item.type === "temp") && mediaType(String(i.item.filename)) !== null,
    );
    out.outputs_count = items.length;
    out.previewable_outputs_count = previewable.length;
    const first = previewable[0];
    if (first) {
      out.preview_output = {
        ...first.item,
        nodeId: first.nodeId,
        mediaType: mediaType(String(first.item.filename)),
      };
    }
    if (full) {
      out.outputs = entry.outputs;
      out.execution_status = entry.status;
    }
  }
  if (full) out.workflow = { prompt: task.prompt, extra_data: task.extraData };
  for (const k of Object.keys(out)) if (out[k] === undefined || out[k] === null) delete out[k];
  return out;
}

function duration(r: Row): number {
  const start = r.messages.find((m) => m[0] === "execution_start")?.[1].timestamp;
  const end = r.messages.at(-1)?.[1].timestamp;
  return typeof start === "number" && typeof end === "number" ? end - start : -1;
}

/** Routes under /api/jobs (segments after "jobs"). */
export function jobsRoute(
  core: DoubleCore,
  method: string,
  rest: string[],
  q: URLSearchParams,
  body: unknown,
): Reply | null {
  if (rest.length === 0 && (method === "GET" || method === "HEAD")) {
    const wanted =
      q
        .get("status")
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean) ?? [];
    const bad = wanted.filter((s) => !STATUSES.includes(s));
    if (bad.length > 0) {
      return json(
        { error: `Invalid status value(s): ${bad.join(", ")}. Valid values: ${STATUSES.join(", ")}` },
        400,
      );
    }
    const sortBy = q.get("sort_by") ?? "created_at";
    const sortOrder = q.get("sort_order") ?? "desc";
    if (!["created_at", "execution_duration"].includes(sortBy)) {
      return json({ error: "sort_by must be 'created_at' or 'execution_duration'" }, 400);
    }
    if (!["asc", "desc"].includes(sortOrder))
      return json({ error: "sort_order must be 'asc' or 'desc'" }, 400);
    const limitRaw = q.get("limit");
    const offsetRaw = q.get("offset");
    const limit = limitRaw === null ? null : Number(limitRaw);
    const offset = offsetRaw === null ? 0 : Number(offsetRaw);
    if (
      (limit !== null && (!Number.isInteger(limit) || limit < 1)) ||
      !Number.isInteger(offset) ||
      offset < 0
    ) {
      return json({ error: "limit must be a positive integer and offset a non-negative integer" }, 400);
    }
    const workflowId = q.get("workflow_id");
    let list = rows(core).filter((r) => wanted.length === 0 || wanted.includes(r.status));
    if (workflowId !== null) {
      list = list.filter(
        (r) =>
          (r.task.extraData.extra_pnginfo as { workflow?: { id?: unknown } })?.workflow?.id === workflowId,
      );
    }
    const key = (r: Row) =>
      sortBy === "created_at" ? Number(r.task.extraData.create_time ?? 0) : duration(r);
    list.sort((a, b) => (sortOrder === "asc" ? key(a) - key(b) : key(b) - key(a)));
    const total = list.length;
    const page = list.slice(offset, limit === null ? undefined : offset + limit);
    return json({
      jobs: page.map((r) => job(r, false)),
      pagination: { offset, limit, total, has_more: offset + page.length < total },
    });
  }
  if (rest.length === 1 && rest[0] === "cancel" && method === "POST") {
    const ids = (body as { job_ids?: unknown } | null)?.job_ids;
    if (!Array.isArray(ids)) return json({ error: "job_ids must be a list" }, 400);
    const invalid = ids.filter((i) => !isCanonicalUuid(i));
    if (invalid.length > 0) return json({ error: "Invalid job id(s)", invalid_ids: invalid }, 400);
    let any = false;
    for (const id of ids as string[]) any = core.cancel(id) || any;
    return json({ cancelled: any });
  }
  if (rest.length === 1 && (method === "GET" || method === "HEAD")) {
    const row = rows(core).find((r) => r.task.promptId === rest[0]);
    return row ? json(job(row, true)) : json({ error: "Job not found" }, 404);
  }
  if (rest.length === 2 && rest[1] === "cancel" && method === "POST") {
    return json({ cancelled: core.cancel(rest[0]) });
  }
  return null;
}
