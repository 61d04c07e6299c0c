// Python number semantics the reference's output depends on: round() ties to even, float()/int() text parsing.

/** Python's `round(x)`: the nearest integer, exact ties to the even one (22.5 → 22, 23.5 → 24). */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const floor = Math.floor(x);
  // The fractional part of a double is always exactly representable, so `=== 0.5` is an exact tie test.
  const frac = x - floor;
  let r: number;
  if (frac < 0.5) r = floor;
  else if (frac > 0.5) r = floor + 1;
  else r = floor % 2 === 0 ? floor : floor + 1;
  return r === 0 ? 0 : r;
}

/**
 * Python's `round(x, digits)` for digits >= 0: correctly rounded on the exact binary value, exact ties to even
 * (`round(2.675, 2)` is 2.67 because 2.675 is really 2.67499…; `round(0.125, 2)` is 0.12).
 */
export function roundHalfEvenTo(x: number, digits: number): number {
  if (!Number.isFinite(x) || !Number.isInteger(digits) || digits < 0 || digits > 100) return x;
  if (digits === 0) return roundHalfEven(x);
  const tie = exactTie(Math.abs(x), digits);
  // toFixed rounds the exact value correctly and only disagrees with Python on exact ties (it goes away from 0).
  if (tie === null) {
    const r = Number(x.toFixed(digits));
    return r === 0 ? 0 * Math.sign(x) : r;
  }
  const even = tie % 2n === 0n ? tie : tie + 1n;
  const text = even.toString().padStart(digits + 1, "0");
  const r = Number(`${text.slice(0, -digits)}.${text.slice(-digits)}`);
  return x < 0 ? -r : r;
}

/** For an exact tie of `|x| * 10^digits` (fraction exactly .5) the lower integer, else null. */
function exactTie(ax: number, digits: number): bigint | null {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, ax);
  const bits = view.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let exp: number;
  if (expBits === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = expBits - 1075;
  }
  if (mant === 0n || exp >= 0) return null;
  // 2·x·10^d = mant·5^d·2^(d+1+exp) must be an odd integer.
  const shift = BigInt(-exp - digits - 1);
  const num = mant * 5n ** BigInt(digits);
  if (shift < 0n) return null;
  const den = 1n << shift;
  if (num % den !== 0n) return null;
  const twice = num / den;
  return twice % 2n === 1n ? (twice - 1n) / 2n : null;
}

const PY_FLOAT = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_INT = /^[+-]?\d(?:_?\d)*$/;

/** Python's `float(text)` for finite decimal text (surrounding whitespace allowed); null where it would fail. */
export function parsePyFloat(text: string): number | null {
  const t = text.trim();
  if (!PY_FLOAT.test(t)) return null;
  const n = Number(t.replaceAll("_", ""));
  return Number.isFinite(n) ? n : null;
}

/** Python's `int(text)` for decimal text; null where it would fail (`"3.0"`, `"eight"`). */
export function parsePyInt(text: string): number | null {
  const t = text.trim();
  if (!PY_INT.test(t)) return null;
  const n = Number(t.replaceAll("_", ""));
  return Number.isSafeInteger(n) ? n : null;
}
