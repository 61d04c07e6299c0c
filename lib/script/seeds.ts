// Shot seeds: 63-bit, derived from ids only, so an untouched shot re-renders identically (script format 4.8).
import { sha256 } from "../text/digest.ts";

export const MAX_SEED = (1n << 63n) - 1n;
const MASK_53 = (1n << 53n) - 1n;
const DECIMAL = /^\d+$/;

/** First 8 bytes of SHA-256(`ep::seq::shot`), big-endian, top bit cleared. */
export function shotSeed(ep: string, seq: string, shot: string): bigint {
  const digest = sha256(`${ep}::${seq}::${shot}`);
  return new DataView(digest.buffer).getBigUint64(0) & MAX_SEED;
}

/** A fresh random seed that is still exact as a JavaScript number (render-time "new seed"). */
export function newSeed53(): bigint {
  return new DataView(crypto.getRandomValues(new Uint8Array(8)).buffer).getBigUint64(0) & MASK_53;
}

/** A seed typed as decimal text (editor APIs pass seeds as strings); null unless it is within 0..2^63-1. */
export function parseSeed(text: string): bigint | null {
  const t = text.trim();
  if (!DECIMAL.test(t) || t.length > 25) return null;
  const n = BigInt(t);
  return n <= MAX_SEED ? n : null;
}
