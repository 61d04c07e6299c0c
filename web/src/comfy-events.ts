// ComfyUI's execution events, which reach the page only when it is mounted in ComfyUI (one socket carries both),
// kept per prompt for the jobs whose backend_prompt_id names that prompt. A bonus on top of `studio.job`: the job
// itself stays the truth, these only add the engine's step count and its failure message sooner.
// Free of DOM imports so vitest can run it as plain TypeScript.

/** The ComfyUI events read here; every other type on the socket is left alone. */
export const COMFY_EVENT_TYPES = [
  "execution_start",
  "executing",
  "progress",
  "execution_success",
  "execution_error",
  "execution_interrupted",
] as const;

export type ComfyEventType = (typeof COMFY_EVENT_TYPES)[number];

export interface EnginePrompt {
  state: "running" | "done" | "failed" | "interrupted";
  /** Steps done and to do of the node running now, when ComfyUI counts them. */
  value: number | null;
  max: number | null;
  /** The id of the node running now. */
  node: string | null;
  /** `<node_type>: <exception_message>` of a failure; the node type of an interruption. */
  error: string | null;
}

export type EnginePrompts = ReadonlyMap<string, EnginePrompt>;

/** What the jobs view adds to a job from ComfyUI's events. */
export interface EngineNote {
  /** 0–1 of the node's steps, when counted. */
  progress: number | null;
  text: string | null;
  error: string | null;
  /** ComfyUI's own words of a failure (`<node_type>: <exception_message>`), to tell whether the job says them. */
  detail: string | null;
}

const FRESH: EnginePrompt = { state: "running", value: null, max: null, node: null, error: null };

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** Node ids arrive as text, though older ComfyUI versions sent numbers. */
function nodeId(value: unknown): string | null {
  return typeof value === "number" && Number.isFinite(value) ? String(value) : text(value);
}

/**
 * The prompts after one event of `type`. Only prompts `watched` says a job waits on are kept; an event of another
 * prompt, of no prompt, or with a payload of the wrong shape changes nothing and answers the same map.
 */
export function applyComfyEvent(
  prompts: EnginePrompts,
  type: string,
  data: unknown,
  watched: (promptId: string) => boolean,
): EnginePrompts {
  if (typeof data !== "object" || data === null) return prompts;
  const d = data as Record<string, unknown>;
  const id = text(d.prompt_id);
  if (!id || !watched(id)) return prompts;
  const was = prompts.get(id) ?? FRESH;
  let next: EnginePrompt;
  switch (type as ComfyEventType) {
    case "execution_start":
      next = FRESH;
      break;
    case "executing": {
      // `node: null` is ComfyUI's word for "this prompt has finished".
      if (d.node === null) next = { ...was, state: was.state === "running" ? "done" : was.state, node: null };
      else next = { ...was, state: "running", node: nodeId(d.node), value: null, max: null };
      break;
    }
    case "progress": {
      const value = count(d.value);
      const max = count(d.max);
      if (value === null || max === null || max === 0) return prompts;
      next = { ...was, state: "running", value: Math.min(value, max), max, node: nodeId(d.node) ?? was.node };
      break;
    }
    case "execution_success":
      next = { ...was, state: "done" };
      break;
    case "execution_error": {
      const node = text(d.node_type) ?? (nodeId(d.node_id) ? `node ${nodeId(d.node_id)}` : "a node");
      const message = text(d.exception_message) ?? text(d.exception_type) ?? "no message";
      next = { ...was, state: "failed", node: nodeId(d.node_id) ?? was.node, error: `${node}: ${message}` };
      break;
    }
    case "execution_interrupted":
      next = { ...was, state: "interrupted", node: nodeId(d.node_id) ?? was.node, error: text(d.node_type) };
      break;
    default:
      return prompts;
  }
  const out = new Map(prompts);
  out.set(id, next);
  return out;
}

/** Only the prompts some listed job still names (the map never outgrows the jobs list). */
export function keepPrompts(prompts: EnginePrompts, ids: ReadonlySet<string>): EnginePrompts {
  if ([...prompts.keys()].every((id) => ids.has(id))) return prompts;
  return new Map([...prompts].filter(([id]) => ids.has(id)));
}

/** The prompt ids of jobs, for `watched` and `keepPrompts`. */
export function jobPromptIds(jobs: readonly { backend_prompt_id?: string | null }[]): Set<string> {
  const out = new Set<string>();
  for (const j of jobs) if (j.backend_prompt_id) out.add(j.backend_prompt_id);
  return out;
}

/** What ComfyUI said of a job's prompt, as the jobs view shows it; null when it said nothing. */
export function engineNote(
  job: { title: string; backend_prompt_id?: string | null },
  prompts: EnginePrompts,
): EngineNote | null {
  const p = job.backend_prompt_id ? prompts.get(job.backend_prompt_id) : undefined;
  if (!p) return null;
  switch (p.state) {
    case "failed":
      return {
        progress: null,
        text: null,
        error: `${job.title} failed in ComfyUI: ${p.error}`,
        detail: p.error,
      };
    case "interrupted":
      return {
        progress: null,
        text: null,
        error: `${job.title} was interrupted in ComfyUI${p.error ? ` at ${p.error}` : ""}`,
        detail: null,
      };
    case "done":
      return { progress: 1, text: "ComfyUI finished; collecting the outputs", error: null, detail: null };
    case "running": {
      const where = p.node ? `node ${p.node}` : null;
      if (p.value !== null && p.max) {
        return {
          progress: p.value / p.max,
          text: `ComfyUI${where ? ` ${where}` : ""}: step ${p.value} of ${p.max}`,
          error: null,
          detail: null,
        };
      }
      return {
        progress: null,
        text: `ComfyUI running${where ? ` ${where}` : ""}`,
        error: null,
        detail: null,
      };
    }
  }
}

/** ComfyUI's failure message for a failed job whose own error does not already carry ComfyUI's words; else null. */
export function unsaidEngineError(
  job: { title: string; status: string; error: string | null; backend_prompt_id?: string | null },
  prompts: EnginePrompts,
): string | null {
  if (job.status !== "failed") return null;
  const note = engineNote(job, prompts);
  if (!note?.error || !note.detail) return null;
  return job.error?.includes(note.detail) ? null : note.error;
}
