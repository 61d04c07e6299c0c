// How the Simple view writes a prompt into a Simple project: each clip is its own sequence on its own location
// (described by the prompt, with a plate to draw) holding one shot whose action is the prompt. The same prompt
// twice in a row reuses the last shot, so pressing again makes more takes of it rather than a copy.

export interface ClipEdit {
  script: string;
  series: string;
  shot: string;
  /** False: the last clip already had this prompt; both texts are unchanged. */
  added: boolean;
}

/** Seconds a new clip lasts. */
export const CLIP_SECONDS = 5;

/**
 * The prompt as one line of action: whitespace runs to one space, and no leading `#`, `=` or `>` that would
 * read as a header or a note; empty when nothing is left.
 */
export function promptLine(prompt: string): string {
  return prompt
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[#=>\s]+/, "");
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** The shots of a script in order, each with the lines of its block. */
function shotBlocks(script: string): { id: string; lines: string[] }[] {
  const out: { id: string; lines: string[] }[] = [];
  for (const line of script.split(/\r?\n/)) {
    const head = /^##\s+(\S+)/.exec(line);
    if (head) out.push({ id: head[1], lines: [] });
    else if (/^#\s/.test(line)) out.push({ id: "", lines: [] });
    else out.at(-1)?.lines.push(line.trim());
  }
  return out.filter((b) => b.id !== "");
}

/** The script and series config with a clip of `prompt` added (or the last one, when it has this prompt). */
export function addClip(
  script: string,
  seriesText: string,
  prompt: string,
  seconds = CLIP_SECONDS,
): ClipEdit {
  const line = promptLine(prompt);
  if (!line) throw new Error("Write what the clip shows first.");
  const shots = shotBlocks(script);
  const last = shots.at(-1);
  if (last?.lines.includes(line)) return { script, series: seriesText, shot: last.id, added: false };

  const numbers = shots.map((s) => /^sh(\d+)$/.exec(s.id)).map((m) => (m ? Number(m[1]) : 0));
  const n = Math.max(0, ...numbers) + 10;
  const shot = `sh${pad(n, 3)}`;
  const sequences = script.split(/\r?\n/).filter((l) => /^#\s/.test(l)).length;
  const location = `clip${pad(n, 3)}`;

  let config: Record<string, unknown>;
  try {
    config = JSON.parse(seriesText) as Record<string, unknown>;
  } catch {
    throw new Error("The project's series.json is not JSON: fix it in the Script view first.");
  }
  if (!config || typeof config !== "object" || Array.isArray(config)) {
    throw new Error("The project's series.json is not a series config: fix it in the Script view first.");
  }
  const locations =
    config.locations && typeof config.locations === "object" && !Array.isArray(config.locations)
      ? (config.locations as Record<string, unknown>)
      : {};
  config.locations = { ...locations, [location]: { description: line, plate: `refs/_bg/${location}.png` } };

  const body = script.replace(/\s*$/, "");
  const block = [`# sq${pad(sequences + 1, 2)}  ${location}`, "", `## ${shot}`, `dur: ${seconds}`, line];
  return {
    script: `${body}\n\n${block.join("\n")}\n`,
    series: `${JSON.stringify(config, null, 2)}\n`,
    shot,
    added: true,
  };
}
