// The H3 FL2VA writer: three labelled fields; subjects are named and described in words (targets 3.5.5).
import { subjectOf } from "../context.ts";
import {
  cameraSentence,
  DEFAULT_SOUND,
  framing,
  joinList,
  joinSentences,
  locationDescription,
  nameOf,
  type PromptInput,
  possessive,
  saysVerb,
  sentence,
  subjectSentence,
  textSentence,
  voiceOf,
} from "./text.ts";

export function fields(p: PromptInput): string {
  const { ctx, sc, info } = p;
  const shot = sc.shot;
  const size = framing(shot);
  const place = locationDescription(ctx, info.plateKey);
  const names = joinList(info.subjects.map((id) => nameOf(ctx, id)));
  const dub = p.policy === "dub" || p.policy === "dub_keep_foley";

  const parts: string[] = [sentence(ctx.series.look)];
  const term = size.term;
  if (!place) parts.push(sentence(names ? `A ${term} of ${names}` : `A ${term}`));
  else if (size.family === "close") {
    parts.push(
      sentence(
        names
          ? `A ${term} of ${names} against a shallow, out-of-focus slice of ${place}`
          : `A ${term} of a detail of ${place}`,
      ),
    );
  } else if (size.family === "wide") {
    parts.push(sentence(names ? `A ${term} of ${place}, with ${names} in it` : `A ${term} of ${place}`));
  } else {
    parts.push(sentence(names ? `A ${term} of ${names} against ${place}` : `A ${term} of ${place}`));
  }
  for (const id of info.subjects) parts.push(subjectSentence(ctx, id));
  if (shot.extras?.trim()) {
    parts.push(
      sentence(
        `In the background, unnamed figures: ${shot.extras.trim()}; they are unlike the cast and never duplicates`,
      ),
    );
  }
  if (shot.action.trim()) parts.push(sentence(shot.action));
  parts.push(cameraSentence(shot, "A static, fixed composition."));
  if (p.continuing) {
    parts.push(
      "It continues the previous segment: carry on the action, poses, camera, lighting and the state of every object.",
    );
  }
  const ids = new Map(info.voices.map((v, i) => [v, `(S${i + 1})`]));
  const introduced = new Set<string>();
  for (const d of shot.dialogue) {
    const s = subjectOf(ctx, d.speaker);
    const name = nameOf(ctx, d.speaker);
    const sid = ids.get(d.speaker) ?? "";
    const voice = voiceOf(s);
    const first = !introduced.has(d.speaker);
    introduced.add(d.speaker);
    const inFrame = info.subjects.includes(d.speaker) && d.mode !== "os";
    let label: string;
    if (inFrame) label = first && voice ? `${name}, with a voice that is ${voice}, ${sid}` : `${name} ${sid}`;
    else
      label =
        first && voice
          ? `The off-screen voice of ${name}, ${voice}, ${sid}`
          : `The off-screen voice of ${name} ${sid}`;
    const verb = saysVerb(d.mode);
    const recorded = dub ? " in the recorded voice" : "";
    const deliv = d.delivery ? ` (${d.delivery})` : "";
    let line = `${label} ${verb}${recorded}${deliv}: <d>[English] ${d.line}</d>`;
    if (d.mode === "vo" && inFrame) line += ` ${possessive(s)} lips remain closed.`;
    parts.push(line);
  }
  parts.push(textSentence(shot));

  const sound = shot.sound?.trim() ? sentence(shot.sound) : DEFAULT_SOUND;
  const soundscape =
    p.policy === "dub"
      ? "Only the recorded dialogue, anchored from the start; nothing is added."
      : p.policy === "dub_keep_foley"
        ? `${sound.replace(/\.$/, "")}, laid under the recorded dialogue.`
        : sound;
  return [
    `integrated_multimodal_description: [Shot 1] ${joinSentences(parts)}`,
    `overall_soundscape: ${soundscape}`,
    `non_diegetic_music: ${shot.music?.trim() || "N/A"}`,
  ].join("\n\n");
}
