// The loaded series config after validation and variant resolution (script format 3).

export type SubjectKind = "character" | "prop" | "vehicle";

export interface Subject {
  kind: SubjectKind;
  name: string;
  design?: string;
  pronoun?: string;
  sheet?: string;
  sheet_panels?: number;
  voice?: string;
  voice_sample?: string;
  of?: string;
  members?: number;
  [extra: string]: unknown;
}

export interface Location {
  description: string;
  plate?: string;
  of?: string;
  [extra: string]: unknown;
}

export interface SeriesConfig {
  /** The whole parsed JSON object, untouched (targets read blocks the format does not know). */
  raw: Record<string, unknown>;
  series: Record<string, unknown>;
  proxy: Record<string, unknown> | undefined;
  look: string;
  subjects: Record<string, Subject>;
  locations: Record<string, Location>;
  /** Subject ids whose kind is `character`, after variant resolution. */
  characters: string[];
  /** variant id -> base id */
  variants: Record<string, string>;
}
