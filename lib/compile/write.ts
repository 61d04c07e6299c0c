// The build's I/O edge: shot lists, shots.json and the reference work order (script format 4.1 step 6).
import { access } from "node:fs/promises";
import path from "node:path";
import { episodeFence, readShowDir, removeShow, writeShowFile } from "../paths/guarded.ts";
import { FLOAT_KEYS, pyJson } from "../script/canonical.ts";
import { type RefsTodoEntry, refsTodoMarkdown } from "./refs-todo.ts";
import type { BuildResult, Pass } from "./types.ts";

const NO_FLOATS: ReadonlySet<string> = new Set();

export interface WrittenOutputs {
  /** Paths relative to the episode folder, `/`-separated. */
  written: string[];
  deleted: string[];
  refsTodo: RefsTodoEntry[];
}

/** `shotlist.json` / `shotlist_proxy.json` for the series target, `shotlist.<t>.json` / `shotlist.<t>_proxy.json` else. */
export function shotlistFileName(target: string, seriesTarget: string, pass: Pass): string {
  const suffix = pass === "proxy" ? "_proxy" : "";
  return target === seriesTarget ? `shotlist${suffix}.json` : `shotlist.${target}${suffix}.json`;
}

/** A per-target shot list of this pass: `shotlist.<t>.json` (final) or `shotlist.<t>_proxy.json` (proxy). */
function isTargetList(name: string, pass: Pass): boolean {
  if (!name.startsWith("shotlist.") || !name.endsWith(".json")) return false;
  const proxy = name.endsWith("_proxy.json");
  return pass === "proxy" ? proxy : !proxy;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Write one pass's outputs into the episode folder (a checked real path; a shotlist/ or file that is a link
 * leading out of it is refused). `storyJsonText` is shots.json as the story serialiser
 * wrote it (pass-independent). Stale `shotlist.<target>` files of the same pass are deleted afterwards.
 */
export async function writeBuildOutputs(
  epDir: string,
  pass: Pass,
  result: BuildResult,
  storyJsonText: string,
): Promise<WrittenOutputs> {
  const fence = episodeFence(epDir);
  const write = (file: string, text: string) => writeShowFile(fence, file, text);
  const dir = path.join(epDir, "shotlist");
  const written: string[] = [];
  const names = new Set<string>();
  const jobs: Promise<void>[] = [];
  for (const [target, doc] of Object.entries(result.docs)) {
    const name = shotlistFileName(target, result.seriesTarget, pass);
    names.add(name);
    written.push(`shotlist/${name}`);
    jobs.push(write(path.join(dir, name), `${pyJson(doc, { indent: 2, floatKeys: FLOAT_KEYS })}\n`));
  }
  const storyText = storyJsonText.endsWith("\n") ? storyJsonText : `${storyJsonText}\n`;
  jobs.push(write(path.join(dir, "shots.json"), storyText));
  written.push("shotlist/shots.json");

  const refsTodo: RefsTodoEntry[] = await Promise.all(
    result.refsTodo.map(async (item) => ({
      path: item.path,
      kind: item.kind,
      prompt: item.prompt,
      size_hint: item.size_hint,
      exists: await exists(path.resolve(epDir, item.path.replaceAll("\\", "/"))),
      blocks_shots: item.blocks_shots,
    })),
  );
  const stem = pass === "proxy" ? "refs_todo_proxy" : "refs_todo";
  const episode = Object.values(result.docs)[0]?.episode ?? "";
  jobs.push(
    write(path.join(epDir, `${stem}.json`), `${pyJson(refsTodo, { indent: 2, floatKeys: NO_FLOATS })}\n`),
  );
  jobs.push(write(path.join(epDir, `${stem}.md`), refsTodoMarkdown(refsTodo, episode, pass)));
  written.push(`${stem}.json`, `${stem}.md`);
  await Promise.all(jobs);

  const deleted: string[] = [];
  for (const name of await readShowDir(fence, dir)) {
    if (isTargetList(name, pass) && !names.has(name)) {
      await removeShow(fence, path.join(dir, name));
      deleted.push(`shotlist/${name}`);
    }
  }
  return { written, deleted, refsTodo };
}
