// The episode id of a script, read from its `= <id>  <title>` header line without parsing the rest.

const NEWLINES = /\r\n|\r|\n/;

/** The episode id of a script's header (the last `= <id>  <title>` line wins), or null (script format 2.3). */
export function headerId(text: string): string | null {
  let id: string | null = null;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const raw of body.split(NEWLINES)) {
    const line = raw.trimEnd();
    if (!line.startsWith("= ")) continue;
    const rest = line.slice(2).trim();
    if (rest !== "") id = rest.split(/\s+/)[0];
  }
  return id;
}
