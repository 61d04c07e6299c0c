// Unsaved text kept per episode and file: written, read back, refused storage survived, and the choice on opening
// between the disk's text and a kept draft (with whether the disk changed under it).
import { describe, expect, it } from "vitest";
import { diffLines } from "../web/src/views/script/diff-lines.ts";
import {
  clearDraft,
  type DraftStore,
  draftKey,
  opening,
  readDraft,
  writeDraft,
} from "../web/src/views/script/drafts.ts";

function memory(): DraftStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

describe("drafts", () => {
  it("are kept per episode and file, and cleared", () => {
    const store = memory();
    expect(writeDraft(store, "/s/ep01", "script", { text: "a", base: "h1", at: 5 })).toBe(true);
    writeDraft(store, "/s/ep01", "series", { text: "{}", base: "h2", at: 6 });
    writeDraft(store, "/s/ep02", "script", { text: "b", base: "h3", at: 7 });
    expect(readDraft(store, "/s/ep01", "script")).toEqual({ text: "a", base: "h1", at: 5 });
    expect(readDraft(store, "/s/ep01", "series")?.text).toBe("{}");
    expect(readDraft(store, "/s/ep02", "script")?.base).toBe("h3");
    clearDraft(store, "/s/ep01", "script");
    expect(readDraft(store, "/s/ep01", "script")).toBeNull();
    expect(store.map.size).toBe(2);
  });

  it("read nothing from a broken or foreign value, and survive storage that refuses", () => {
    const store = memory();
    store.map.set(draftKey("/e", "script"), "{not json");
    expect(readDraft(store, "/e", "script")).toBeNull();
    store.map.set(draftKey("/e", "script"), JSON.stringify({ text: 3, base: "h" }));
    expect(readDraft(store, "/e", "script")).toBeNull();
    const refusing: DraftStore = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("quota");
      },
      removeItem: () => {
        throw new Error("denied");
      },
    };
    expect(writeDraft(refusing, "/e", "script", { text: "x", base: "h", at: 1 })).toBe(false);
    expect(readDraft(refusing, "/e", "script")).toBeNull();
    expect(() => clearDraft(refusing, "/e", "script")).not.toThrow();
  });

  it("open the disk's text unless a draft differs from it, and say when the disk changed under the draft", () => {
    const disk = { text: "saved", hash: "h1" };
    expect(opening(null, disk)).toEqual({ kind: "disk" });
    expect(opening({ text: "saved", base: "h0", at: 1 }, disk)).toEqual({ kind: "disk" });
    const typed = { text: "typed", base: "h1", at: 1 };
    expect(opening(typed, disk)).toEqual({ kind: "restored", draft: typed, diskChanged: false });
    expect(opening({ ...typed, base: "h0" }, disk)).toMatchObject({ kind: "restored", diskChanged: true });
  });
});

describe("diff lines", () => {
  it("sorts a unified diff's lines for colouring", () => {
    const diff = "--- a/ep01.md\n+++ b/ep01.md\n@@ -3,2 +3,3 @@\n ## sh010\n+target: ltx2\n-dur: 2\n";
    expect(diffLines(diff).map((l) => l.kind)).toEqual(["file", "file", "hunk", "same", "add", "del"]);
    expect(diffLines("")).toEqual([]);
  });
});
