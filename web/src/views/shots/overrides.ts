// A shot's override as form text and back: each field shown as the person typed it, and only the fields changed
// sent to PUT /studio/override (a blank field clears its override).

export const OVERRIDE_FORM_FIELDS = [
  "prompt",
  "negative",
  "seed",
  "steps",
  "model",
  "loras",
  "size",
  "note",
  "target",
] as const;
export type OverrideField = (typeof OVERRIDE_FORM_FIELDS)[number];
export type OverrideText = Record<OverrideField, string>;

/** Fields kept per pass (`both` sets them on the two passes); the others are shared by both passes. */
export const PASS_FIELDS: readonly OverrideField[] = [
  "prompt",
  "negative",
  "steps",
  "model",
  "loras",
  "size",
];

function loraText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && "name" in v) {
    const { name, strength } = v as { name: unknown; strength?: unknown };
    return typeof strength === "number" ? `${name}:${strength}` : String(name);
  }
  return "";
}

function asText(field: OverrideField, v: unknown): string {
  if (v === null || v === undefined) return "";
  if (field === "loras" && Array.isArray(v)) return v.map(loraText).filter(Boolean).join(", ");
  if (field === "size" && Array.isArray(v)) return v.join("x");
  return String(v);
}

/** The override of `GET /studio/shot` as the form's text. */
export function overrideText(override: Record<string, unknown>): OverrideText {
  const text = {} as OverrideText;
  for (const f of OVERRIDE_FORM_FIELDS) text[f] = asText(f, override[f]);
  return text;
}

/** PUT /studio/override's `fields` for what changed from `before` to `after`; empty when nothing did. */
export function overrideChange(before: OverrideText, after: OverrideText): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const f of OVERRIDE_FORM_FIELDS) {
    const was = before[f];
    const now = f === "prompt" || f === "negative" || f === "note" ? after[f] : after[f].trim();
    if (now === was) continue;
    if (now.trim() === "") fields[f] = null;
    // Text that is not a number goes as typed, so the service's refusal names the field.
    else if (f === "steps") fields[f] = Number.isFinite(Number(now)) ? Number(now) : now;
    else if (f === "loras")
      fields[f] = now
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    else fields[f] = now;
  }
  return fields;
}
