// The timeline formats an export answers: each one's file extension, content type and writer, and the download name.
import { edlText } from "./edl.ts";
import { fcpxmlText } from "./fcpxml.ts";
import { mltText } from "./mlt.ts";
import type { Timeline } from "./model.ts";
import { otioText } from "./otio.ts";

export const TIMELINE_FORMATS = ["otio", "fcpxml", "edl", "mlt"] as const;
export type TimelineFormat = (typeof TIMELINE_FORMATS)[number];

interface FormatSpec {
  ext: string;
  contentType: string;
  /** For a person choosing one. */
  label: string;
  write(t: Timeline): string;
}

export const FORMAT_SPECS: Record<TimelineFormat, FormatSpec> = {
  otio: {
    ext: "otio",
    contentType: "application/json; charset=utf-8",
    label: "OpenTimelineIO",
    write: otioText,
  },
  fcpxml: {
    ext: "fcpxml",
    contentType: "application/xml; charset=utf-8",
    label: "FCPXML 1.10",
    write: fcpxmlText,
  },
  edl: { ext: "edl", contentType: "text/plain; charset=utf-8", label: "CMX3600 EDL", write: edlText },
  mlt: { ext: "mlt", contentType: "application/xml; charset=utf-8", label: "MLT XML", write: mltText },
};

/** `<episode>_<pass>.<ext>`, the episode's name kept to characters every file system and header takes. */
export function downloadName(name: string, pass: string, format: TimelineFormat): string {
  const base = name.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "") || "episode";
  return `${base}_${pass}.${FORMAT_SPECS[format].ext}`;
}
