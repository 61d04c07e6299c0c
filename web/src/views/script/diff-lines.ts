// A unified diff's lines sorted for colouring: file names, hunk heads, added, removed and unchanged lines.

export type DiffLineKind = "file" | "hunk" | "add" | "del" | "same";

export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "same";
}

/** The lines of a unified diff with their kind; an empty diff has none (a trailing newline adds no line). */
export function diffLines(diff: string): { text: string; kind: DiffLineKind }[] {
  if (!diff) return [];
  const lines = diff.endsWith("\n") ? diff.slice(0, -1).split("\n") : diff.split("\n");
  return lines.map((text) => ({ text, kind: diffLineKind(text) }));
}
