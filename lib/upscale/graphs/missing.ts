// What a finishing graph needs that a ComfyUI server lacks, in sentences a person can act on: missing node classes
// grouped by the pack that brings them (or "update ComfyUI" for core classes), and missing model files with the
// models folder they belong in.
import { inputChoices, type NodeInfo } from "../../engines/comfyui/readiness.ts";
import type { GraphNeeds } from "./types.ts";

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** The classes of `needs` the server's catalogue lacks. */
export function missingNodes(needs: GraphNeeds, objectInfo: Record<string, NodeInfo>): string[] {
  return needs.nodes.filter((n) => !Object.hasOwn(objectInfo, n.class_type)).map((n) => n.class_type);
}

/**
 * Sentences for everything `needs` names that the server lacks (empty when it can run the graph). A model file is
 * looked for in `folders` (the server's `/models/<folder>` lists) when that folder is known, else among the
 * choices its loader's input offers.
 */
export function missingSentences(
  needs: GraphNeeds,
  objectInfo: Record<string, NodeInfo>,
  folders: Record<string, readonly string[] | null | undefined> = {},
): string[] {
  const out: string[] = [];
  const byPack = new Map<string, string[]>();
  for (const n of needs.nodes) {
    if (Object.hasOwn(objectInfo, n.class_type)) continue;
    const key = n.pack ?? "";
    byPack.set(key, [...(byPack.get(key) ?? []), n.class_type]);
  }
  for (const [pack, classes] of byPack) {
    const what = `${plural(classes.length, "node", "nodes")} ${classes.join(", ")} ${plural(classes.length, "is", "are")} missing`;
    out.push(
      pack
        ? `${what}: install the ${pack} node pack`
        : `${what}: ${plural(classes.length, "it comes", "they come")} with ComfyUI itself (update ComfyUI)`,
    );
  }
  for (const m of needs.models) {
    const listed = folders[m.folder];
    let present: boolean;
    if (Array.isArray(listed)) present = listed.includes(m.file);
    else if (m.loader) {
      const choices = inputChoices(objectInfo[m.loader.class_type] ?? null, m.loader.input);
      present = choices?.includes(m.file) ?? false;
    } else present = false;
    if (!present) out.push(`model file ${m.file} is missing from models/${m.folder}/`);
  }
  return out;
}
