// Checks of the delivery recipes in series.json: problems are build warnings (script format 3.12, 3.13).
import { isNumber, isObject, oneOf } from "../store/json-guards.ts";

type Obj = Record<string, unknown>;

const SAVE_LATENTS = ["final", "always", "never"];
const DELIVER = new Set(["1080p", "1440p", "4k"]);
const SECTION_KEYS = new Set([
  "method",
  "scale",
  "detail",
  "start_step",
  "vae",
  "pixel_model",
  "seedvr2_model",
  "then",
  "then_scale",
  "precision",
  "frequency_split",
  "keep_soft",
  "grain",
  "window",
]);
const MASTER_KEYS = new Set(["deliver", "fit", "quality", "encoder", "finish", "targets"]);
const TIERS = new Set(["draft", "production", "cinematic"]);
const ENHANCE_METHODS = new Set(["pixel", "seedvr2", "supir"]);
const ENHANCE_KEYS = new Set([
  "tier",
  "method",
  "pixel_model",
  "seedvr2_model",
  "chunk",
  "overlap",
  "strength",
  "supir_model",
  "checkpoint",
  "steps",
  "cfg",
  "prompt",
  "batch",
  "restore_cfg",
  "frequency_split",
  "keep_soft",
  "grain",
]);

const show = (v: unknown) => JSON.stringify(v);
const comment = (k: string) => k.startsWith("_");

function inRange(v: unknown, lo: number, hi: number, openLow = false): boolean {
  return isNumber(v) && (openLow ? v > lo : v >= lo) && v <= hi;
}

export function checkSection(where: string, s: unknown, out: string[]): void {
  if (!isObject(s)) {
    out.push(`${where} must be an object`);
    return;
  }
  for (const k of Object.keys(s))
    if (!comment(k) && !SECTION_KEYS.has(k)) out.push(`${where} has an unknown key '${k}'`);
  const method = s.method ?? "latent";
  if (!oneOf(["latent", "pixel", "seedvr2"], method)) {
    out.push(`${where}.method ${show(s.method)} is not latent, pixel or seedvr2`);
  }
  if (s.scale !== undefined) {
    if (s.scale === "auto") {
      if (method !== "latent" || s.then !== undefined) {
        out.push(`${where}.scale "auto" is only for a latent re-sample without \`then\``);
      }
    } else if (!inRange(s.scale, 1, 4, true))
      out.push(`${where}.scale ${show(s.scale)} must be in (1, 4] or "auto"`);
  }
  if (s.detail !== undefined && s.detail !== 0 && s.detail !== 1 && s.detail !== 2)
    out.push(`${where}.detail must be 0, 1 or 2`);
  if (
    s.start_step !== undefined &&
    !(isNumber(s.start_step) && Number.isInteger(s.start_step) && s.start_step >= 0)
  ) {
    out.push(`${where}.start_step must be a whole number`);
  }
  for (const k of ["vae", "pixel_model", "seedvr2_model"]) {
    if (s[k] !== undefined && typeof s[k] !== "string") out.push(`${where}.${k} must be a file name`);
  }
  if (s.then !== undefined) {
    if (typeof s.then !== "string" || s.then.trim() === "")
      out.push(`${where}.then must be an upscale-model file or "seedvr2"`);
    else if (method !== "latent") out.push(`${where}.then only follows method latent`);
  }
  if (s.then_scale !== undefined && !inRange(s.then_scale, 1, 4, true))
    out.push(`${where}.then_scale must be in (1, 4]`);
  if (s.precision !== undefined && s.precision !== "fp16" && s.precision !== "fp32") {
    out.push(`${where}.precision must be fp16 or fp32`);
  }
  if (s.frequency_split !== undefined && typeof s.frequency_split !== "boolean") {
    out.push(`${where}.frequency_split must be true or false`);
  }
  if (s.keep_soft !== undefined && !inRange(s.keep_soft, 0, 1))
    out.push(`${where}.keep_soft must be from 0 to 1`);
  if (s.grain !== undefined && !inRange(s.grain, 0, 0.2)) out.push(`${where}.grain must be from 0 to 0.2`);
  if (s.window !== undefined && !(s.window === 0 || inRange(s.window, 2, 30))) {
    out.push(`${where}.window must be 0 (off) or 2 to 30 seconds`);
  }
}

function checkDeliver(v: unknown): boolean {
  if (typeof v !== "string") return false;
  if (DELIVER.has(v.toLowerCase())) return true;
  const m = /^(\d+)x(\d+)$/i.exec(v.trim());
  if (!m) return false;
  return [Number(m[1]), Number(m[2])].every((n) => n % 2 === 0 && n >= 64 && n <= 8192);
}

export function checkUpscale(raw: Obj): string[] {
  const out: string[] = [];
  const up = raw.upscale;
  if (up === undefined || up === null) return out;
  if (!isObject(up)) return ["series.json upscale must be an object"];
  if (up.save_latents !== undefined && !oneOf(SAVE_LATENTS, up.save_latents)) {
    out.push(
      `series.json upscale.save_latents ${show(up.save_latents)} is not final, always or never: treated as final`,
    );
  }
  const master = up.master;
  if (master === undefined || master === null) return out;
  const where = "series.json upscale.master";
  if (!isObject(master)) return [...out, `${where} must be an object`];
  for (const k of Object.keys(master))
    if (!comment(k) && !MASTER_KEYS.has(k)) out.push(`${where} has an unknown key '${k}'`);
  if (master.deliver !== undefined && !checkDeliver(master.deliver)) {
    out.push(`${where}.deliver ${show(master.deliver)} is not 1080p, 1440p, 4k or WxH (even sides, 64-8192)`);
  }
  if (master.fit !== undefined && master.fit !== "crop" && master.fit !== "pad")
    out.push(`${where}.fit must be crop or pad`);
  if (master.quality !== undefined && master.quality !== "review" && master.quality !== "master") {
    out.push(`${where}.quality must be review or master`);
  }
  if (master.encoder !== undefined && !oneOf(["auto", "nvenc", "x264"], master.encoder)) {
    out.push(`${where}.encoder must be auto, nvenc or x264`);
  }
  if (master.finish !== undefined) checkSection(`${where}.finish`, master.finish, out);
  const targets = master.targets;
  if (!isObject(targets) || Object.keys(targets).filter((k) => !comment(k)).length === 0) {
    out.push(`${where}.targets is required: an object of target ids or globs to sections`);
  } else {
    for (const [k, v] of Object.entries(targets))
      if (!comment(k)) checkSection(`${where}.targets.${k}`, v, out);
  }
  return out;
}

function checkEnhance(where: string, v: unknown, out: string[]): void {
  if (typeof v === "string") {
    const t = v.toLowerCase();
    if (!TIERS.has(t) && !ENHANCE_METHODS.has(t) && t !== "none" && t !== "off") {
      out.push(
        `${where} ${show(v)} is not a tier (draft, production, cinematic), a method (pixel, seedvr2, supir) or none`,
      );
    }
    return;
  }
  if (!isObject(v)) {
    out.push(`${where} must be a tier, a method, an object or none`);
    return;
  }
  for (const k of Object.keys(v))
    if (!comment(k) && !ENHANCE_KEYS.has(k)) out.push(`${where} has an unknown key '${k}'`);
  if (v.tier === undefined && v.method === undefined) out.push(`${where} needs a tier or a method`);
  if (v.tier !== undefined && !(typeof v.tier === "string" && TIERS.has(v.tier)))
    out.push(`${where}.tier must be draft, production or cinematic`);
  if (v.method !== undefined && !(typeof v.method === "string" && ENHANCE_METHODS.has(v.method)))
    out.push(`${where}.method must be pixel, seedvr2 or supir`);
  if (v.chunk !== undefined) {
    const c = v.chunk;
    const ok = c === 0 || c === "fit" || (isNumber(c) && Number.isInteger(c) && c >= 5 && (c - 1) % 4 === 0);
    if (!ok) out.push(`${where}.chunk must be 0, "fit" or 4n+1 frames (5 or more)`);
  }
  if (
    v.overlap !== undefined &&
    !(isNumber(v.overlap) && Number.isInteger(v.overlap) && inRange(v.overlap, 0, 16))
  ) {
    out.push(`${where}.overlap must be a whole number from 0 to 16`);
  }
  if (v.strength !== undefined && !inRange(v.strength, 0.05, 0.5))
    out.push(`${where}.strength must be from 0.05 to 0.5`);
  if (v.keep_soft !== undefined && !inRange(v.keep_soft, 0, 1))
    out.push(`${where}.keep_soft must be from 0 to 1`);
  if (v.grain !== undefined && !inRange(v.grain, 0, 0.2)) out.push(`${where}.grain must be from 0 to 0.2`);
}

export function checkPost(raw: Obj): string[] {
  const out: string[] = [];
  const post = raw.post;
  if (post === undefined || post === null) return out;
  if (!isObject(post)) return ["series.json post must be an object"];
  const master = post.master;
  if (master === undefined || master === null) return out;
  const where = "series.json post.master";
  if (!isObject(master)) return [`${where} must be an object`];
  for (const k of Object.keys(master)) {
    if (!comment(k) && k !== "enhance" && k !== "motion_blur") out.push(`${where} has an unknown key '${k}'`);
  }
  if (master.enhance !== undefined) checkEnhance(`${where}.enhance`, master.enhance, out);
  if (master.motion_blur !== undefined && !inRange(master.motion_blur, 0, 1)) {
    out.push(`${where}.motion_blur must be a number from 0 to 1 (a fraction of the frame interval)`);
  }
  return out;
}
