// Checks of the delivery recipes in series.json: problems are build warnings (script format 3.12, 3.13).
import { parseBlur, parseEnhance } from "../post/recipe.ts";
import { isNumber, isObject, oneOf } from "../store/json-guards.ts";
import { parseEncoder, parseQuality, SECTION_KEYS } from "../upscale/settings.ts";

type Obj = Record<string, unknown>;

const SAVE_LATENTS = ["final", "always", "never"];
const DELIVER = new Set(["1080p", "1440p", "4k"]);
const SECTION = new Set<string>(SECTION_KEYS);
const MASTER_KEYS = new Set(["deliver", "fit", "quality", "encoder", "finish", "targets"]);
const POST_KEYS = new Set(["enhance", "motion_blur", "quality", "encoder"]);

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
    if (!comment(k) && !SECTION.has(k)) out.push(`${where} has an unknown key '${k}'`);
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
  checkDelivery(where, master, out);
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

/** The delivery settings a master recipe may carry, checked the way the recipes read them. */
function checkDelivery(where: string, master: Obj, out: string[]): void {
  for (const parsed of [parseQuality(master.quality), parseEncoder(master.encoder)]) {
    if (!parsed.ok) out.push(`${where}.${parsed.error}`);
  }
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
    if (!comment(k) && !POST_KEYS.has(k)) out.push(`${where} has an unknown key '${k}'`);
  }
  // The post recipe is read by the same steps the post route uses, so a warning here is the error a post gets.
  const enhance = parseEnhance(master.enhance);
  if (!enhance.ok) out.push(`${where}.${enhance.error}`);
  if (master.motion_blur !== undefined) {
    const blur = parseBlur(master.motion_blur);
    if (!blur.ok) out.push(`${where}.${blur.error.replace(/^motion blur/, "motion_blur")}`);
  }
  checkDelivery(where, master, out);
  return out;
}
