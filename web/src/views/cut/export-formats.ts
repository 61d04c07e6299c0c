// The timeline formats the Cut view's Export menu offers (GET /studio/timeline), and the name a download is saved
// under: the service's own rule, `<episode>_<pass>.<ext>`, so the file is named the same however it was fetched.
export type TimelineFormat = "otio" | "fcpxml" | "edl" | "mlt";

export interface ExportFormat {
  id: TimelineFormat;
  label: string;
  /** Which editors open it, for a person choosing. */
  opens: string;
}

export const EXPORT_FORMATS: readonly ExportFormat[] = [
  { id: "fcpxml", label: "FCPXML 1.10", opens: "Final Cut Pro, DaVinci Resolve" },
  { id: "otio", label: "OpenTimelineIO", opens: "Resolve, Premiere, Avid, RV" },
  { id: "mlt", label: "MLT XML", opens: "Shotcut, Kdenlive" },
  { id: "edl", label: "CMX3600 EDL", opens: "any editor (one picture track)" },
];

/** `<episode>_<pass>.<ext>`, the episode's name kept to characters every file system takes. */
export function exportFileName(episode: string, pass: string, format: TimelineFormat): string {
  const base = episode.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "") || "episode";
  return `${base}_${pass}.${format}`;
}

/** The answer as the file's text: the OTIO answer arrives parsed (it is JSON) and is written back as the service wrote it. */
export function exportText(answer: unknown): string {
  return typeof answer === "string" ? answer : `${JSON.stringify(answer, null, 2)}\n`;
}
