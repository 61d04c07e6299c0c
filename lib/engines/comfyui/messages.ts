// ComfyUI websocket frames as typed events: the JSON text messages and the binary preview/text frames.
import { idText, isObject, num } from "../../store/json-guards.ts";

export type ComfyEvent =
  | { type: "status"; queueRemaining: number | null; sid: string | null }
  | { type: "execution_start"; promptId: string }
  | { type: "execution_cached"; promptId: string; nodes: string[] }
  /** `node: null` with our prompt id: the prompt has finished and its history is written. */
  | { type: "executing"; promptId: string | null; node: string | null }
  | { type: "progress"; promptId: string | null; node: string | null; value: number; max: number }
  | { type: "progress_state"; promptId: string; nodes: Record<string, unknown> }
  | { type: "executed"; promptId: string; node: string; output: unknown }
  | { type: "execution_success"; promptId: string }
  | { type: "execution_error"; promptId: string; error: ExecutionError }
  | { type: "execution_interrupted"; promptId: string; node: string | null; nodeType: string | null }
  | { type: "preview"; format: string; promptId: string | null; node: string | null; bytes: number }
  | { type: "text"; node: string; text: string }
  | { type: "other"; name: string; data: unknown };

/** The fields of an `execution_error` payload a message needs. */
export interface ExecutionError {
  nodeId: string | null;
  nodeType: string | null;
  exceptionType: string | null;
  exceptionMessage: string;
  traceback: string[];
}

/** The `execution_error` payload (WS data or the history message) read loosely. */
export function readExecutionError(data: unknown): ExecutionError {
  const d = isObject(data) ? data : {};
  return {
    nodeId: idText(d.node_id),
    nodeType: idText(d.node_type),
    exceptionType: idText(d.exception_type),
    exceptionMessage: idText(d.exception_message)?.trim() ?? "",
    traceback: Array.isArray(d.traceback)
      ? d.traceback.filter((x): x is string => typeof x === "string")
      : [],
  };
}

/** One text message (`{"type", "data"}`) as an event; null when it is not one. */
export function parseText(raw: string): ComfyEvent | null {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isObject(msg) || typeof msg.type !== "string") return null;
  const d = isObject(msg.data) ? msg.data : {};
  const pid = idText(d.prompt_id);
  switch (msg.type) {
    case "status": {
      const status = isObject(d.status) ? d.status : {};
      const info = isObject(status.exec_info) ? status.exec_info : {};
      return { type: "status", queueRemaining: num(info.queue_remaining), sid: idText(d.sid) };
    }
    case "execution_start":
    case "execution_success":
      return pid ? { type: msg.type, promptId: pid } : null;
    case "execution_cached":
      return pid
        ? {
            type: "execution_cached",
            promptId: pid,
            nodes: Array.isArray(d.nodes) ? d.nodes.map(String) : [],
          }
        : null;
    case "executing":
      return { type: "executing", promptId: pid, node: d.node === null ? null : idText(d.node) };
    case "progress": {
      const value = num(d.value);
      const max = num(d.max);
      if (value === null || max === null) return null;
      return { type: "progress", promptId: pid, node: idText(d.node), value, max };
    }
    case "progress_state":
      return pid ? { type: "progress_state", promptId: pid, nodes: isObject(d.nodes) ? d.nodes : {} } : null;
    case "executed": {
      const node = idText(d.node);
      return pid && node ? { type: "executed", promptId: pid, node, output: d.output ?? null } : null;
    }
    case "execution_error":
      return pid ? { type: "execution_error", promptId: pid, error: readExecutionError(d) } : null;
    case "execution_interrupted":
      return pid
        ? {
            type: "execution_interrupted",
            promptId: pid,
            node: idText(d.node_id),
            nodeType: idText(d.node_type),
          }
        : null;
    default:
      return { type: "other", name: msg.type, data: msg.data ?? null };
  }
}

/** One binary frame: previews (types 1 and 4) and node text (type 3); null for anything else or a short frame. */
export function parseBinary(buf: Uint8Array): ComfyEvent | null {
  if (buf.byteLength < 4) return null;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const kind = view.getUint32(0);
  if (kind === 1) {
    if (buf.byteLength < 8) return null;
    const fmt = view.getUint32(4);
    const format = fmt === 1 ? "image/jpeg" : fmt === 2 ? "image/png" : `unknown/${fmt}`;
    return { type: "preview", format, promptId: null, node: null, bytes: buf.byteLength - 8 };
  }
  if (kind === 4) {
    if (buf.byteLength < 8) return null;
    const len = view.getUint32(4);
    if (8 + len > buf.byteLength) return null;
    let meta: unknown = null;
    try {
      meta = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + len)));
    } catch {
      meta = null;
    }
    const m = isObject(meta) ? meta : {};
    return {
      type: "preview",
      format: idText(m.image_type) ?? "image/jpeg",
      promptId: idText(m.prompt_id),
      node: idText(m.node_id),
      bytes: buf.byteLength - 8 - len,
    };
  }
  if (kind === 3) {
    if (buf.byteLength < 8) return null;
    const len = view.getUint32(4);
    if (8 + len > buf.byteLength) return null;
    const dec = new TextDecoder();
    return {
      type: "text",
      node: dec.decode(buf.subarray(8, 8 + len)),
      text: dec.decode(buf.subarray(8 + len)),
    };
  }
  return null;
}

/** The prompt an event belongs to, when it names one. */
export function eventPrompt(ev: ComfyEvent): string | null {
  return "promptId" in ev ? ev.promptId : null;
}
