// Voice prompt for audio targets: a clean one-speaker recording brief (targets 3.5.9).
import { sentence } from "../../compile/prompts/text.ts";

export interface VoicePromptInput {
  name: string;
  /** The subject's `voice` description. */
  voice: string;
  /** The subject's `design`; only its first sentence is used. */
  design?: string;
  /** The line to say (the caller picks the longest dialogue line); empty → a neutral self-introduction. */
  line: string;
  seconds: number;
}

/** The first sentence of a text, without its final full stop. */
export function firstSentence(text: string): string {
  const t = text.trim().replace(/\s+/g, " ");
  const m = /^(.*?[.!?])(\s|$)/.exec(t);
  return (m ? m[1] : t).replace(/\.$/, "");
}

export function neutralLine(name: string): string {
  return `Hello, my name is ${name}, and this is how I sound when I speak.`;
}

export function voicePrompt(p: VoicePromptInput): string {
  const d = p.design ? firstSentence(p.design) : "";
  // "A tall woman" reads as "Ada, a tall woman"; keep capitals of names and acronyms ("NASA pilot").
  const design = /^[A-Z][a-z ]/.test(d) ? d[0].toLowerCase() + d.slice(1) : d;
  const secs = Math.max(1, Math.round(p.seconds));
  const line = p.line.trim().replace(/\s+/g, " ") || neutralLine(p.name);
  const parts = [
    "A clean close-mic recording of one speaker in a quiet room, with no music, noise, other voices or effects.",
    sentence(design ? `The speaker is ${p.name}, ${design}` : `The speaker is ${p.name}`),
    p.voice.trim() ? sentence(`The voice is ${p.voice.trim()}`) : "",
    `About ${secs} ${secs === 1 ? "second" : "seconds"} long.`,
    `${p.name} says: "${line}"`,
  ];
  return parts.filter((s) => s !== "").join(" ");
}
