// PocketSphinx as the offline recogniser: `pocketsphinx_continuous` hears the speech wav constrained to a JSGF grammar
// made from the script's dialogue and prints, per utterance, its hypothesis then one `word start end conf` line per
// word (absolute times with `-time yes`). Its dictionary tells which script words it can hear at all.
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { WithCaches } from "../store/caches.ts";
import { cacheSlot } from "../store/caches.ts";
import { type EngineOptions, runRecogniser } from "./engine-run.ts";
import type { Word } from "./words-cache.ts";

export interface SphinxProgram {
  program: string;
  /** The acoustic model folder. */
  hmm: string;
  /** The pronouncing dictionary. */
  dict: string;
}

const DICTIONARIES = cacheSlot(
  "pocketsphinx dictionaries",
  () => new Map<string, { stamp: string; words: Promise<ReadonlySet<string>> }>(),
);

/** The words of a pronouncing dictionary (alternates such as `close(2)` folded into `close`), read once per version. */
export async function sphinxDictionary(services: WithCaches, dict: string): Promise<ReadonlySet<string>> {
  const st = await stat(dict);
  const stamp = `${st.size}:${st.mtimeMs}`;
  const held = services.caches.of(DICTIONARIES);
  const hit = held.get(dict);
  if (hit && hit.stamp === stamp) return hit.words;
  const words = readFile(dict, "utf8").then((text) => {
    const set = new Set<string>();
    for (const line of text.split("\n")) {
      const space = line.search(/\s/);
      if (space <= 0) continue;
      set.add(line.slice(0, space).replace(/\(\d+\)$/, ""));
    }
    return set as ReadonlySet<string>;
  });
  held.set(dict, { stamp, words });
  words.catch(() => {
    if (held.get(dict)?.words === words) held.delete(dict);
  });
  return words;
}

// Tokens that are not words: sentence marks, silences, fillers (`<sil>`, `[NOISE]`, `++BREATH++`), grammar nulls.
const NOT_A_WORD = /^(<.*>|\[.*\]|\+\+.*\+\+|\(NULL\))$/;

/** One `word start end conf` line as a Word (alternate pronunciation marks dropped), or null for any other line. */
export function sphinxWordLine(line: string): Word | null {
  const parts = line.trim().split(/\s+/);
  if (parts.length !== 4) return null;
  const [token, a, b, conf] = parts;
  const start = Number(a);
  const end = Number(b);
  if (!/^-?\d+(\.\d+)?$/.test(a) || !/^-?\d+(\.\d+)?$/.test(b) || !Number.isFinite(Number(conf))) return null;
  if (NOT_A_WORD.test(token)) return null;
  const w = token.replace(/\(\d+\)$/, "");
  if (w === "" || start < 0 || end < start) return null;
  return { w, start, end };
}

/** Every word of pocketsphinx's output, in time order. */
export function parseSphinxOutput(stdout: string): Word[] {
  const words: Word[] = [];
  for (const line of stdout.split("\n")) {
    const word = sphinxWordLine(line);
    if (word) words.push(word);
  }
  return words.sort((x, y) => x.start - y.start);
}

/**
 * Wider beams than the decoder's defaults and a light grammar weight: with the defaults, a grammar that lets the
 * phrases follow each other in any order loses short phrases ("hello there", "thank you") to the next one, whose
 * first word then takes their time. A few seconds of dialogue decode in about the same time either way.
 */
const SEARCH = ["-beam", "1e-80", "-wbeam", "1e-60", "-pbeam", "1e-80", "-maxhmmpf", "-1", "-lw", "1"];

/** Hear `wav` (16 kHz mono s16) constrained to `grammar`; the grammar file is written into `dir`. */
export async function sphinxWords(
  services: WithCaches,
  sphinx: SphinxProgram,
  wav: string,
  grammar: string,
  dir: string,
  opts: EngineOptions,
): Promise<{ words: Word[]; log: string }> {
  const gram = path.join(dir, "script.gram");
  await writeFile(gram, grammar);
  return runRecogniser(
    services,
    sphinx.program,
    [...["-infile", wav, "-jsgf", gram, "-hmm", sphinx.hmm, "-dict", sphinx.dict, "-time", "yes"], ...SEARCH],
    sphinxWordLine,
    opts,
  );
}
