// Keyframe prompt for image targets: one still frame (first or last) of a shot, no dialogue text (targets 3.5.6).
// The prompt helpers in lib/compile/prompts/text.ts that read names and locations take a BuildCtx, which needs a whole
// build; these writers take the plain SeriesConfig instead and use small pure look-ups (subject/location below),
// while reusing the context-free helpers (sentence, joinList, article, framing, describes, joinSentences).
import {
  article,
  describes,
  framing,
  joinList,
  joinSentences,
  sentence,
} from "../../compile/prompts/text.ts";
import type { Sequence, Shot } from "../../script/types.ts";
import type { SeriesConfig, Subject } from "../../series/types.ts";
import { editIntroduction, type IntroRef } from "./edit-intro.ts";

export interface KeyframeRef {
  /** A subject id, or a location key for the plate. */
  id: string;
  /** `character`, `prop`, `vehicle`, `group`, `plate` or `composite`. */
  kind: string;
}

export interface KeyframeInput {
  shot: Shot;
  sequence: Sequence;
  series: SeriesConfig;
  which: "first" | "last";
  refs?: readonly KeyframeRef[];
  refWord?: string;
}

function subject(series: SeriesConfig, id: string): Subject | undefined {
  return Object.hasOwn(series.subjects, id) ? series.subjects[id] : undefined;
}

export function subjectName(series: SeriesConfig, id: string): string {
  const n = subject(series, id)?.name;
  return typeof n === "string" && n.trim() ? n.trim() : id;
}

function subjectDesign(series: SeriesConfig, id: string): string {
  const d = subject(series, id)?.design;
  return typeof d === "string" ? d.trim() : "";
}

export function placeDescription(series: SeriesConfig, key: string): string {
  const l = Object.hasOwn(series.locations, key) ? series.locations[key] : undefined;
  return typeof l?.description === "string" ? l.description.trim().replace(/[.]$/, "") : "";
}

/** Cast, then props not already in the cast. */
function onScreen(shot: Shot): string[] {
  const out = [...shot.cast];
  for (const p of shot.props) if (!out.includes(p)) out.push(p);
  return out;
}

/** Sentences of a text, split after . ! ? followed by a space. */
export function actionSentences(text: string): string[] {
  return text
    .trim()
    .split(/(?<=[.!?]["'”’]?)\s+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

const strip = (s: string) => s.replace(/[.!?]+$/, "");

/** Reference roles and names for editIntroduction, from the picked references. */
export function introRefs(series: SeriesConfig, refs: readonly KeyframeRef[]): IntroRef[] {
  return refs.map((r) => {
    if (r.kind === "plate") return { role: "plate", name: placeDescription(series, r.id) || r.id };
    const s = subject(series, r.id);
    const members = typeof s?.members === "number" ? s.members : undefined;
    const role = members !== undefined ? "group" : r.kind;
    return { role, name: subjectName(series, r.id), ...(members !== undefined ? { members } : {}) };
  });
}

export function keyframePrompt(p: KeyframeInput): string {
  const { shot, series, which } = p;
  const size = framing(shot);
  const term = size.term;
  const place = placeDescription(series, shot.plate || p.sequence.location);
  const ids = onScreen(shot);
  const people = ids.filter((id) => subject(series, id)?.kind === "character");
  const parts: string[] = [];

  if (p.refs && p.refs.length > 0)
    parts.push(editIntroduction(introRefs(series, p.refs), p.refWord ?? "image"));

  parts.push(
    sentence(
      `The ${which} frame of ${article(term)} ${term}${place ? ` of ${place}` : ""}, as one still picture`,
    ),
  );

  if (size.family === "close") {
    if (people.length > 0)
      parts.push(
        "Faces fill the frame from chin to crown, cut at the shoulders, with no full body and no wide view of the room.",
      );
    else if (ids.length > 0)
      parts.push(
        sentence(
          `${joinList(ids.map((id) => subjectName(series, id)))} ${ids.length === 1 ? "fills" : "fill"} the frame`,
        ),
      );
    else parts.push(sentence(`One detail of ${place || "the place"} fills the frame`));
  } else if (size.family === "medium") {
    parts.push("People are seen from the waist up, filling most of the frame height.");
  } else {
    parts.push(sentence(`The whole of ${place || "the place"} is shown, with people small and full-length`));
  }

  parts.push(sentence(`${series.look}, framed as ${article(term)} ${term}`));

  const bare: string[] = [];
  for (const id of ids) {
    const name = subjectName(series, id);
    const design = subjectDesign(series, id);
    const members = subject(series, id)?.members;
    if (typeof members === "number")
      parts.push(
        sentence(`${name} are ${members} distinct people, each appearing once${design ? `: ${design}` : ""}`),
      );
    else if (design) parts.push(describes(name, design));
    else bare.push(name);
  }
  if (bare.length > 0) parts.push(sentence(`${joinList(bare)} ${bare.length === 1 ? "is" : "are"} in frame`));

  if (shot.extras?.trim())
    parts.push(
      sentence(
        `In the background, unnamed figures: ${strip(shot.extras.trim())}, unlike any named cast member`,
      ),
    );

  const acts = actionSentences(shot.action);
  if (acts.length > 0) {
    if (which === "first") {
      parts.push(
        sentence(`The moment shown is the very start of the action, just beginning: ${strip(acts[0])}`),
      );
      if (acts.length > 1)
        parts.push(sentence(`For context only, not yet shown: ${strip(acts.slice(1).join(" "))}`));
    } else {
      parts.push(
        sentence(
          `The moment shown is after the action is over, completed, with everything at rest: ${strip(acts[acts.length - 1])}`,
        ),
      );
    }
  }

  const speakers: string[] = [];
  for (const d of shot.dialogue)
    if (d.mode !== "os" && ids.includes(d.speaker) && !speakers.includes(d.speaker)) speakers.push(d.speaker);
  if (speakers.length > 0) {
    const names = joinList(speakers.map((id) => subjectName(series, id)));
    const one = speakers.length === 1;
    parts.push(
      sentence(
        which === "first"
          ? `${names} ${one ? "is" : "are"} about to speak`
          : `${names} ${one ? "has" : "have"} just spoken`,
      ),
    );
  }

  if (ids.length === 0) parts.push("Nobody named is in frame.");
  parts.push("No text, captions, speech bubbles or borders.");
  parts.push(sentence(`Keep the framing ${article(term)} ${term}${size.extent ? `, ${size.extent}` : ""}`));
  return joinSentences(parts);
}
