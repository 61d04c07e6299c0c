// The project's H3ShotListLoader as the double runs it: it reads the frozen shot list the graph names (root +
// shotlist, shot `index`) and its values replace the links that read the loader's outputs, so the saver's plan
// (size, frame count, shot id) is the shot list's, as on a ComfyUI with the pack installed.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Graph } from "./types.ts";

/** Output slots of H3ShotListLoader whose values are plain numbers or text (pictures and audio stay links). */
const SLOTS: Record<number, string> = {
  0: "id",
  1: "prompt",
  9: "width",
  10: "height",
  11: "length",
  12: "steps",
  13: "seed",
  14: "audio_policy",
};
const FALLBACK: Record<string, unknown> = { width: 1344, height: 768, audio_policy: "generate" };

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A copy of `graph` with every loader output read as its value; throws as the pack would on an unreadable file. */
export async function withShotList(graph: Graph): Promise<Graph> {
  const g = structuredClone(graph);
  for (const [id, node] of Object.entries(g)) {
    if (node?.class_type !== "H3ShotListLoader") continue;
    const { root, shotlist, index } = node.inputs ?? {};
    if (typeof root !== "string" || typeof shotlist !== "string" || !root || !shotlist)
      throw new Error("H3ShotListLoader: root and shotlist must name the frozen shot list");
    const doc: unknown = JSON.parse(await readFile(path.resolve(root, shotlist), "utf8"));
    const shots = isObj(doc) && Array.isArray(doc.shots) ? doc.shots : [];
    const entry: unknown = shots[typeof index === "number" ? index : 0];
    if (!isObj(entry)) throw new Error(`H3ShotListLoader: ${shotlist} has no shot ${String(index)}`);
    const defaults = isObj(doc) && isObj(doc.defaults) ? doc.defaults : {};
    const value = (key: string) => {
      const v = entry[key] ?? defaults[key] ?? FALLBACK[key];
      return Array.isArray(v) ? v.join("\n\n") : v;
    };
    for (const other of Object.values(g)) {
      const ins = other?.inputs;
      if (!ins) continue;
      for (const [name, v] of Object.entries(ins)) {
        if (!Array.isArray(v) || v[0] !== id || typeof v[1] !== "number") continue;
        const key = SLOTS[v[1]];
        const got = key ? value(key) : undefined;
        if (got !== undefined && got !== null) ins[name] = got;
      }
    }
  }
  return g;
}
