// The Export menu's file names follow the service's own download rule, and an OTIO answer (parsed as JSON on the
// way in) is saved as the service wrote it.
import { describe, expect, it } from "vitest";
import { downloadName, TIMELINE_FORMATS } from "../lib/timeline/formats.ts";
import { EXPORT_FORMATS, exportFileName, exportText } from "../web/src/views/cut/export-formats.ts";

describe("the Cut view's export formats", () => {
  it("offers every format the service writes, once", () => {
    expect(EXPORT_FORMATS.map((f) => f.id).sort()).toEqual([...TIMELINE_FORMATS].sort());
  });

  it("names a download as the service does", () => {
    for (const name of ["e01", "ep 02", 'a "b"/c', "..hidden", "Épisode 3", ""])
      for (const pass of ["final", "proxy"])
        for (const f of TIMELINE_FORMATS)
          expect(exportFileName(name, pass, f)).toBe(downloadName(name, pass, f));
  });

  it("writes an OTIO answer back as the service's text and keeps other answers as they are", () => {
    const doc = { OTIO_SCHEMA: "Timeline.1", name: "e01 proxy", tracks: { children: [] } };
    expect(exportText(doc)).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    expect(exportText("TITLE: e01\r\n")).toBe("TITLE: e01\r\n");
  });
});
