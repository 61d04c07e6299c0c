// Readable reasons from ComfyUI's failures: a refused prompt (`node_errors`, missing model files) and a node that
// failed while running (`execution_error`).

import { isObject, trimmedId } from "../../store/json-guards.ts";
import { LOADER_FOLDERS } from "../../targets/folders.ts";
import type { ExecutionError } from "./messages.ts";

const MODEL_FILE = /\.(safetensors|sft|ckpt|pt|pth|bin|gguf|onnx)$/i;

/** The models folder a loader input reads, or null when it is not a known loader's file widget. */
export function loaderFolder(classType: string, input: string): string | null {
  const known = LOADER_FOLDERS[`${classType}.${input}`];
  if (known) return known;
  const i = input.toLowerCase();
  if (/lora/.test(i)) return "loras";
  if (/vae/.test(i)) return "vae";
  if (/unet/.test(i)) return "diffusion_models";
  if (/ckpt/.test(i)) return "checkpoints";
  if (/clip_vision/.test(i)) return "clip_vision";
  if (/clip|text_encoder/.test(i)) return "text_encoders";
  if (/control_?net/.test(i)) return "controlnet";
  if (/upscale/.test(i)) return "upscale_models";
  return null;
}

export interface NodeFault {
  node: string;
  classType: string;
  input: string | null;
  type: string;
  reason: string;
  /** Set for a missing model file (`value_not_in_list` on a loader's file widget). */
  missingModel?: { file: string; folder: string | null };
}

/** The input an error is about: `extra_info.input_name`, else the `details` prefix (`width`, `ckpt_name: ...`). */
function inputOf(err: Record<string, unknown>): string | null {
  const extra = isObject(err.extra_info) ? err.extra_info : {};
  const named = trimmedId(extra.input_name);
  if (named) return named;
  const details = trimmedId(err.details);
  if (!details) return null;
  const m = /^([A-Za-z_][\w.]*)(?::|$)/.exec(details);
  return m ? m[1] : null;
}

/** Every fault of a `node_errors` object, in node-id order. */
export function nodeFaults(
  nodeErrors: unknown,
  graph?: Record<string, { class_type?: unknown }>,
): NodeFault[] {
  if (!isObject(nodeErrors)) return [];
  const out: NodeFault[] = [];
  const ids = Object.keys(nodeErrors).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  for (const id of ids) {
    const entry = nodeErrors[id];
    if (!isObject(entry)) continue;
    const classType = trimmedId(entry.class_type) ?? trimmedId(graph?.[id]?.class_type) ?? "unknown node";
    const errors = Array.isArray(entry.errors) ? entry.errors.filter(isObject) : [];
    if (errors.length === 0) {
      out.push({ node: id, classType, input: null, type: "unknown", reason: "failed validation" });
      continue;
    }
    for (const err of errors) {
      const type = trimmedId(err.type) ?? "unknown";
      const input = inputOf(err);
      const extra = isObject(err.extra_info) ? err.extra_info : {};
      const received = extra.received_value;
      const message = trimmedId(err.message) ?? type;
      const details = trimmedId(err.details);
      const fault: NodeFault = { node: id, classType, input, type, reason: message };
      if (details && details !== input) fault.reason = `${message}: ${details}`;
      if (type === "value_not_in_list" && input) {
        const file = typeof received === "string" ? received : null;
        const folder = loaderFolder(classType, input);
        const known = Object.hasOwn(LOADER_FOLDERS, `${classType}.${input}`);
        if (
          file !== null &&
          (known || MODEL_FILE.test(file) || (folder !== null && /Loader/.test(classType)))
        ) {
          fault.missingModel = { file, folder };
          fault.reason = `missing model file ${file} for ${classType}.${input} (folder ${folder ?? "unknown"})`;
        } else if (file !== null) {
          fault.reason = `'${file}' is not one of its choices`;
        }
      }
      out.push(fault);
    }
  }
  return out;
}

/** One line for a fault: the missing-model sentence as is, else `<Class> #<id> input <name>: <reason>`. */
export function faultLine(f: NodeFault): string {
  if (f.missingModel) return f.reason;
  const where = f.input ? `${f.classType} #${f.node} input ${f.input}` : `${f.classType} #${f.node}`;
  return `${where}: ${f.reason}`;
}

/** The reason a `/prompt` answer refused (400) or partly refused (200 with `node_errors`) the prompt. */
export function promptRefusal(
  body: unknown,
  graph?: Record<string, { class_type?: unknown }>,
  status?: number,
): string {
  const b = isObject(body) ? body : {};
  const faults = nodeFaults(b.node_errors, graph);
  const err = isObject(b.error) ? b.error : null;
  const head = status === 200 ? "ComfyUI would skip outputs of the prompt" : "ComfyUI refused the prompt";
  if (faults.length > 0) return `${head}: ${faults.map(faultLine).join("; ")}`;
  if (err) {
    const type = trimmedId(err.type);
    const message = trimmedId(err.message) ?? "invalid prompt";
    const details = trimmedId(err.details);
    const extra = isObject(err.extra_info) ? err.extra_info : {};
    const cls = trimmedId(extra.class_type);
    const nodeId = trimmedId(extra.node_id);
    const parts = [message];
    if (details) parts.push(details);
    else if (cls || nodeId) parts.push(`${cls ?? "node"}${nodeId ? ` #${nodeId}` : ""}`);
    return `${head}: ${parts.join(": ")}${type ? ` (${type})` : ""}`;
  }
  if (typeof b.error === "string") return `${head}: ${b.error}`;
  return `${head}${status ? ` (status ${status})` : ""}`;
}

/** `KSampler #3 failed: torch.cuda.OutOfMemoryError: Allocation on device` (the traceback's last line when no message). */
export function executionFailure(e: ExecutionError): string {
  const where = `${e.nodeType ?? "unknown node"}${e.nodeId ? ` #${e.nodeId}` : ""}`;
  let message = e.exceptionMessage.split("\n")[0]?.trim() || "";
  if (!message) message = e.traceback.at(-1)?.trim() ?? "";
  const type = e.exceptionType && e.exceptionType !== "Exception" ? `${e.exceptionType}: ` : "";
  return `${where} failed: ${type}${message || "no message"}`;
}
