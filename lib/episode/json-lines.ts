// Finds the line of each key in a JSON text (e.g. `subjects.gina_towel` → 14), so the editor can point at it.

/** Map of dotted key path → 1-based line of its first occurrence. Tolerates text that stops early. */
export function jsonKeyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const stack: { kind: "object" | "array"; path: string; index: number; expectKey: boolean }[] = [];
  let line = 1;
  let pendingKey: string | null = null;
  let i = 0;
  const n = text.length;

  const childPath = (frame: (typeof stack)[number], key: string) =>
    frame.path ? `${frame.path}.${key}` : key;

  while (i < n) {
    const ch = text[i];
    if (ch === "\n") {
      line++;
      i++;
      continue;
    }
    if (ch === '"') {
      const start = line;
      let j = i + 1;
      let value = "";
      while (j < n && text[j] !== '"') {
        if (text[j] === "\\") {
          value += text[j + 1] ?? "";
          j += 2;
          continue;
        }
        if (text[j] === "\n") line++;
        value += text[j];
        j++;
      }
      i = j + 1;
      const top = stack[stack.length - 1];
      if (top?.kind === "object" && top.expectKey) {
        const key = childPath(top, value);
        if (!lines.has(key)) lines.set(key, start);
        pendingKey = key;
        top.expectKey = false;
      }
      continue;
    }
    if (ch === "{" || ch === "[") {
      const top = stack[stack.length - 1];
      let p = "";
      if (top?.kind === "object") p = pendingKey ?? top.path;
      else if (top?.kind === "array") p = childPath(top, String(top.index));
      stack.push({ kind: ch === "{" ? "object" : "array", path: p, index: 0, expectKey: ch === "{" });
      pendingKey = null;
    } else if (ch === "}" || ch === "]") {
      stack.pop();
    } else if (ch === ",") {
      const top = stack[stack.length - 1];
      if (top?.kind === "object") top.expectKey = true;
      else if (top) top.index++;
    }
    i++;
  }
  return lines;
}

/** The line of the deepest known prefix of `keyPath` (`profiles.fast.steps` falls back to `profiles.fast`). */
export function lineOfKey(lines: Map<string, number>, keyPath: string): number | null {
  const parts = keyPath.split(".");
  for (let k = parts.length; k > 0; k--) {
    const hit = lines.get(parts.slice(0, k).join("."));
    if (hit !== undefined) return hit;
  }
  return null;
}
