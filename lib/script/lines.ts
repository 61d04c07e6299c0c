// The line patterns of the script format (2.2, 2.5, 2.6): shared by the parser and its near-miss warnings.

/** A dialogue line: an upper-case name, an optional parenthetical, a colon and the words spoken. */
export const DIALOGUE = /^([A-Z][A-Z0-9_ '-]*?)\s*(?:\(([^)]*)\))?\s*:\s*(.+)$/;
/** A key line: a lower-case key, a colon and its value. */
export const KEY_LINE = /^([a-z_]+)\s*:\s*(.*)$/;

export const KNOWN_KEYS: ReadonlySet<string> = new Set(
  (
    "who cast with props size audio dur duration camera sound music policy continuous text pace plate " +
    "retention model lora steps extras target profile first last overlap"
  ).split(" "),
);
