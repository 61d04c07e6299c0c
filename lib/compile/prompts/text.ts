// Sentence helpers shared by the prompt writers: capitalised sentences, lists, articles, framing.
import { type SizeInfo, sizeInfo } from "../../script/sizes.ts";
import type { Continuous, DialogueMode, Shot } from "../../script/types.ts";
import type { Subject } from "../../series/types.ts";
import type { TargetSpec } from "../../targets/registry.ts";
import { type BuildCtx, locationOf, subjectOf } from "../context.ts";
import type { Panel, SlotInfo } from "../slots.ts";
import type { ShotCtx } from "../types.ts";

export interface PromptInput {
  ctx: BuildCtx;
  sc: ShotCtx;
  spec: TargetSpec;
  info: SlotInfo;
  policy: string;
  /** H3 Ref2VA only. */
  retention?: string;
  panels?: Panel[];
  continuing: Continuous | null;
}

const ENDS = /[.!?"'”’)]$/;

/** Capitalised, with a full stop unless it already ends in one (or a quote). */
export function sentence(text: string): string {
  const t = text.trim();
  if (t === "") return "";
  const cap = t[0].toUpperCase() + t.slice(1);
  return ENDS.test(cap) ? cap : `${cap}.`;
}

/** `a`, `a and b`, `a, b, and c`. */
export function joinList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`;
}

export function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

const MEDIUM = sizeInfo("medium")!;

/** The framing words of a size as written; unknown sizes read as a medium shot. */
export function framing(shot: Shot): SizeInfo {
  return sizeInfo(shot.size) ?? MEDIUM;
}

export function nameOf(ctx: BuildCtx, id: string): string {
  const s = subjectOf(ctx, id);
  return typeof s?.name === "string" && s.name.trim() ? s.name.trim() : id;
}

export function designOf(ctx: BuildCtx, id: string): string {
  const s = subjectOf(ctx, id);
  return typeof s?.design === "string" ? s.design.trim() : "";
}

/** "Ada is a tall woman …" when the design reads as a noun phrase, else "Ada: …". */
export function describes(name: string, design: string, plural = false): string {
  if (/^[a-z]/.test(design)) {
    return sentence(`${name} ${plural ? "are" : "is"} ${design}`);
  }
  return sentence(`${name}: ${design}`);
}

export function subjectSentence(ctx: BuildCtx, id: string): string {
  const s = subjectOf(ctx, id);
  const name = nameOf(ctx, id);
  const design = designOf(ctx, id);
  if (typeof s?.members === "number") {
    return sentence(`${name} are ${s.members} distinct people, each appearing once: ${design}`);
  }
  return describes(name, design);
}

export function voiceOf(s: Subject | undefined): string {
  return typeof s?.voice === "string" ? s.voice.trim() : "";
}

/** Possessive for "lips stay closed" (`pronoun` is written as a possessive: "his", "her"). */
export function possessive(s: Subject | undefined): string {
  const p = typeof s?.pronoun === "string" && s.pronoun.trim() ? s.pronoun.trim() : "their";
  return p[0].toUpperCase() + p.slice(1);
}

export function locationDescription(ctx: BuildCtx, key: string): string {
  const d = locationOf(ctx, key)?.description;
  return typeof d === "string" ? d.trim().replace(/[.]$/, "") : "";
}

export function cameraSentence(shot: Shot, fallback = "The camera stays static."): string {
  const cam = shot.camera?.trim();
  if (!cam) return fallback;
  return /^the camera\b/i.test(cam) ? sentence(cam) : sentence(`The camera ${cam}`);
}

/** How a line is said: in voiceover, from off-screen, or plainly on screen. */
export function saysVerb(mode: DialogueMode): string {
  return mode === "vo" ? "says in voiceover" : mode === "os" ? "says from off-screen" : "says";
}

export function textSentence(shot: Shot): string {
  const t = shot.text?.trim();
  return t ? `On-screen text reads "${t}".` : "";
}

/** Drop empty parts and join with single spaces. */
export function joinSentences(parts: readonly string[]): string {
  return parts.filter((p) => p !== "").join(" ");
}

/** The action cut at a word boundary so it stays within `max` characters. */
export function cutText(text: string, max: number): string {
  const t = text.trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, "");
}

export const DEFAULT_SOUND = "Continuous room tone and ambience, with sounds synchronised to the action.";
