// The `router` backend's provider API: hosted video models (each its own provider) behind one HTTP API, reached at
// the cloud address of the settings (`cloud_url`, else Comfy Cloud) under `/api/router/v1`, with the settings'
// API key as a bearer token. This service designed the API; its routes:
//   GET  /models               {models: [RouterModel]}: each model's kind, inputs, fps, draft support, price per run
//   POST /tasks                a task from a prompt and optional first/last pictures (base64), or a final made from
//                              a finished draft's task id alone ({model, from_draft, resolution}); 201 RouterTask
//   GET  /tasks/:id            RouterTask: status queued|running|succeeded|failed|canceled, progress 0..1, output
//   GET  /tasks/:id/output     the finished video's bytes (mp4)
//   POST /tasks/:id/cancel     stop a task; answers the task
// Errors use the envelope `{error: {code, message}}`. A draft task (`draft: true`) renders low resolution and is
// kept by the provider for 7 days (`expires_at`); a final can then be made from its id at 1080p.
import { ROUTER_API } from "../backends/list.ts";
import { createV2Http, type V2CallOptions, type V2Http } from "../engines/comfy-v2/http.ts";
import { isObject, num, str } from "../store/json-guards.ts";

/** Where the provider API lives under the cloud address. */
export const ROUTER_PREFIX = ROUTER_API;

export interface RouterInputs {
  prompt: boolean;
  negative: boolean;
  first_image: boolean;
  last_image: boolean;
  /** Clip lengths the model renders, in seconds, ascending. */
  durations: number[];
  /** Resolution names the model renders (`480p`, `720p`, `1080p`), lowest first. */
  resolutions: string[];
  /** Aspect ratios it renders (`16:9`, `9:16`, `1:1`). */
  aspect_ratios: string[];
}

export interface RouterModel {
  id: string;
  label: string;
  provider: string;
  kind: string;
  fps: number;
  inputs: RouterInputs;
  /** Drafts: low-resolution proxy tasks a final can later be made from; null when the model has none. */
  draft: { resolution: string; days: number } | null;
  /** Price of one run, in `currency`. */
  price_per_run: number;
  currency: string;
}

export interface RouterTask {
  id: string;
  model: string;
  status: string;
  progress: number | null;
  error: string | null;
  draft: boolean;
  from_draft: string | null;
  expires_at: string | null;
  output: { url: string | null; content_type: string | null } | null;
}

export const TASK_TERMINAL: ReadonlySet<string> = new Set(["succeeded", "failed", "canceled", "expired"]);

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x !== "") : [];

const numbers = (v: unknown): number[] =>
  Array.isArray(v)
    ? v.filter((x): x is number => typeof x === "number" && Number.isFinite(x) && x > 0).sort((a, b) => a - b)
    : [];

/** One model entry read loosely; null when it has no id. */
export function readModel(v: unknown): RouterModel | null {
  if (!isObject(v)) return null;
  const id = str(v.id);
  if (!id) return null;
  const inputs = isObject(v.inputs) ? v.inputs : {};
  const draft = isObject(v.draft) ? v.draft : null;
  return {
    id,
    label: str(v.label) ?? id,
    provider: str(v.provider) ?? id.split("/")[0],
    kind: str(v.kind) ?? "video",
    fps: num(v.fps) ?? 24,
    inputs: {
      prompt: inputs.prompt !== false,
      negative: inputs.negative === true,
      first_image: inputs.first_image === true,
      last_image: inputs.last_image === true,
      durations: numbers(inputs.durations),
      resolutions: strings(inputs.resolutions),
      aspect_ratios: strings(inputs.aspect_ratios),
    },
    draft: draft ? { resolution: str(draft.resolution) ?? "480p", days: num(draft.days) ?? 7 } : null,
    price_per_run: num(v.price_per_run) ?? 0,
    currency: str(v.currency) ?? "USD",
  };
}

/** One task read loosely; null when it has no id or status. */
export function readTask(v: unknown): RouterTask | null {
  if (!isObject(v)) return null;
  const id = str(v.id);
  const status = str(v.status);
  if (!id || !status) return null;
  const out = isObject(v.output) ? v.output : null;
  const err = isObject(v.error) ? str(v.error.message) : str(v.error);
  return {
    id,
    model: str(v.model) ?? "",
    status,
    progress: num(v.progress),
    error: err,
    draft: v.draft === true,
    from_draft: str(v.from_draft),
    expires_at: str(v.expires_at),
    output: out ? { url: str(out.url), content_type: str(out.content_type) } : null,
  };
}

export interface RouterClient {
  readonly base: string;
  models(opts?: V2CallOptions): Promise<RouterModel[]>;
  submit(body: Record<string, unknown>, opts?: V2CallOptions): Promise<RouterTask>;
  task(id: string, opts?: V2CallOptions): Promise<RouterTask>;
  download(task: RouterTask, dest: string, opts?: V2CallOptions): Promise<number>;
  cancel(id: string, opts?: V2CallOptions): Promise<void>;
  close(): Promise<void>;
}

const enc = encodeURIComponent;

/** A client of the provider API at `url` (the cloud address) with `apiKey`. */
export function createRouterClient(url: string, apiKey: string | null): RouterClient {
  const http: V2Http = createV2Http({ url, apiKey, label: "the hosted-model router" });
  const route = (p: string) => `${ROUTER_PREFIX}${p}`;
  const taskOf = (json: unknown, what: string): RouterTask => {
    const t = readTask(json);
    if (!t) throw new Error(`the hosted-model router answered ${what} without a task id or status`);
    return t;
  };
  return {
    base: `${http.base}${ROUTER_PREFIX}`,
    async models(opts) {
      const a = await http.call("GET", route("/models"), undefined, opts);
      const list = isObject(a.json) && Array.isArray(a.json.models) ? a.json.models : null;
      if (!list)
        throw new Error(`the hosted-model router at ${http.base} answered /models without a model list`);
      return list.map(readModel).filter((m): m is RouterModel => m !== null);
    },
    async submit(body, opts) {
      const a = await http.call("POST", route("/tasks"), body, opts);
      return taskOf(a.json, "the submit");
    },
    async task(id, opts) {
      const a = await http.call("GET", route(`/tasks/${enc(id)}`), undefined, opts);
      return taskOf(a.json, `task ${id}`);
    },
    download(task, dest, opts) {
      return http.download(task.output?.url ?? route(`/tasks/${enc(task.id)}/output`), dest, opts);
    },
    async cancel(id, opts) {
      await http.call("POST", route(`/tasks/${enc(id)}/cancel`), {}, { ...opts, accept: [404, 409] });
    },
    close: () => http.close(),
  };
}
