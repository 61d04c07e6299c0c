// The H3 Ref2VA writer: six labelled sections in the tag protocol the model was trained on (targets 3.5.4).
import { subjectOf } from "../context.ts";
import { isGroup } from "../slots.ts";
import {
  cameraSentence,
  cutText,
  DEFAULT_SOUND,
  designOf,
  framing,
  joinList,
  joinSentences,
  locationDescription,
  nameOf,
  type PromptInput,
  possessive,
  saysVerb,
  sentence,
  textSentence,
  voiceOf,
} from "./text.ts";

const SUMMARY_MAX = 220;

const section = (name: string, body: string) => `${name}:\n${body}`;

export function sections(p: PromptInput): string[] {
  const { ctx, sc, info } = p;
  const shot = sc.shot;
  const subjects = info.subjects;
  const n = subjects.length;
  const hasPlate = info.background !== "";
  const plateTag = `<Subject ${n + 1}>`;
  const dub = p.policy === "dub" || p.policy === "dub_keep_foley";
  const copied = dub && p.retention !== "reference";
  const speakerIds = new Map(info.voices.map((v, i) => [v, `(S${i + 1})`]));
  const tagOf = new Map(subjects.map((id, i) => [id, `<Subject ${i + 1}>`]));

  // subject_definitions
  const defs: string[] = [];
  let people = 0;
  subjects.forEach((id, i) => {
    const s = subjectOf(ctx, id);
    const tag = `<Subject ${i + 1}>`;
    const pic = `<Picture ${i + 1}>`;
    const name = nameOf(ctx, id);
    const design = designOf(ctx, id);
    if (s?.kind === "character") {
      if (isGroup(s)) {
        people += Number(s?.members);
        defs.push(
          `${tag} is ${name}, defined by ${pic}: one picture of ${s?.members} different people, each appearing once. ` +
            `Preserve the exact styling from the design: ${sentence(design)}`,
        );
      } else {
        people += 1;
        const view = info.panelView === "face" ? "a face close-up" : "a three-quarter full-body view";
        defs.push(
          `${tag} is ${name}, defined by ${pic}: a single reference of one character, ${view}; exactly one person is shown. ` +
            `Preserve the exact styling from the design: ${sentence(design)}`,
        );
      }
    } else {
      defs.push(
        `${tag} is ${name}, defined by ${pic}: a single reference of one object on a plain background. ` +
          `Preserve its design, colours and proportions: ${sentence(design)}`,
      );
    }
  });
  const extras = shot.extras?.trim();
  if (people === 1) defs.push("The shot shows exactly one character.");
  else if (people > 1)
    defs.push(`The shot shows exactly ${people} different characters, never duplicates of one another.`);
  if (people > 0 && extras)
    defs.push("The named characters appear once each; any other people are unnamed figures unlike them.");
  if (hasPlate) {
    defs.push(
      `${plateTag} is the location, defined by <Picture 4>: a background plate establishing the layout, palette, ` +
        "light direction and depth of the place, not a fixed framing.",
    );
  }
  if (dub) {
    const names = joinList(info.voices.map((v) => nameOf(ctx, v)));
    defs.push(
      copied
        ? `<Audio 1> is the recorded dialogue spoken by ${names}; reuse its exact words, voices and timing.`
        : `<Audio 1> is the recorded dialogue spoken by ${names}; use it as a voice and timing reference.`,
    );
  } else if (p.policy === "clone") {
    info.voices.forEach((v, i) => {
      defs.push(`<Audio ${i + 1}> is the voice-timbre reference for ${speakerIds.get(v)} ${nameOf(ctx, v)}.`);
    });
  }

  // summary
  const mode = dub
    ? copied
      ? "Reference generation with audio reuse."
      : "Reference generation with an audio reference."
    : p.policy === "clone"
      ? "Reference generation with an audio reference."
      : "Reference generation.";
  const action = shot.action.trim() ? sentence(cutText(shot.action, SUMMARY_MAX)) : "A held moment.";

  // retention_analysis
  const ret: string[] = [];
  subjects.forEach((id, i) => {
    const kind = subjectOf(ctx, id)?.kind;
    ret.push(
      kind === "character"
        ? `<Subject ${i + 1}> (appears in [Shot 1]): fully_preserved — face, hair, proportions, wardrobe and colours are kept while poses and expressions vary.`
        : `<Subject ${i + 1}> (appears in [Shot 1]): fully_preserved — the design is kept exactly.`,
    );
  });
  if (hasPlate) {
    ret.push(
      framing(shot).family === "close"
        ? `${plateTag} (appears in [Shot 1]): weak_reference — only its palette, light and materials carry over.`
        : `${plateTag} (appears in [Shot 1]): partially_preserved — layout, palette and light are kept while the framing follows the shot.`,
    );
  }
  if (dub && p.retention === "fully_copy") {
    ret.push("<Audio 1>: fully_copy — the recording is the complete final track, mouths synchronised to it.");
  } else if (dub && p.retention === "partially_copy") {
    ret.push("<Audio 1>: partially_copy — the dialogue is kept, other sound is added.");
  } else if (dub) {
    ret.push("<Audio 1>: reference — timbre, delivery and timing without copying the signal.");
  } else if (p.policy === "clone") {
    info.voices.forEach((_, i) => {
      ret.push(`<Audio ${i + 1}>: reference — timbre and delivery without copying the signal.`);
    });
  }

  // detailed_description
  const desc: string[] = [sentence(ctx.series.look)];
  const place = locationDescription(ctx, info.plateKey);
  const where = hasPlate ? `${plateTag}, ${place}` : place;
  desc.push(where ? `[Shot 1] The scene takes place in ${where}.` : "[Shot 1]");
  if (shot.action.trim()) desc.push(sentence(shot.action));
  desc.push(cameraSentence(shot, "A static, fixed composition."));
  if (p.continuing) {
    desc.push(
      "It continues the previous segment: carry on the action, poses, camera, lighting and the state of every object.",
    );
  }
  const introduced = new Set<string>();
  let offScreenVoiced = false;
  for (const d of shot.dialogue) {
    const s = subjectOf(ctx, d.speaker);
    const sid = speakerIds.get(d.speaker) ?? "";
    const tag = tagOf.get(d.speaker);
    const voice = voiceOf(s);
    const first = !introduced.has(d.speaker);
    introduced.add(d.speaker);
    let label: string;
    if (tag && d.mode !== "os") {
      label = first && voice ? `${tag}, with a voice that is ${voice}, ${sid}` : `${tag} ${sid}`;
    } else if (first) {
      label = voice ? `An off-screen voice that is ${voice} ${sid}` : `An off-screen voice ${sid}`;
      offScreenVoiced = true;
    } else {
      label = offScreenVoiced ? `The same off-screen voice ${sid}` : `An off-screen voice ${sid}`;
    }
    const verb = saysVerb(d.mode);
    const recorded = dub ? " in the recorded voice from <Audio 1>" : "";
    const deliv = d.delivery ? ` (${d.delivery})` : "";
    let line = `${label} ${verb}${recorded}${deliv}: <d>[English] ${d.line}</d>`;
    if (d.mode === "vo" && tag) line += ` ${possessive(s)} lips remain closed.`;
    desc.push(line);
  }
  desc.push(textSentence(shot));

  // overall_soundscape
  const sound = shot.sound?.trim() ? sentence(shot.sound) : DEFAULT_SOUND;
  let soundscape = sound;
  if (dub && p.retention === "fully_copy") {
    soundscape = "The only audio is the copied dialogue from <Audio 1>; nothing is added.";
  } else if (dub && p.retention === "partially_copy") {
    soundscape = `${sound.replace(/\.$/, "")}, laid under the copied dialogue from <Audio 1>.`;
  }

  return [
    section("subject_definitions", joinSentences(defs)),
    section("summary", joinSentences([mode, action])),
    section("retention_analysis", joinSentences(ret)),
    section("detailed_description", joinSentences(desc)),
    section("overall_soundscape", soundscape),
    section("non_diegetic_music", shot.music?.trim() || "N/A"),
  ];
}
