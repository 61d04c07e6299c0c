// The engine interface: every backend (built-in, ComfyUI, Comfy API v2) renders a job through these four steps,
// so rendering has one code path from the render route to the finished take.
import type { Entry, Pass } from "../compile/types.ts";

export type EngineKind = "video" | "image" | "audio";

/** Everything an engine needs to render one take (or one reference picture or voice). */
export interface EngineJob {
  kind: EngineKind;
  /** Target id (`animatic`, `ltx2`, `card`, `silence`, ...). */
  target: string;
  ep: string;
  pass: Pass;
  /** Shot id (video) or reference key (image/audio). */
  subject: string;
  take: number;
  /** File-name stem of the take (`sh010_t03`). */
  stem: string;
  width: number;
  height: number;
  fps: number;
  /** Exact frame count to deliver (video); audio/image: 0. */
  frames: number;
  seed: bigint;
  prompt: string | string[];
  negative: string | null;
  /** The compiled entry as it will be rendered (frozen into `<stem>.shotlist.json`). */
  entry: Entry;
  /** Input files by role (`first`, `last`, `plate`, `subject:<id>`, ...): absolute paths that exist. */
  inputs: Record<string, string>;
  /** A window of a recorded track to lay under the picture (seconds in the file). */
  audio?: { path: string; start: number; end: number } | null;
  /** Lines to show timed across the shot (the animatic's captions): `line` for dialogue, `action` for the action. */
  captions?: { text: string; start: number; end: number; kind?: "line" | "action" }[];
  /** The animatic's title line (shot, location, size, camera); the shot id when absent. */
  title?: string;
  /** Dialogue the animatic speaks in the built-in voices, timed from the shot's start (speaker = subject id). */
  spoken?: { speaker: string; text: string; start: number; end: number; voice?: string | null }[];
  /** The subjects' pictures to draw on the card (the animatic's figures), in slot order. */
  figures?: JobFigure[];
  /** The reference a picture or voice is made for (the built-in card writes it, the built-in voice speaks as it). */
  ref?: JobRef;
  /** Folder where the engine writes its raw outputs (a temp folder inside the shot folder). */
  workDir: string;
  /**
   * ComfyUI engines: the patched API-format graph to run (node id → node). A string input equal to one of
   * `inputs`' absolute paths is replaced by that file's uploaded name at submit.
   */
  graph?: ApiGraph;
  /** The graph's node that writes the take: its output is the take, not a review copy the graph also writes. */
  saver?: string;
  /** Hosted-model engines (router): the provider task to submit (lib/router/target.ts routerTask). */
  task?: Record<string, unknown>;
}

/** What the built-in engine knows of the reference it makes a picture or voice for. */
export interface JobRef {
  /** `subject:ada`, `location:street`, `voice:ada`, `shot:sh010:first`. */
  id: string;
  /** Its display name (`Ada`, `Main street`, `sh010 first frame`). */
  name: string;
  /** `character`, `prop`, `vehicle`, `location`, `voice`, `keyframe` (or a group). */
  kind: string;
  /** A character's view (`01_threequarter`, `02_side`, `03_back`, `04_face`), `sheet`, `plate`, or null. */
  view: string | null;
  /** What it is drawn from: a subject's `design`, a location's `description`; for a voice its `voice` brief. */
  description: string;
  /** The series' `style.look` (the card's palette is drawn from it and the id). */
  look: string;
}

/** A subject's live picture the animatic draws. */
export interface JobFigure {
  /** Its file's role in `inputs` (`subject:<id>`). */
  input: string;
  subject: string;
  /** What the card writes under it. */
  name: string;
  /** The sheet panel to cut (panel `index` of `of` side by side), null to draw the picture whole. */
  panel: { index: number; of: number } | null;
}

/** One node of a ComfyUI API-format graph; an input is a literal or a link `[node_id, output_index]`. */
export interface ApiNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}

export type ApiGraph = Record<string, ApiNode>;

export interface EngineProgress {
  /** 0..1 */
  progress: number;
  step?: string;
  steps?: number;
  log?: string;
}

export interface Prepared {
  /** Input names as the backend knows them (`studio/<sha1>.png` on ComfyUI; paths for the built-in engine). */
  inputs: Record<string, string>;
  notes: string[];
}

export interface Submitted {
  /** The backend's own id for the work (ComfyUI prompt id); recorded as `backend_prompt_id`. */
  backendPromptId: string;
}

export interface EngineOutputs {
  /** Absolute paths of the files the engine produced, inside `job.workDir`. */
  video?: string;
  audio?: string;
  image?: string;
  /** Frames counted in the delivered video, when the engine knows them. */
  frames?: number;
  /** The take's thumbnail and strip (JPEG, inside `job.workDir`) when the engine made them while encoding. */
  thumb?: string;
  strip?: string;
  /** The delivered video's size and rate, when the engine wrote exactly these (no probe needed). */
  picture?: { width: number; height: number; fps: number };
  /** Fields the engine adds to the take's sidecar when it closes (the router's `draft`). */
  sidecar?: Record<string, unknown>;
  notes: string[];
}

export interface RunHooks {
  signal: AbortSignal;
  onProgress(p: EngineProgress): void;
}

export interface Engine {
  /** Backend name: `builtin`, `local`, `cloud`, `deployment:<target>`, `router`. */
  readonly backend: string;
  /** Stage inputs (uploads, composites). */
  prepare(job: EngineJob, hooks: RunHooks): Promise<Prepared>;
  /** Hand the work to the backend; answers once it is accepted. */
  submit(job: EngineJob, prepared: Prepared, hooks: RunHooks): Promise<Submitted>;
  /** Follow progress until the work ends, then collect its outputs into `job.workDir`. Rejects on failure. */
  collect(job: EngineJob, submitted: Submitted, hooks: RunHooks): Promise<EngineOutputs>;
  /** Ask the backend to stop the work (pending: remove it; running: interrupt). */
  cancel(job: EngineJob, submitted: Submitted | null): Promise<void>;
}
