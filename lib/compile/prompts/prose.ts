// The prose writers (targets 3.5.1–3.5.3): one paragraph for LTX-2 and custom targets, its silent form for
// Wan, and the two-part "reference sheet + prose" form for the ingredients sheet.
import type { DialogueLine } from "../../script/types.ts";
import { subjectOf } from "../context.ts";
import {
  article,
  cameraSentence,
  describes,
  framing,
  joinList,
  joinSentences,
  locationDescription,
  nameOf,
  type PromptInput,
  possessive,
  sentence,
  subjectSentence,
  textSentence,
  voiceOf,
} from "./text.ts";

function framingSentence(p: PromptInput): string {
  const size = framing(p.sc.shot);
  const desc = locationDescription(p.ctx, p.info.plateKey);
  const head = `${article(size.term)} ${size.term}${size.extent ? `, ${size.extent}` : ""}`;
  if (!desc) return sentence(head);
  if (size.family === "close") return sentence(`${head}, against a soft, magnified slice of ${desc}`);
  if (size.family === "wide") return sentence(`${head} of ${desc}, the whole place in view`);
  return sentence(`${head}, with ${desc} behind`);
}

/** Look, framing, camera, subjects, extras, action, on-screen text: shared by every prose form. */
function picture(p: PromptInput, onSheet: ReadonlySet<string>): string[] {
  const { ctx, sc, info } = p;
  const shot = sc.shot;
  const parts = [sentence(ctx.series.look), framingSentence(p), cameraSentence(shot)];
  const sheetNames: string[] = [];
  for (const id of info.subjects) {
    if (onSheet.has(id)) sheetNames.push(nameOf(ctx, id));
    else parts.push(subjectSentence(ctx, id));
  }
  if (sheetNames.length) {
    parts.push(
      sentence(
        `${joinList(sheetNames)} ${sheetNames.length > 1 ? "appear" : "appears"} as on the reference sheet`,
      ),
    );
  }
  if (shot.extras?.trim()) {
    const cast = info.subjects
      .filter((id) => subjectOf(ctx, id)?.kind === "character")
      .map((id) => nameOf(ctx, id));
    const unlike = cast.length ? `, none of them resembling ${joinList(cast)}` : "";
    parts.push(sentence(`In the background, unnamed figures: ${shot.extras.trim()}${unlike}`));
  }
  if (shot.action.trim()) parts.push(sentence(shot.action));
  parts.push(textSentence(shot));
  return parts;
}

function spokenLines(p: PromptInput): string[] {
  const { ctx, sc } = p;
  const out: string[] = [];
  const voiced = new Set<string>();
  for (const d of sc.shot.dialogue) {
    const s = subjectOf(ctx, d.speaker);
    let label = nameOf(ctx, d.speaker);
    const voice = voiceOf(s);
    if (voice && !voiced.has(d.speaker)) {
      voiced.add(d.speaker);
      label = `${label}, with a voice that is ${voice},`;
    }
    const deliv = d.delivery ? ` (${d.delivery})` : "";
    const verb =
      d.mode === "vo"
        ? "speaks in an off-screen voiceover"
        : d.mode === "os"
          ? "speaks from outside the frame"
          : "says";
    let text = `${label} ${verb}${deliv}: "${d.line}"`;
    if (d.mode === "vo" && sc.shot.cast.includes(d.speaker)) text += ` ${possessive(s)} lips stay closed.`;
    out.push(text);
  }
  return out;
}

/** Consecutive lines of one speaker in one mode become one piece of acting. */
function runs(dialogue: readonly DialogueLine[]): DialogueLine[][] {
  const out: DialogueLine[][] = [];
  for (const d of dialogue) {
    const last = out[out.length - 1];
    if (last && last[0].speaker === d.speaker && last[0].mode === d.mode) last.push(d);
    else out.push([d]);
  }
  return out;
}

function acting(p: PromptInput): string[] {
  const { ctx, sc } = p;
  const out: string[] = [];
  for (const run of runs(sc.shot.dialogue)) {
    const d = run[0];
    const inFrame = sc.shot.cast.includes(d.speaker);
    const name = nameOf(ctx, d.speaker);
    if (d.mode === "vo" && inFrame) out.push(sentence(`${name} stays silent, lips closed`));
    else if (d.mode === "on") {
      const deliveries = [...new Set(run.map((x) => x.delivery).filter((x) => x))];
      const how = deliveries.length ? `, ${deliveries.join(", ")},` : "";
      out.push(sentence(`${name} talks${how} with the mouth moving`));
    }
  }
  return out;
}

function soundAndMusic(p: PromptInput): string[] {
  const shot = p.sc.shot;
  const sound = shot.sound?.trim()
    ? sentence(`The sound: ${shot.sound.trim()}`)
    : "The ambient sound of the place follows the action.";
  const music = shot.music?.trim() ? sentence(`${shot.music.trim()} plays underneath`) : "There is no music.";
  return [sound, music];
}

export function prose(p: PromptInput, onSheet: ReadonlySet<string> = new Set()): string {
  return joinSentences([...picture(p, onSheet), ...spokenLines(p), ...soundAndMusic(p)]);
}

export function proseSilent(p: PromptInput): string {
  return joinSentences([...picture(p, new Set()), ...acting(p)]);
}

/** Without panels: plain prose. With panels: what the sheet shows, then the video prose naming those subjects. */
export function sheetProse(p: PromptInput): string {
  const panels = p.panels ?? [];
  if (panels.length === 0) return prose(p);
  const { ctx } = p;
  const lines: string[] = [];
  const onSheet = new Set<string>();
  for (const panel of panels) {
    if (panel.location !== undefined) {
      lines.push(sentence(`The location: ${locationDescription(ctx, panel.location)}`));
    } else if (panel.subject !== undefined) {
      onSheet.add(panel.subject);
      const view =
        panel.view === "face"
          ? "a face close-up"
          : panel.view === "body"
            ? "a full-body three-quarter view"
            : "";
      const described = describes(
        nameOf(ctx, panel.subject),
        subjectOf(ctx, panel.subject)?.design?.toString() ?? "",
      );
      lines.push(view ? `${described.replace(/\.$/, "")}, ${view}.` : described);
    }
  }
  return `Reference sheet: ${lines.join(" ")}\n\nGenerated video: ${prose(p, onSheet)}`;
}
