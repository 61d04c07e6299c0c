// The reference work order: every needed file over all targets, and its Markdown form (script format 4.18).
import type { RefsTodoItem, Report } from "./types.ts";

/** Merge the reports' needs, the series target's first; later targets only add paths and blocked shots. */
export function mergeRefsTodo(reports: readonly Report[]): RefsTodoItem[] {
  const items = new Map<string, RefsTodoItem>();
  for (const r of reports) {
    for (const [path, need] of Object.entries(r.needed)) {
      let item = items.get(path);
      if (!item) {
        item = {
          path,
          kind: need.kind,
          prompt: need.prompt,
          size_hint: r.size_hints[need.kind] ?? "",
          blocks_shots: [],
        };
        items.set(path, item);
      }
      if (!item.size_hint) item.size_hint = r.size_hints[need.kind] ?? "";
      for (const shot of r.blocked_shots[path] ?? [])
        if (!item.blocks_shots.includes(shot)) item.blocks_shots.push(shot);
    }
  }
  return [...items.values()];
}

export type RefsTodoEntry = RefsTodoItem & { exists: boolean };

const cell = (s: string) => s.replace(/\|/g, "\\|");

/** Only the missing files, with a summary table by kind. */
export function refsTodoMarkdown(
  entries: readonly RefsTodoEntry[],
  episode: string,
  pass: "final" | "proxy",
): string {
  const missing = entries.filter((e) => !e.exists);
  const lines = [`# Reference work order: ${episode} (${pass} pass)`, ""];
  if (missing.length === 0) {
    lines.push(`All ${entries.length} reference files exist.`, "");
    return lines.join("\n");
  }
  lines.push(`${missing.length} of ${entries.length} reference files are missing.`, "");
  const byKind = new Map<string, number>();
  for (const e of missing) byKind.set(e.kind, (byKind.get(e.kind) ?? 0) + 1);
  lines.push("| kind | missing |", "|---|---|");
  for (const [kind, n] of byKind) lines.push(`| ${cell(kind)} | ${n} |`);
  lines.push("");
  for (const e of missing) {
    lines.push(`## ${e.path}`, "", `- kind: ${e.kind}`);
    if (e.size_hint) lines.push(`- size: ${e.size_hint}`);
    if (e.blocks_shots.length) lines.push(`- blocks: ${e.blocks_shots.join(", ")}`);
    lines.push("", `> ${e.prompt.replace(/\n/g, "\n> ")}`, "");
  }
  return lines.join("\n");
}
