// Promote's reference candidates: a ref's prompt override becomes the subject's design or the location's
// description in the series config, when the override is the built prompt with only that text replaced.
import { sentence } from "../../compile/prompts/text.ts";
import { isGroup } from "../../compile/slots.ts";
import type { SeriesConfig } from "../../series/types.ts";
import { isObject, type JsonObject, objectOr } from "../../store/json-guards.ts";
import { sha1Hex } from "../../text/digest.ts";
import type { Candidate, Inputs, LeftEntry, RefOverridesFile, View } from "./types.ts";
import { VIEWS } from "./types.ts";

export function refCandidates(
  inputs: Inputs,
  before: View,
  candidates: Candidate[],
  left: LeftEntry[],
): void {
  for (const [ref, o] of Object.entries(refsOf(inputs.refs))) {
    if (!isObject(o)) continue;
    const leaveOthers = (block: JsonObject, view?: string) => {
      for (const field of Object.keys(block)) {
        if (field === "prompt" || field === "base_hash" || field === "views") continue;
        left.push({
          scope: "ref",
          ref,
          ...(view ? { view } : {}),
          field,
          reason: `the series config has no per-reference ${field}`,
        });
      }
    };
    leaveOthers(o);
    const views = objectOr(o.views);
    for (const [view, block] of Object.entries(views)) if (isObject(block)) leaveOthers(block, view);
    const prompts: { view?: string; block: JsonObject }[] = [];
    if (typeof o.prompt === "string") prompts.push({ block: o });
    for (const [view, block] of Object.entries(views)) {
      if (isObject(block) && typeof block.prompt === "string") prompts.push({ view, block });
    }
    if (prompts.length === 0) continue;
    const leave = (reason: string) => {
      for (const p of prompts)
        left.push({ scope: "ref", ref, ...(p.view ? { view: p.view } : {}), field: "prompt", reason });
    };
    const candidate = refPromptCandidate(ref, o, views, before.series);
    if (typeof candidate === "string") leave(candidate);
    else candidates.push(candidate);
  }
}

/**
 * A ref prompt override becomes the subject's design / the location's description when it is the built prompt
 * with exactly that text replaced. The built ref prompt is not computed here: the override's `base_hash` (SHA-1
 * of the prompt it was written over) proves it — putting the current design back in place of one span of the
 * override must give that hash. A stale base (the design changed since) therefore never matches.
 */
function refPromptCandidate(
  ref: string,
  o: JsonObject,
  views: JsonObject,
  series: SeriesConfig,
): Candidate | string {
  const [kind, id, extra] = ref.split(":");
  if (kind === "shot") return "a keyframe's prompt is written from its shot";
  if (kind === "voice") return "a voice's prompt is not promoted";
  if ((kind !== "subject" && kind !== "location") || !id || extra !== undefined) {
    return `'${ref}' is not a subject or location reference`;
  }
  const rawBlock = kind === "subject" ? series.raw.subjects : series.raw.locations;
  const own = isObject(rawBlock) && isObject(rawBlock[id]) ? rawBlock[id] : null;
  const loaded = kind === "subject" ? series.subjects[id] : series.locations[id];
  if (!own || !loaded) return `${id} is not in the series config`;
  const field = kind === "subject" ? "design" : "description";
  const current = kind === "subject" ? loaded.design : loaded.description;
  if (typeof current !== "string" || current.trim() === "") {
    return `${id} has no ${field} to replace`;
  }
  // How the text sits in a built ref prompt: a design as a sentence, a description inside the plate sentence.
  const slot = kind === "subject" ? sentence(current) : current.trim().replace(/\.$/, "");
  const styled = (x: string) => restyle(x, current, kind === "subject");
  const subject = kind === "subject" ? series.subjects[id] : undefined;
  const fourViews = subject !== undefined && subject.kind === "character" && !isGroup(subject);
  let replacement: string | null;
  if (fourViews) {
    if (typeof o.prompt === "string") return "a character's prompt override belongs to a view";
    const blocks = VIEWS.map((v) => objectOr(views[v]));
    const missing = VIEWS.filter((_, k) => typeof blocks[k].prompt !== "string");
    if (missing.length) {
      return `a character's design changes only when all four views agree (no prompt override on ${missing.join(", ")})`;
    }
    const found = blocks.map((b) =>
      typeof b.prompt === "string" ? findReplacement(b.prompt, slot, b.base_hash) : null,
    );
    if (found.some((f) => f === null)) return mismatch(field);
    if (new Set(found).size > 1) return `the four views replace the ${field} differently`;
    replacement = found[0];
  } else {
    if (typeof o.prompt !== "string")
      return `the prompt override of ${ref} must be on the reference, not a view`;
    replacement = findReplacement(o.prompt, slot, o.base_hash);
  }
  if (replacement === null) return mismatch(field);
  const value = styled(replacement);
  const rebuilt = kind === "subject" ? sentence(value) : value.trim().replace(/\.$/, "");
  if (rebuilt !== replacement) {
    return `the new ${field} would not read back as the override's text`;
  }
  const keyPath = [kind === "subject" ? "subjects" : "locations", id, field];
  return {
    item: {
      id: `ref:${ref}:prompt`,
      scope: "ref",
      ref,
      field: "prompt",
      value,
      dest: "series",
      summary: `${keyPath.join(".")}: ${JSON.stringify(value)} (was ${JSON.stringify(current)})`,
    },
    edit: { kind: "series", keyPath, value },
    remove(_o, refs) {
      const all = refs.refs;
      const entry = isObject(all) ? all[ref] : undefined;
      if (!isObject(all) || !isObject(entry)) return;
      const clear = (b: JsonObject) => {
        delete b.prompt;
        delete b.base_hash;
      };
      clear(entry);
      const entryViews = entry.views;
      if (isObject(entryViews)) {
        for (const [v, b] of Object.entries(entryViews)) {
          if (!isObject(b)) continue;
          clear(b);
          if (Object.keys(b).length === 0) delete entryViews[v];
        }
        if (Object.keys(entryViews).length === 0) delete entry.views;
      }
      if (Object.keys(entry).length === 0) delete all[ref];
    },
  };
}

const mismatch = (field: string) =>
  `the override is not the built prompt with only the ${field} changed (or it was written before the ${field} last changed)`;

/** Write the new text in the style of the old one: a lower-case start and no full stop stay so. */
function restyle(text: string, old: string, asSentence: boolean): string {
  const o = old.trim();
  let out = text;
  if (asSentence) {
    if (/^[a-z]/.test(o)) out = out[0].toLowerCase() + out.slice(1);
    if (!/[.!?]$/.test(o) && out.endsWith(".")) out = out.slice(0, -1);
    return sentence(out) === text ? out : text;
  }
  return o.endsWith(".") && !out.endsWith(".") ? `${out}.` : out;
}

/**
 * The span of `prompt` that stands where `slot` stood in the prompt whose SHA-1 is `baseHash`; null when no
 * single span (between word boundaries) does.
 */
export function findReplacement(prompt: string, slot: string, baseHash: unknown): string | null {
  if (typeof baseHash !== "string" || prompt.length > 20000) return null;
  if (sha1Hex(prompt) === baseHash) return slot;
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i <= prompt.length; i++) {
    if (i === 0 || /\s/.test(prompt[i - 1])) starts.push(i);
    if (i === prompt.length || /[\s.,;:!?]/.test(prompt[i])) ends.push(i);
  }
  for (const i of starts) {
    for (const j of ends) {
      if (j <= i) continue;
      if (sha1Hex(prompt.slice(0, i) + slot + prompt.slice(j)) === baseHash) return prompt.slice(i, j);
    }
  }
  return null;
}

/** The file's `refs` block: its entries are the references (anything else has none). */
function refsOf(file: RefOverridesFile): object {
  return typeof file.refs === "object" && file.refs !== null ? file.refs : {};
}
