// The shapes of the service's answers the page reads, as the API contract gives them (fields it does not read are
// left out; the service may add more).
import type { Pass } from "./route.ts";

export interface Config {
  roots: string[];
  engine: string;
  review_copy: boolean;
  version: number;
  /** The ComfyUI the service runs inside (the page is then served at ComfyUI's address), or null. */
  mounted?: { comfy: string } | null;
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
  /** The take's file with its sound (its mp4, or its `_h3.wav`), null when it has none. */
  audio?: string | null;
  /** Its upscale and post-process (null when none was ever made). */
  upscale?: UpscaleSummary | null;
  post?: PostSummary | null;
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
  /** Null on an orphan (in the cut, not in the script). */
  length: number | null;
  seconds: number | null;
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
  /** The shot's `audio:` window on the episode's recording, seconds (null when the script gives none). */
  audio_in?: number | null;
  audio_out?: number | null;
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
  /** The series config's recorded dialogue track (`audio.track`), null when it names none. */
  track?: EpisodeTrack | null;
}

export interface EpisodeTrack {
  /** Episode-relative. */
  path: string;
  exists: boolean;
  seconds?: number | null;
}

export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";

export interface Job {
  id: string;
  kind: string;
  lane: string;
  title: string;
  info: {
    ep?: string;
    pass?: Pass;
    shot?: string;
    take?: number;
    target?: string;
    backend?: string;
    /** Reference and tour jobs: the reference, its view, the tour's number. */
    ref?: string;
    view?: string | null;
    tour?: number;
  };
  status: JobStatus;
  /** A job that must end before this one starts. */
  after?: string | null;
  progress: number;
  /** The phase the engine reports (`render`, a node's name, `downloading outputs`). */
  step: string | null;
  /** Sampler steps of the phase, when the engine counts them. */
  steps: number | null;
  created: string;
  started: string | null;
  finished: string | null;
  error: string | null;
  log: string[];
  can_retry: boolean;
  /** The engine's id of the work (a ComfyUI prompt id), matched against ComfyUI's own events when mounted. */
  backend_prompt_id?: string | null;
}

/** A worker process as it advertises itself: the lanes whose engine it reaches, and why it reaches no others. */
export interface WorkerAd {
  owner: string;
  host: string;
  pid: number;
  kinds: string[];
  lanes: string[];
  /** Configured lanes it cannot reach now → why. */
  down: Record<string, string>;
  /** Epoch ms of its last advert. */
  seen: number;
}

export interface JobsAnswer {
  jobs: Job[];
  lanes: Record<string, { paused: boolean; parallel: number; waiting: string[]; running: string[] }>;
  paid: { count: number; limit: number | null };
  /** The workers seen lately (absent from a service that does not list them). */
  workers?: WorkerAd[];
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

/** A take in `GET /studio/shot`: the summary with its whole sidecar and files. */
export interface TakeDetail extends TakeSummary {
  sidecar: Record<string, unknown> & { job?: string | null };
  files: string[];
  reference_image: string | null;
}

export interface RefUsed {
  id: string | null;
  kind: string;
  role: string;
  slot: string;
  path: string;
  exists: boolean;
  need: string;
  thumb: string | null;
}

/** A shot's values as a render would use them (`effective`, `built_values`). */
export interface ShotValues {
  prompt: string;
  seed: string;
  seed_source: string;
  model: string | null;
  model_low?: string | null;
  loras: unknown[];
  steps: number | null;
  negative: string | null;
  negative_source: string;
  target: string;
  width: number;
  height: number;
  length: number;
  notes?: string[];
  error?: string;
}

/** `GET /studio/shot`. */
export interface ShotDetail {
  shot: string;
  pass: Pass;
  built_prompt: string;
  built_target: string | null;
  target: string;
  target_source: string;
  profile: string | null;
  override: Record<string, unknown>;
  override_stale: boolean;
  effective: ShotValues;
  built_values?: ShotValues;
  refs_used: RefUsed[];
  takes: TakeDetail[];
}

/** `POST /studio/render`; `warning`/`warnings` tell when the takes come from an older build. */
export interface RenderAnswer {
  queued: {
    shot: string;
    take: number;
    prompt_id: string;
    seed: string;
    seed_source: string;
    target: string;
  }[];
  skipped: { shot: string; reason: string; take?: number }[];
  errors: { shot: string; error: string; take?: number }[];
  continuity?: { shot: string; from: string; why: string }[];
  warning?: string | null;
  warnings?: string[];
}

export interface TargetInfo {
  id: string;
  label: string;
  short?: string;
  kind: string;
  draft?: boolean;
  /** The render parameters the target's workflow binds (param name → where it goes). */
  widgets?: Record<string, unknown>;
  capabilities?: { negative_prompt?: boolean; mode?: string; max_refs?: number } & Record<string, unknown>;
}

export interface BackendInfo {
  name: string;
  kind: string;
  down: string | null;
  where: string | null;
}

/** `POST /studio/build`. */
export interface BuildAnswer {
  ok: boolean;
  error?: string | null;
  passes: Partial<
    Record<Pass, { ok: boolean; error: string | null; report: { warnings?: string[] } | null }>
  >;
}

export interface Issue {
  id: string;
  shot: string;
  pass: Pass;
  take: number | null;
  note: string;
  when: string;
  target: string | null;
  addressed: boolean;
}

/** `GET /studio/backends`. */
export interface BackendsAnswer {
  backends: BackendInfo[];
  api_key: boolean;
}

/** `GET /studio/settings` (and what `PUT` answers). */
export interface SettingsAnswer {
  settings: {
    local_url: string | null;
    engine_url: string | null;
    cloud_url: string | null;
    api_key: "set" | null;
    hf_token: "set" | null;
    deployments: Record<string, string>;
    path: string | null;
    paid_limit: number | null;
    enabled_drafts: string[];
    local_via: "engine" | "proxy" | null;
    default_targets: Partial<Record<"video" | "image" | "audio", string>>;
    detected_targets: Partial<Record<"video" | "image" | "audio", string>>;
    sdk: { status: string; error: string | null } | null;
  };
  file: string;
  /** Settings the environment sets, by field, with the variable's name. */
  from_env: Record<string, string>;
}

/** An error or warning of a source check (`errors`, `warnings`; the file is the one checked when absent). */
export interface CheckEntry {
  file?: "script" | "series";
  line: number | null;
  col?: number | null;
  message: string;
}

/** `POST /studio/source/check`; `diagnostics` holds every error and warning in one list when present. */
export interface CheckAnswer {
  ok: boolean;
  errors?: CheckEntry[];
  warnings?: CheckEntry[];
  diagnostics?: (CheckEntry & { severity: string })[];
  shots?: { id: string; line: number; end_line: number }[];
}

/** `GET /studio/source`. */
export interface SourceAnswer {
  file: "script" | "series";
  path: string;
  text: string;
  hash: string;
  mtime: number;
  shots?: { id: string; line: number; end_line: number }[];
}

/** `PUT /studio/source`; its 409 carries `{error, hash, text, file}` (the file on disk now). */
export interface SourceSaveAnswer {
  hash: string;
  changed: boolean;
  check: CheckAnswer;
  build: BuildAnswer | null;
}

/** `GET /studio/source/history` (an extra route): kept copies, newest first. */
export interface HistoryAnswer {
  file: "script" | "series";
  versions: { id: string; when: string; size: number }[];
}

/** `GET /studio/source/version` (an extra route). */
export interface VersionAnswer {
  file: "script" | "series";
  id: string;
  when: string;
  text: string;
}

export interface PromoteItem {
  id: string;
  scope: "shot" | "episode" | "ref";
  shot?: string;
  ref?: string;
  view?: string;
  field: string;
  value: unknown;
  dest: "script" | "series";
  line?: number;
  summary: string;
}

export interface PromoteLeft {
  scope: "shot" | "episode" | "ref";
  shot?: string;
  ref?: string;
  view?: string;
  pass?: Pass;
  field: string;
  reason: string;
}

/** `GET /studio/promote`. */
export interface PromotePlan {
  items: PromoteItem[];
  left: PromoteLeft[];
  diffs: { script: string; series: string };
  hashes: { script: string; series: string };
}

/** `POST /studio/promote`. */
export interface PromoteResult {
  promoted: PromoteItem[];
  left: PromoteLeft[];
  hashes: { script: string; series: string };
  build: BuildAnswer | null;
}

/** A reference's kind (`GET /studio/refs`). */
export type RefKind = "character" | "prop" | "vehicle" | "location" | "voice" | "keyframe";
/** A character view or a pseudo-view of a reference take. */
export type RefViewName = "01_threequarter" | "02_side" | "03_back" | "04_face" | "sheet" | "pano" | "tour";

/** A candidate of a reference (`takes` in `GET /studio/refs`); `image`/`audio` are episode-relative paths. */
export interface RefTakeInfo {
  take: number;
  view: RefViewName | null;
  status: TakeStatus;
  usable: boolean;
  seed: string | null;
  seed_source?: string | null;
  image?: string | null;
  audio?: string | null;
  source: string | null;
  note?: string | null;
  prompt?: string | null;
  model?: string | null;
  width?: number | null;
  height?: number | null;
  queued?: string | null;
  finished?: string | null;
  save_notes?: string[] | string | null;
  target?: string | null;
  from?: { shot?: string; take?: number; pass?: Pass; frame?: number; frames?: number } | null;
  original_name?: string | null;
  /** The job that makes it (its id in GET /studio/jobs), while it has one. */
  backend_prompt_id?: string | null;
}

/** A camera tour of a location (`tours` in `GET /studio/refs`); `video` and the timing are the page's extra fields. */
export interface RefTourInfo {
  tour: number;
  status: string;
  move: string | null;
  holds: number[];
  error: string | null;
  video?: string | null;
  seconds?: number | null;
  fps?: number | null;
  frames?: number | null;
}

/** A reference's override as listed: the fields set, whether they predate the built prompt, their values. */
export interface RefOverrideInfo {
  fields: string[];
  stale: boolean;
  values: Record<string, unknown>;
  /** Views only: the fields set on the view itself. */
  own?: string[];
}

/** One view of a character (`views` in `GET /studio/refs`). */
export interface RefViewInfo {
  view: RefViewName;
  picked: number | null;
  takes: RefTakeInfo[];
  prompt?: string | null;
  built_prompt?: string | null;
  override?: RefOverrideInfo | null;
  effective?: Record<string, unknown> | null;
  cleared?: boolean | string | null;
}

/** A reference as `GET /studio/refs` lists it (and every refs route that answers "the ref as listed"). */
export interface RefInfo {
  id: string;
  scope: "series" | "shot";
  kind: RefKind;
  name: string;
  key: string;
  subject: string | null;
  of?: string | null;
  /** The live file, as the series config names it (keyframes: episode-relative). */
  path: string;
  exists: boolean;
  sha1: string | null;
  used_by: { final: string[]; proxy: string[] };
  prompt?: string | null;
  built_prompt?: string | null;
  override?: RefOverrideInfo | null;
  effective?: Record<string, unknown> | null;
  can_generate?: boolean;
  why_not?: string | null;
  views: RefViewInfo[];
  takes: RefTakeInfo[];
  picked: number | null;
  cleared?: boolean | string | null;
  sheet_cleared?: boolean | string | null;
  live_from?: "sheet" | "views" | null;
  panels?: number;
  panels_conflict?: boolean | string | null;
  shared_with?: string[];
  live_owner?: string | null;
  panos?: RefTakeInfo[];
  tour_holds?: RefTakeInfo[];
  tours?: RefTourInfo[];
  // Keyframes only.
  shot?: string;
  which?: "first" | "last";
  need?: "required" | "optional" | null;
  method?: "continuity" | "generate" | "import";
  target?: string | null;
  script?: string | null;
  import_path?: string | null;
}

export interface RefDefaults {
  target: string | null;
  target_source: "editor" | "series" | "default";
  keyframe_target: string | null;
  keyframe_target_source: "editor" | "series" | "default";
  /** The audio target voices are made on (an extra of PUT /studio/refs/defaults). */
  voice_target?: string | null;
  voice_target_source?: "editor" | "series" | "default";
}

/** `GET /studio/refs`. */
export interface RefsAnswer {
  refs: RefInfo[];
  defaults: RefDefaults;
}

/** `studio.ref`'s payload. */
export interface RefEvent {
  ep: string;
  ref: string;
  view: RefViewName | null;
  take: number | null;
  status: "queued" | "ok" | "failed" | "picked" | "cleared" | "discarded" | "promoted";
}

/** A candidate `POST /studio/refs/generate` (and generate-missing) queued. */
export interface RefQueued {
  ref: string;
  view: RefViewName | null;
  take: number | null;
  prompt_id: string | null;
  seed: string;
  seed_source: string;
  backend?: string;
  target: string;
  method?: string;
}

/** One candidate's problem: the request as a whole still went through. */
export interface RefCandidateError {
  ref: string;
  view?: RefViewName | null;
  error: string;
  take?: number;
  target?: string;
  missing_files?: { param?: string; want?: string; folder?: string }[];
}

/** `POST /studio/refs/generate`. */
export interface RefGenerateAnswer {
  queued: RefQueued[];
  errors: RefCandidateError[];
}

/** `POST /studio/refs/generate-missing` (a dry run has null takes and job ids). */
export interface RefMissingAnswer {
  queued: RefQueued[];
  picked: { ref: string; take: number | null; method: string; view?: RefViewName | null }[];
  skipped: { ref: string; reason: string; view?: RefViewName | null }[];
  errors: RefCandidateError[];
}

/** `POST /studio/refs/tour`. */
export interface RefTourAnswer {
  queued: { tour: number; backend_prompt_id: string }[];
}

/** `take.upscale` in `GET /studio/episode`: the take's upscale record, summarised, with its freshness. */
export interface UpscaleSummary {
  status: TakeStatus;
  fresh: boolean;
  width?: number | null;
  height?: number | null;
  route?: string | null;
  method?: string | null;
  pixel_model?: string | null;
  seedvr2_model?: string | null;
  keep?: boolean | null;
  recipe_match?: "same" | "different" | "unknown" | null;
  encoder?: string | null;
  mp4: string | null;
  save_notes?: string | null;
}

/** `take.post`: the take's post-process (a version of its upscale), with its freshness. */
export interface PostSummary {
  status: TakeStatus;
  fresh: boolean;
  recipe: Record<string, unknown> | null;
  width: number | null;
  height: number | null;
  mp4: string | null;
  save_notes: string | null;
}

export type MasterRowStatus = "upscale" | "post" | "ok" | "kept" | "queued" | "gap";

/** One shot of a master plan (`POST /studio/master`). */
export interface MasterRow {
  shot: string;
  take: number | null;
  target: string | null;
  status: MasterRowStatus;
  why: string;
  recipe: string | null;
  upscale: { width: number; height: number; status: string; keep: boolean } | null;
  post: { status: string; fresh: boolean; recipe: unknown } | null;
}

export interface MasterPlan {
  pass: Pass;
  post: boolean;
  post_mode: string;
  size: [number, number];
  fit: string;
  quality: string;
  counts: Record<MasterRowStatus, number>;
  ready: boolean;
  rows: MasterRow[];
}

/** The master job (`GET /studio/master/job`, and every `studio.master` event). */
export interface MasterJob {
  ep: string;
  pass: Pass | null;
  state: "running" | "done" | "failed";
  elsewhere: boolean;
  by: string;
  started: string | null;
  finished: string | null;
  step: "assemble" | "titles" | null;
  stage: string | null;
  done: number | null;
  total: number | null;
  text: string;
  output: string | null;
  mov: string | null;
  report: string | null;
  titles: { intro: unknown; outro: unknown; picture: string; why: string } | null;
  error: string;
}

/** `POST /studio/master` (every action but `prores` carries `plan` and `existing`). */
export interface MasterAnswer {
  plan?: MasterPlan;
  existing?: { output: string; mov: string | null } | null;
  queued?: string[];
  errors?: { shot: string; error: string }[];
  output?: string | null;
  mov?: string | null;
  report?: string | null;
  titles?: MasterJob["titles"];
  job?: MasterJob | null;
}

/** How ready one upscale method is on the backend. */
export interface Readiness {
  status: "ready" | "not_ready" | "unknown";
  missing: string[];
}

/** `GET /studio/upscale/options?ep=`. */
export interface UpscaleOptions {
  pixel: Readiness & { models: string[]; default: string };
  seedvr2: Readiness & { models: string[]; default: string };
  latent: Record<string, (Readiness & { mode: string; align: number; fixed_scale: number | null }) | null>;
  details: number[];
  recipe: {
    deliver: string | null;
    fit: string;
    quality: string;
    encoder: string;
    targets: Record<string, { key: string; fields: Record<string, unknown>; text: string } | null>;
    shots: Record<string, { fields: Record<string, unknown>; text: string }>;
    problems: string[];
  } | null;
  max_scale: number;
  precisions: string[];
}

/** `GET /studio/post/options?ep=`. */
export interface PostOptions {
  tiers: { id: string; enhance: unknown; text: string; readiness: Readiness }[];
  methods: string[];
  blur: { min: number; max: number; default: number; readiness: Readiness };
  recipe: {
    fields: Record<string, unknown>;
    text: string;
    shots: Record<string, { fields: Record<string, unknown>; text: string }>;
    problems: string[];
  } | null;
}

/** `POST /studio/upscale` and `POST /studio/post`: what was queued, skipped and refused, per take. */
export interface FinishQueueAnswer {
  queued: { shot: string; take: number; width: number; height: number; prompt_id: string }[];
  skipped: { shot: string; take?: number; reason: string }[];
  errors: { shot: string; take?: number; error: string }[];
}

/** `GET /studio/peaks`: one peak (0–255) per bin over `start`–`end`; a file with no sound has `silent`. */
export interface PeaksAnswer {
  duration: number;
  bins: number;
  start: number;
  end: number;
  peaks: number[];
  silent?: true;
}

/** `POST /studio/track`. */
export interface TrackAnswer {
  track: {
    path: string;
    duration: number | null;
    rate: number | null;
    exists: boolean;
    words: number;
    aligned: number;
  };
  hash: string;
  build: BuildAnswer | null;
  path: string;
  copied: boolean;
  reformatted: boolean;
}

/** `POST /studio/align` (a dry run writes nothing: `report_path`, `series_hash` and `build` null). */
export interface AlignAnswer {
  ok: boolean;
  dry_run: boolean;
  report: string;
  report_path: string | null;
  changes: { shot: string; audio_in: number | null; audio_out: number | null; note: string | null }[];
  notes: string[];
  recording: string;
  duration: number | null;
  words: number;
  script_hash: string;
  series_hash: string | null;
  track: string | null;
  build: BuildAnswer | null;
  log: string;
}
