// The streaming multipart reader: every chunking of a small body parses the same, a boundary's text inside the file
// is data, the upload limit is counted as bytes arrive (413, nothing left behind), a declared length past it is
// refused before reading, memory stays flat while 64 MB stream through, and malformed forms are 400s.
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Form, parseMultipart, readForm, UPLOAD_LIMIT } from "../lib/http/multipart.ts";

const BOUNDARY = "----studioFormBoundary7MA4YWxk";
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "multipart-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Part = { name: string; value: string } | { name: string; filename: string; type?: string; data: Buffer };

function formBody(parts: Part[], boundary = BOUNDARY, preamble = "", epilogue = ""): Buffer {
  const out: Buffer[] = [Buffer.from(preamble)];
  for (const p of parts) {
    out.push(Buffer.from(`${out.length > 1 || preamble ? "\r\n" : ""}--${boundary}\r\n`));
    if ("value" in p) {
      out.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}`));
    } else {
      out.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type ?? "application/octet-stream"}\r\n\r\n`,
        ),
      );
      out.push(p.data);
    }
  }
  out.push(Buffer.from(`\r\n--${boundary}--${epilogue}`));
  return Buffer.concat(out);
}

/** A stream handing out `body` cut at the given offsets. */
function chunked(body: Buffer, cuts: number[]): ReadableStream<Uint8Array> {
  const edges = [0, ...cuts.filter((c) => c > 0 && c < body.length), body.length];
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i >= edges.length - 1) return controller.close();
      controller.enqueue(new Uint8Array(body.subarray(edges[i], edges[i + 1])));
      i++;
    },
  });
}

const parse = (stream: ReadableStream<Uint8Array>, limits = {}) =>
  parseMultipart(stream, BOUNDARY, { tmpDir: dir, fileField: "file", limits });

async function refusal(p: Promise<Form>): Promise<{ status: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return { status: (err as { status: number }).status, message: (err as Error).message };
  }
  throw new Error("expected a refusal");
}

// File data holding the boundary's text, a delimiter missing its line end, and one with a wrong last byte.
const tricky = Buffer.concat([
  Buffer.from("PNG\r\n"),
  Buffer.from(BOUNDARY),
  Buffer.from(`\n--${BOUNDARY}\r--${BOUNDARY}\r\n--${BOUNDARY.slice(0, -1)}X\r\n\r\n`),
  randomBytes(40),
  Buffer.from("\r\n-"),
]);

describe("parseMultipart", () => {
  it("reads the same fields and file at every split of a small body, and in one-byte chunks", async () => {
    const body = formBody([
      { name: "ep", value: "/shows/a/ep01" },
      { name: "ref", value: "subject:ada" },
      { name: "note", value: "café ✓" },
      { name: "file", filename: "ada.png", type: "image/png", data: tricky },
      { name: "pick", value: "1" },
    ]);
    const cuttings = [
      ...Array.from({ length: body.length + 1 }, (_, i) => [i]),
      Array.from({ length: body.length }, (_, i) => i),
      [3, 17, 60, 61, 62, 200, body.length - 5],
    ];
    for (const cuts of cuttings) {
      const form = await parse(chunked(body, cuts));
      expect({ ...form.fields }).toEqual({
        ep: "/shows/a/ep01",
        ref: "subject:ada",
        note: "café ✓",
        pick: "1",
      });
      expect(form.file).toMatchObject({
        field: "file",
        name: "ada.png",
        type: "image/png",
        size: tricky.length,
      });
      expect((await readFile(form.file?.path ?? "")).equals(tricky)).toBe(true);
      await form.discard();
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("skips a preamble and an epilogue, and reads a part with an empty value", async () => {
    const body = formBody(
      [
        { name: "view", value: "" },
        { name: "file", filename: "empty.png", data: Buffer.alloc(0) },
      ],
      BOUNDARY,
      "this is a preamble\r\n",
      "\r\nand an epilogue",
    );
    const form = await parse(chunked(body, [7]));
    expect({ ...form.fields }).toEqual({ view: "" });
    expect(form.file?.size).toBe(0);
    await form.discard();
  });

  it("keeps only the file's own name, and decodes filename*", async () => {
    const body = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="C:\\\\pics\\\\old.png"; filename*=UTF-8''%C3%A9t%C3%A9%20%22a%22.png\r\n\r\nxx\r\n--${BOUNDARY}--`,
    );
    const form = await parse(chunked(body, []));
    expect(form.file?.name).toBe('été "a".png');
    await form.discard();
    const plain = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="C:\\\\pics\\\\old.png"\r\n\r\nxx\r\n--${BOUNDARY}--`,
    );
    const second = await parse(chunked(plain, []));
    expect(second.file?.name).toBe("old.png");
    await second.discard();
  });

  it("refuses malformed forms with 400 and leaves no temporary behind", async () => {
    const cases: [Buffer, RegExp][] = [
      [
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\ncut short`,
        ),
        /ended before its closing boundary/,
      ],
      [Buffer.from(`--${BOUNDARY}\r\nX-Other: 1\r\n\r\nv\r\n--${BOUNDARY}--`), /no Content-Disposition/],
      [
        formBody([
          { name: "ep", value: "a" },
          { name: "ep", value: "b" },
        ]),
        /"ep" is sent twice/,
      ],
      [formBody([{ name: "photo", filename: "a.png", data: Buffer.from("x") }]), /send the file as "file"/],
      [
        formBody([
          { name: "file", filename: "a.png", data: Buffer.from("x") },
          { name: "file", filename: "b.png", data: Buffer.from("y") },
        ]),
        /"file" is sent twice/,
      ],
      [formBody([{ name: "note", value: "x".repeat(70_000) }]), /longer than 65536 bytes/],
      [Buffer.from(`--${BOUNDARY}junk\r\n`), /not followed by a line end/],
      [
        Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: attachment\r\n\r\nv\r\n--${BOUNDARY}--`),
        /with a name/,
      ],
      [
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="n"\r\n\r\n\xff\xfe\r\n--${BOUNDARY}--`,
          "latin1",
        ),
        /not UTF-8/,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await refusal(parse(chunked(body, [5, 40])));
      expect(r.status).toBe(400);
      expect(r.message).toMatch(message);
    }
    const many = formBody(Array.from({ length: 40 }, (_, i) => ({ name: `f${i}`, value: "v" })));
    expect((await refusal(parse(chunked(many, [])))).message).toMatch(/more than 32 parts/);
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses an upload past the limit as its bytes arrive (413) and removes the temporary", async () => {
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\n\r\n`,
    );
    const chunk = new Uint8Array(1024 * 1024).fill(7);
    let sent = 0;
    let seenTemp = false;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 0) controller.enqueue(new Uint8Array(head));
        if (sent === 32) seenTemp = (await readdir(dir)).length === 1;
        sent++;
        controller.enqueue(chunk.slice());
      },
    });
    const r = await refusal(parse(stream));
    expect(r).toEqual({ status: 413, message: "upload: larger than 64 MB" });
    expect(seenTemp).toBe(true);
    // It stopped reading right past the limit: 64 chunks of file, and one more that crossed it.
    expect(sent).toBeLessThanOrEqual(UPLOAD_LIMIT / chunk.length + 2);
    expect(await readdir(dir)).toEqual([]);
  });

  it("answers 400 when the upload breaks off mid-file, and removes the temporary", async () => {
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`,
    );
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        if (pulls === 1) controller.enqueue(new Uint8Array(head));
        else if (pulls < 4) controller.enqueue(new Uint8Array(4096).fill(1));
        else controller.error(new Error("socket hang up"));
      },
    });
    const r = await refusal(parse(stream));
    expect(r).toEqual({ status: 400, message: "body: the upload stopped before its end (socket hang up)" });
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses a declared length over 64 MB + 1 MiB before reading anything", async () => {
    let pulled = false;
    // No high-water mark: the stream is pulled only when someone reads it.
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled = true;
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const request = new Request("http://127.0.0.1/x", {
      method: "POST",
      body,
      headers: {
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
        "content-length": String(65 * 1024 * 1024 + 1),
      },
      duplex: "half",
    } as RequestInit);
    const r = await refusal(readForm(request, { tmpDir: dir, fileField: "file" }));
    expect(r.status).toBe(413);
    expect(pulled).toBe(false);
    const noBoundary = new Request("http://127.0.0.1/x", {
      method: "POST",
      body: "x",
      headers: { "content-type": "multipart/form-data" },
    });
    expect(await refusal(readForm(noBoundary, { tmpDir: dir, fileField: "file" }))).toEqual({
      status: 400,
      message: "body: multipart/form-data without a boundary",
    });
  });

  it("streams a 64 MB file to disk as it arrives: memory grows by far less than the file", async () => {
    const size = UPLOAD_LIMIT - 1024;
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="ep"\r\n\r\n/x\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    const piece = 64 * 1024;
    const half = 32 * 1024 * 1024;
    let sent = 0;
    let onDiskAtHalf = -1;
    const base = process.memoryUsage();
    let peakRss = base.rss;
    let peakHeap = base.heapUsed + base.arrayBuffers;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 0) controller.enqueue(new Uint8Array(head));
        if (sent >= size) {
          controller.enqueue(new Uint8Array(tail));
          controller.close();
          return;
        }
        if (sent === half) {
          // Half the file has been handed over: it must be on disk already, not waiting in memory.
          const [name] = await readdir(dir);
          onDiskAtHalf = name ? (await stat(path.join(dir, name))).size : 0;
        }
        const n = Math.min(piece, size - sent);
        // A fresh buffer per chunk, as a socket hands them out; a recognisable byte pattern for the check below.
        const chunk = new Uint8Array(n).fill((sent / piece) & 0xff);
        sent += n;
        controller.enqueue(chunk);
        if ((sent / piece) % 64 === 0) {
          const m = process.memoryUsage();
          peakRss = Math.max(peakRss, m.rss);
          peakHeap = Math.max(peakHeap, m.heapUsed + m.arrayBuffers);
        }
      },
    });
    const form = await parse(stream);
    expect(form.file?.size).toBe(size);
    expect(onDiskAtHalf).toBeGreaterThanOrEqual(half - 2 * piece);
    const written = await readFile(form.file?.path ?? "");
    expect(written.length).toBe(size);
    expect(written[5 * piece + 3]).toBe(5);
    expect(written[size - 1]).toBe(Math.floor((size - 1) / piece) & 0xff);
    await form.discard();
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    console.log(
      `multipart: ${mb(size)} MB streamed; resident memory grew by at most ${mb(peakRss - base.rss)} MB, heap + buffers by at most ${mb(peakHeap - base.heapUsed - base.arrayBuffers)} MB`,
    );
    expect(peakRss - base.rss).toBeLessThan(size);
    // Chunks written out are collected as the body streams: left to V8's own trigger they pile up past 25 MB.
    expect(peakHeap - base.heapUsed - base.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
  });
});
