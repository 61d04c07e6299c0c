// Python behaviours the real server leaks onto the wire: value conversions and reprs used in validation
// messages, heapq ordering of the queue, and floats that serialise as `5.0`.

/** Marks a number that Python held as a float, so JSON shows `5.0` rather than `5`. */
export class PyFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

/** Python's `repr()` of a JSON-ish value (single-quoted strings, True/False/None). */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return pyNumber(v, !Number.isInteger(v));
  if (typeof v === "string") {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t");
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (typeof v === "object") {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(", ")}}`;
  }
  return String(v);
}

/** Python's `str()`: strings stay bare, everything else is its repr. */
export function pyStr(v: unknown): string {
  return typeof v === "string" ? v : pyRepr(v);
}

/** Format a number the way Python prints an int or a float. */
export function pyNumber(n: number, isFloat: boolean): string {
  if (!isFloat) return String(n);
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n}.0`;
  return String(n);
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return "dict";
  return typeof v;
}

/** Python `int(v)`; throws with Python's message when it would raise. */
export function pyInt(v: unknown): number {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") {
    if (Number.isNaN(v)) throw new Error("cannot convert float NaN to integer");
    if (!Number.isFinite(v)) throw new Error("cannot convert float infinity to integer");
    return Math.trunc(v);
  }
  if (typeof v === "string") {
    if (/^\s*[+-]?\d+(_\d+)*\s*$/.test(v)) return Number.parseInt(v.replace(/_/g, ""), 10);
    throw new Error(`invalid literal for int() with base 10: ${pyRepr(v)}`);
  }
  throw new Error(
    `int() argument must be a string, a bytes-like object or a real number, not '${typeName(v)}'`,
  );
}

/** Python `float(v)`. */
export function pyFloat(v: unknown): number {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return v;
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (/^[+-]?(\d[\d_]*\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(s)) return Number(s.replace(/_/g, ""));
    if (/^[+-]?(inf|infinity)$/.test(s)) return s.startsWith("-") ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(s)) return Number.NaN;
    throw new Error(`could not convert string to float: ${pyRepr(v)}`);
  }
  throw new Error(`float() argument must be a string or a real number, not '${typeName(v)}'`);
}

/** Python truthiness (`bool(v)`). */
export function pyBool(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v as object).length > 0;
  return true;
}

/** JSON text with PyFloat markers written as Python floats. */
export function pyJson(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_k, v) => {
    if (v instanceof PyFloat) {
      marks.push(pyNumber(v.value, true).replace("inf", "Infinity"));
      return `\u0000pyfloat${marks.length - 1}\u0000`;
    }
    return v;
  });
  return text.replace(/"\\u0000pyfloat(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)]);
}

/** Python's heapq over items compared by `less`. */
export class PyHeap<T> {
  items: T[] = [];
  private readonly less: (a: T, b: T) => boolean;
  constructor(less: (a: T, b: T) => boolean) {
    this.less = less;
  }

  push(item: T): void {
    this.items.push(item);
    this.siftDown(0, this.items.length - 1);
  }

  pop(): T | undefined {
    const last = this.items.pop();
    if (last === undefined || this.items.length === 0) return last;
    const top = this.items[0];
    this.items[0] = last;
    this.siftUp(0);
    return top;
  }

  heapify(): void {
    for (let i = Math.floor(this.items.length / 2) - 1; i >= 0; i--) this.siftUp(i);
  }

  private siftDown(start: number, pos: number): void {
    const heap = this.items;
    const item = heap[pos];
    while (pos > start) {
      const parentPos = (pos - 1) >> 1;
      const parent = heap[parentPos];
      if (this.less(item, parent)) {
        heap[pos] = parent;
        pos = parentPos;
        continue;
      }
      break;
    }
    heap[pos] = item;
  }

  private siftUp(pos: number): void {
    const heap = this.items;
    const end = heap.length;
    const start = pos;
    const item = heap[pos];
    let child = 2 * pos + 1;
    while (child < end) {
      const right = child + 1;
      if (right < end && !this.less(heap[child], heap[right])) child = right;
      heap[pos] = heap[child];
      pos = child;
      child = 2 * pos + 1;
    }
    heap[pos] = item;
    this.siftDown(start, pos);
  }
}

/** Python string comparison (code points). */
export function pyStrLess(a: string, b: string): boolean {
  const A = [...a];
  const B = [...b];
  for (let i = 0; i < Math.min(A.length, B.length); i++) {
    const x = A[i].codePointAt(0)!;
    const y = B[i].codePointAt(0)!;
    if (x !== y) return x < y;
  }
  return A.length < B.length;
}
