// The shapes of the service's answers the page reads, as the API contract gives them (fields it does not read are
// left out; the service may add more).
import type { Pass } from "./route.ts";

export interface Config {
  roots: string[];
  engine: string;
  review_copy: boolean;
  version: number;
}

export interface EpisodeSummary {
  ep: string;
  name: string;
  series: string;
  title: string;
  built: { final: boolean; proxy: boolean };
  shots: number;
  script: string;
  simple: boolean;
}

export type TakeStatus = "queued" | "ok" | "failed";

export interface TakeSummary {
  take: number;
  status: TakeStatus;
  has_video: boolean;
  seed: string | null;
  seed_source?: string | null;
  frames: number | null;
  fps: number | null;
  width: number | null;
  height: number | null;
  note: string | null;
  overrides: string[];
  stale: string[];
  thumb: string | null;
  strip: string | null;
  mp4: string | null;
  queued: string | null;
  finished: string | null;
  backend_prompt_id?: string | null;
  save_notes: string | null;
  target: string | null;
}

/** The sound a cut entry plays when not its clip's own: silence, another take's, or a file of the episode. */
export interface CutAudio {
  source: string;
  shot?: string;
  take?: number;
  pass?: Pass;
  path?: string;
  start?: number;
  offset?: number;
  gain?: number;
}

export interface CutInfo {
  take: number | null;
  picked: boolean;
  pass: Pass | null;
  placeholder: boolean;
  usable: boolean;
  trim_in: number | null;
  trim_out: number | null;
  locked: boolean;
  note: string | null;
  in_cut_file: boolean;
  frames: number | null;
  out: boolean;
  flag: boolean;
  fps: number;
  order: number;
  script_index: number | null;
  out_of_order: boolean;
  audio: CutAudio | null;
  audio_file: string | null;
  audio_why: string | null;
}

export interface MissingRef {
  slot: string;
  kind: "image" | "audio";
  path: string;
  subject?: string;
  anyway?: boolean;
  why?: string;
}

export interface ShotEntry {
  shot: string;
  orphan: boolean;
  sequence: string;
  length: number;
  seconds: number;
  length_estimated?: boolean;
  size: string | null;
  subjects: string[];
  audio_policy: string | null;
  action?: string;
  cut: CutInfo;
  override: { fields: string[]; stale: boolean } | null;
  target: string;
  target_source: string;
  built_target: string | null;
  profile: string | null;
  missing_refs: MissingRef[];
  retarget_error?: string;
  takes: TakeSummary[];
}

export interface EpisodeStatus {
  episode: string;
  title: string;
  pass: Pass;
  fps: number;
  width: number;
  height: number;
  folder: string;
  shots: ShotEntry[];
  target: string;
  target_source: string;
  series_target: string | null;
}

export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";

export interface Job {
  id: string;
  kind: string;
  lane: string;
  title: string;
  info: { ep?: string; pass?: Pass; shot?: string; take?: number; target?: string; backend?: string };
  status: JobStatus;
  progress: number;
  step: number | null;
  steps: number | null;
  created: string;
  started: string | null;
  finished: string | null;
  error: string | null;
  log: string[];
  can_retry: boolean;
}

export interface JobsAnswer {
  jobs: Job[];
  lanes: Record<string, { paused: boolean; parallel: number; waiting: string[]; running: string[] }>;
  paid: { count: number; limit: number | null };
}

/** A `/ws` frame. */
export interface StudioEvent {
  type: string;
  data: unknown;
}

/** `studio.take`'s payload. */
export interface TakeEvent {
  ep: string;
  pass: Pass;
  shot: string;
  take: number;
  status: TakeStatus;
  thumb: string | null;
}
