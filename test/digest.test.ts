// The plain-JavaScript digests (seeds, story hashes, token checks) equal Node's crypto on texts of every padding
// length and on multi-byte UTF-8.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha1Hex, sha256 } from "../lib/text/digest.ts";

const texts = [0, 1, 3, 54, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 70_000].map(
  (n) => "é".repeat(n % 5) + "x".repeat(n) + (n % 2 ? "🎬" : ""),
);

describe("digests", () => {
  it("sha256 equals node:crypto", () => {
    for (const t of texts) {
      expect(Buffer.from(sha256(t)).toString("hex"), `${t.length} chars`).toBe(
        createHash("sha256").update(t, "utf8").digest("hex"),
      );
    }
  });

  it("sha1Hex equals node:crypto", () => {
    for (const t of texts) {
      expect(sha1Hex(t), `${t.length} chars`).toBe(createHash("sha1").update(t, "utf8").digest("hex"));
    }
  });
});
