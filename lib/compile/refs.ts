// What each needed reference file is and how to make it (script format 4.18; targets 3.5.7, 3.5.9).
import { speechSeconds } from "../script/pacing.ts";
import { roundHalfEven } from "../script/rounding.ts";
import type { Subject } from "../series/types.ts";
import { type BuildCtx, locationOf, subjectOf } from "./context.ts";
import { sentence } from "./prompts/text.ts";
import { isGroup, refKind, sheetPath, voiceSamplePath } from "./slots.ts";
import type { NeededRef } from "./types.ts";

/** krea2's plate canvas: what a drawn plate is made at. */
const PLATE_SIZE = "1344x768";

const nameOf = (id: string, s: Subject | undefined) =>
  typeof s?.name === "string" && s.name.trim() ? s.name.trim() : id;
const designOf = (s: Subject | undefined) => (typeof s?.design === "string" ? s.design.trim() : "");

export function subjectRef(ctx: BuildCtx, id: string): { path: string; ref: NeededRef } {
  const s = subjectOf(ctx, id);
  const kind = refKind(s);
  const name = nameOf(id, s);
  const design = sentence(designOf(s));
  const look = sentence(ctx.series.look);
  let prompt: string;
  if (kind === "character sheet") {
    prompt =
      `A character reference sheet of ${name}: four panels side by side on a plain flat neutral background, ` +
      "left to right a three-quarter full figure turned slightly to the viewer's left, a direct side profile facing right, " +
      `the figure seen from behind, and a head-and-shoulders view facing the viewer. ${design} ${look} ` +
      "The same single character in every panel, no scene or props, each whole figure inside its panel with margins. " +
      "Output 4096x1024 or larger.";
  } else if (isGroup(s)) {
    prompt =
      `One picture of ${s?.members} distinct people, ${name}, each appearing once, standing together on a plain flat ` +
      `neutral background. ${design} ${look} Output 1024x1024 or larger.`;
  } else {
    prompt =
      `One clean three-quarter view of ${name}, a single object on a plain background. ${design} ${look} ` +
      "Output 1024x1024 or larger.";
  }
  return { path: sheetPath(id, s), ref: { kind, prompt } };
}

export function plateRef(ctx: BuildCtx, key: string): NeededRef {
  const d = locationOf(ctx, key)?.description;
  const desc = typeof d === "string" ? d.trim().replace(/\.$/, "") : key;
  return {
    kind: "background plate",
    prompt:
      `An empty establishing view of ${desc}. ${sentence(ctx.series.look)} No characters, props or figures; ` +
      `a wide framing that shows the layout of the place. Output ${PLATE_SIZE}.`,
  };
}

/** Each speaker's longest line in the episode (by characters, whitespace normalised), once per build. */
function longestLines(ctx: BuildCtx): Map<string, string> {
  let map = ctx.memo.longest;
  if (!map) {
    map = new Map();
    for (const seq of ctx.story.sequences) {
      for (const shot of seq.shots) {
        for (const d of shot.dialogue) {
          const line = d.line.replace(/\s+/g, " ").trim();
          if (line.length > (map.get(d.speaker)?.length ?? -1)) map.set(d.speaker, line);
        }
      }
    }
    ctx.memo.longest = map;
  }
  return map;
}

export function voiceRef(ctx: BuildCtx, id: string): { path: string; ref: NeededRef } {
  const s = subjectOf(ctx, id);
  const name = nameOf(id, s);
  const firstDesign = designOf(s).split(/(?<=[.!?])\s/)[0] ?? "";
  const voice = typeof s?.voice === "string" ? s.voice.trim() : "";
  const line = longestLines(ctx).get(id) ?? `Hello, my name is ${name}, and this is how I sound.`;
  const seconds = Math.max(2, roundHalfEven(speechSeconds([{ speaker: id, line }], "normal")));
  const who = firstDesign ? `${name}, ${firstDesign.replace(/\.$/, "")}.` : `${name}.`;
  return {
    path: voiceSamplePath(id, s),
    ref: {
      kind: "voice sample",
      prompt:
        "A clean close-mic recording of one speaker in a quiet room, with no music, noise, other voices or effects. " +
        `${who}${voice ? ` The voice: ${sentence(voice)}` : ""} About ${seconds} seconds. ${name} says: "${line}"`,
    },
  };
}

/** Each character view as a picture on its own, in sheet order. */
const VIEW_WORDS: Record<string, string> = {
  "01_threequarter": "a three-quarter full figure turned slightly to the viewer's left",
  "02_side": "a direct side profile facing right",
  "03_back": "the whole figure seen from behind",
  "04_face": "a head-and-shoulders view facing the viewer",
};

/** One view of a character (`01_threequarter`, `02_side`, `03_back`, `04_face`): a panel of its 4-panel sheet. */
export function viewRef(ctx: BuildCtx, id: string, view: string): NeededRef {
  const s = subjectOf(ctx, id);
  const words = VIEW_WORDS[view] ?? view;
  return {
    kind: "character view",
    prompt: [
      `A single character reference view of ${nameOf(id, s)} on a plain flat neutral background, no scene or props,`,
      `the whole figure inside the frame with margins. The view: ${words}.`,
      sentence(designOf(s)),
      sentence(ctx.series.look),
      "Output 1024x1024 or larger.",
    ]
      .filter((part) => part !== "")
      .join(" "),
  };
}
