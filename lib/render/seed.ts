// The seed a take renders with (script format 4.17, targets 3.11): typed → override-pinned (unless a new
// seed is asked for) → the same seed (the parent take's when one is named, else the built one) → a new 53-bit
// seed (`new`, or `auto` once the shot has a usable take) → the built seed.
import { newSeed53 } from "../script/seeds.ts";
import type { SeedMode } from "./request.ts";

export interface SeedInputs {
  typed: bigint | null;
  /** The shot's override seed for its target. */
  pinned: bigint | null;
  /** The built entry's stable seed. */
  built: bigint | null;
  mode: SeedMode;
  /** The shot already has a usable take on the target it renders on. */
  hasUsable: boolean;
  /** `parent_take` with its recorded seed, when the request names one that has a seed. */
  parent: { take: number; seed: bigint } | null;
}

export interface SeedChoice {
  seed: bigint;
  /** `typed`, `override`, `take:N`, `stable` or `new`. */
  source: string;
}

export function chooseSeed(i: SeedInputs): SeedChoice {
  if (i.typed !== null) return { seed: i.typed, source: "typed" };
  if (i.pinned !== null && i.mode !== "new") return { seed: i.pinned, source: "override" };
  if (i.mode === "same") {
    if (i.parent) return { seed: i.parent.seed, source: `take:${i.parent.take}` };
    if (i.built !== null) return { seed: i.built, source: "stable" };
  }
  if (i.mode === "new" || (i.mode === "auto" && i.hasUsable) || i.built === null) {
    return { seed: newSeed53(), source: "new" };
  }
  return { seed: i.built, source: "stable" };
}

/** A recorded seed (bigint from a sidecar, a safe number, or digit text), else null. */
export function seedValue(v: unknown): bigint | null {
  if (typeof v === "bigint") return v >= 0n ? v : null;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^\d+$/.test(v.trim())) return BigInt(v.trim());
  return null;
}
