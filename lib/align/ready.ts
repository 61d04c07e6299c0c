// Whether this machine can align a recording, and with what: a Python that has numpy and a whisper (faster-whisper
// or openai-whisper) wins, else PocketSphinx with its US English model; ffmpeg is needed either way. What each
// interpreter holds is asked of it (a subprocess) at most once per 30 s, through the services' caches.
import { access, constants } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { ToolRunner } from "../media/tool-runner.ts";
import { findOnPath } from "../media/tools.ts";
import { cacheSlot, type WithCaches } from "../store/caches.ts";
import type { AlignEngine } from "./words-cache.ts";

/** The whisper models a `model` may name; the contract's default first. */
export const WHISPER_MODELS = {
  default: "medium.en",
  choices: [
    "tiny",
    "tiny.en",
    "base",
    "base.en",
    "small",
    "small.en",
    "medium",
    "medium.en",
    "large-v1",
    "large-v2",
    "large-v3",
  ],
};

/** The one model PocketSphinx is run with (the Debian package's US English acoustic model). */
export const SPHINX_MODEL = "en-us";

export const SPHINX_APT = "apt-get install -y pocketsphinx pocketsphinx-en-us";

/** How long what an interpreter holds is believed. */
export const PROBE_MS = 30_000;

type PackageName = "numpy" | "faster-whisper" | "openai-whisper";

/** Each package's version as the interpreter reports it: a version, "" (imports, no version known) or null. */
export type Packages = Record<PackageName, string | null>;

export interface AlignReadiness {
  ready: boolean;
  /** ffmpeg's path, or null. */
  ffmpeg: string | null;
  /** What is missing, as pip names (and `ffmpeg`), in the order ffmpeg, numpy, faster-whisper. */
  missing: string[];
  /** The interpreter that would run whisper (or was looked at), or null when there is none. */
  python: string | null;
  /** A pip command line for the missing packages, quoting the interpreter; "" when no package is missing. */
  install: string;
  models: { default: string; choices: string[] };
  packages: Packages;
  /** How to get ffmpeg; "" when it is there. */
  ffmpeg_hint: string;
  /** The engine a run would use now. */
  engine: AlignEngine | null;
  /** The program that would run: the interpreter for whisper, the pocketsphinx binary. */
  program: string | null;
  /** How to get PocketSphinx on Debian or Ubuntu; "" when it is there. */
  apt: string;
}

/** The engine a run uses and what it needs to start it. */
export type AlignProgram =
  | { engine: "faster-whisper"; program: string; library: "faster-whisper" | "openai-whisper" }
  | { engine: "pocketsphinx"; program: string; hmm: string; dict: string };

// The probe prints one marked line, so whatever a site customisation prints around it is ignored.
const PROBE_MARK = "H3PIPE_ALIGN_PROBE ";
const PROBE_SCRIPT = `
import json, sys
def version(module, dist):
    try:
        mod = __import__(module)
    except Exception:
        return None
    try:
        from importlib.metadata import version as v
        return v(dist)
    except Exception:
        return str(getattr(mod, "__version__", "") or "")
print(${JSON.stringify(PROBE_MARK)} + json.dumps({
    "numpy": version("numpy", "numpy"),
    "faster-whisper": version("faster_whisper", "faster-whisper"),
    "openai-whisper": version("whisper", "openai-whisper"),
}))
`;

interface Probe {
  at: number;
  packages: Promise<Packages | null>;
}

const PROBES = cacheSlot("align interpreter probes", () => new Map<string, Probe>());
/** One tool process for the aligner's programs (starting them from the service itself would stall it). */
export const ALIGN_RUNNER = cacheSlot("align tool runner", () => new ToolRunner());

type ReadyServices = Pick<Services, "env" | "media" | "now"> & WithCaches;

async function exists(file: string): Promise<boolean> {
  try {
    await access(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** The interpreters to try, in order: H3PIPE_ALIGN_PYTHON, then python3 and python on PATH. */
async function interpreters(env: Record<string, string | undefined>): Promise<string[]> {
  const named = env.H3PIPE_ALIGN_PYTHON?.trim();
  const found = [
    named ? (path.isAbsolute(named) ? named : await findOnPath(named, env)) : null,
    await findOnPath("python3", env),
    await findOnPath("python", env),
  ];
  return [...new Set(found.filter((f): f is string => f !== null))];
}

/** What `python` holds, asked at most once per 30 s; null when it does not run. */
function probePython(services: ReadyServices, python: string): Promise<Packages | null> {
  const probes = services.caches.of(PROBES);
  const now = services.now().getTime();
  const hit = probes.get(python);
  if (hit && now - hit.at < PROBE_MS) return hit.packages;
  const packages = services.caches
    .of(ALIGN_RUNNER)
    .run(python, ["-c", PROBE_SCRIPT], { timeout: 60_000 })
    .then((r) => parseProbe(r.stdout))
    .catch(() => null);
  probes.set(python, { at: now, packages });
  return packages;
}

/** The probe's marked line, read; null when the interpreter printed none. */
export function parseProbe(stdout: string): Packages | null {
  const line = stdout.split("\n").find((l) => l.startsWith(PROBE_MARK));
  if (!line) return null;
  try {
    const raw = JSON.parse(line.slice(PROBE_MARK.length)) as Record<string, unknown>;
    const one = (v: unknown) => (typeof v === "string" ? v : null);
    return {
      numpy: one(raw.numpy),
      "faster-whisper": one(raw["faster-whisper"]),
      "openai-whisper": one(raw["openai-whisper"]),
    };
  } catch {
    return null;
  }
}

/** PocketSphinx's program and its model files beside it (`<prefix>/share/pocketsphinx/model/en-us`), or null. */
async function findSphinx(
  env: Record<string, string | undefined>,
): Promise<{ program: string; hmm: string; dict: string } | null> {
  const program = await findOnPath("pocketsphinx_continuous", env);
  if (!program) return null;
  const prefix = path.dirname(path.dirname(program));
  for (const base of [prefix, "/usr", "/usr/local"]) {
    const dir = path.join(base, "share", "pocketsphinx", "model", "en-us");
    const hmm = path.join(dir, "en-us");
    const dict = path.join(dir, "cmudict-en-us.dict");
    if ((await exists(path.join(hmm, "mdef"))) && (await exists(dict))) return { program, hmm, dict };
  }
  return null;
}

const hasWhisper = (p: Packages | null): p is Packages =>
  p !== null && p.numpy !== null && (p["faster-whisper"] !== null || p["openai-whisper"] !== null);

/** A shell word: the path as is when it needs no quotes. */
function quoteArg(arg: string): string {
  return /^[A-Za-z0-9_./:=@+-]+$/.test(arg) ? arg : `"${arg.replace(/(["\\$`])/g, "\\$1")}"`;
}

/** The readiness answer and the program a run would start (null when none can). */
export async function alignReadiness(
  services: ReadyServices,
): Promise<{ answer: AlignReadiness; program: AlignProgram | null }> {
  const [ffmpeg, pythons, sphinx] = await Promise.all([
    services.media.find("ffmpeg"),
    interpreters(services.env),
    findSphinx(services.env),
  ]);
  const probed = await Promise.all(pythons.map((p) => probePython(services, p)));
  const chosen = probed.findIndex(hasWhisper);
  const python = chosen >= 0 ? pythons[chosen] : (pythons[0] ?? null);
  const packages: Packages = (chosen >= 0 ? probed[chosen] : probed[0]) ?? {
    numpy: null,
    "faster-whisper": null,
    "openai-whisper": null,
  };
  let program: AlignProgram | null = null;
  if (chosen >= 0)
    program = {
      engine: "faster-whisper",
      program: pythons[chosen],
      library: packages["faster-whisper"] !== null ? "faster-whisper" : "openai-whisper",
    };
  else if (sphinx) program = { engine: "pocketsphinx", ...sphinx };

  const missingPackages: string[] = [];
  if (!program) {
    if (packages.numpy === null) missingPackages.push("numpy");
    if (packages["faster-whisper"] === null && packages["openai-whisper"] === null)
      missingPackages.push("faster-whisper");
  }
  const missing = [...(ffmpeg.path === null ? ["ffmpeg"] : []), ...missingPackages];
  const install = missingPackages.length
    ? `${quoteArg(python ?? "python3")} -m pip install ${missingPackages.join(" ")}`
    : "";
  return {
    answer: {
      ready: ffmpeg.path !== null && program !== null,
      ffmpeg: ffmpeg.path,
      missing,
      python,
      install,
      models: WHISPER_MODELS,
      packages,
      ffmpeg_hint: ffmpeg.path === null ? ffmpeg.error : "",
      engine: program?.engine ?? null,
      program: program?.program ?? null,
      apt: sphinx ? "" : SPHINX_APT,
    },
    program,
  };
}
