// Promote's shapes: what the plan and the result hold, and what its steps (inputs, candidates, edits, checks)
// hand each other.
import type { Pass } from "../../compile/types.ts";
import type { Fence } from "../../paths/guarded.ts";
import type { Story } from "../../script/types.ts";
import type { Lora } from "../../series/load.ts";
import type { SeriesConfig } from "../../series/types.ts";
import type { JsonObject } from "../../store/json-guards.ts";
import type { OverridesFile } from "../overrides-file.ts";
import type { CompileEnv } from "../prepare.ts";
import type { BuildAnswer } from "../run-build.ts";
import type { SourceFile } from "../source-file.ts";

export type Scope = "shot" | "episode" | "ref";

export interface PromoteItem {
  id: string;
  scope: Scope;
  shot?: string;
  ref?: string;
  view?: string;
  field: string;
  value: unknown;
  dest: "script" | "series";
  /** 1-based line of the promoted key in the edited file. */
  line?: number;
  summary: string;
}

export interface LeftEntry {
  scope: Scope;
  shot?: string;
  ref?: string;
  view?: string;
  pass?: Pass;
  field: string;
  reason: string;
}

export interface PromotePlan {
  items: PromoteItem[];
  left: LeftEntry[];
  diffs: { script: string; series: string };
  hashes: { script: string; series: string };
}

export interface PromoteResult {
  promoted: PromoteItem[];
  left: LeftEntry[];
  hashes: { script: string; series: string };
  build: BuildAnswer | null;
}

/**
 * `<series home>/refs/_overrides.json`: `refs` holds one block per ref (`prompt`, `base_hash`,
 * and `views` with a block per view for characters). Kept as read; each field is checked where it is used.
 */
export type RefOverridesFile = JsonObject;

export type ScriptEdit = { kind: "script"; shot: string; key: string; text: string };
export type SeriesEdit = { kind: "series"; keyPath: string[]; value: string };

export interface Candidate {
  item: PromoteItem;
  edit: ScriptEdit | SeriesEdit;
  /** Drops exactly the promoted override from the (cloned) override files. */
  remove(overrides: OverridesFile, refs: RefOverridesFile): void;
}

export interface Inputs {
  ep: string;
  script: SourceFile;
  series: SourceFile;
  overrides: OverridesFile;
  refs: RefOverridesFile;
  refsPath: string;
  refsFence: Fence;
  env: CompileEnv;
}

export const PASSES: readonly Pass[] = ["final", "proxy"];
export const VIEWS = ["01_threequarter", "02_side", "03_back", "04_face"] as const;
export const SETTINGS = ["model", "loras", "steps"] as const;
export type Setting = (typeof SETTINGS)[number];
export const LINE_KEY: Record<Setting | "target", string> = {
  target: "target",
  model: "model",
  loras: "lora",
  steps: "steps",
};

export interface PassRender {
  model: string | null;
  loras: Lora[];
  steps: number | null;
  /** Set when the shot cannot compile on its render target (both views must then fail alike). */
  error?: string;
}

export interface ShotRender {
  target: string;
  final: PassRender;
  proxy: PassRender;
}

export interface View {
  story: Story;
  series: SeriesConfig;
  shots: Map<string, ShotRender>;
}
