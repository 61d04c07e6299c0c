// A file's envelope at 200 peaks a second, decoded once: integer PCM wav is read here in 1 MB steps; anything else
// is turned by ffmpeg into 8 kHz mono 16-bit samples in a scratch file, read back the same way. Each step awaits the
// disk, so a half-hour track never holds the event loop, nor sits in memory whole.
import { constants } from "node:fs";
import { type FileHandle, open, rm, stat } from "node:fs/promises";
import { badRequest, StudioError } from "../errors.ts";
import { probe, runFfmpeg } from "../media/ffmpeg.ts";
import { ToolCanceled, ToolRunError } from "../media/tool-runner.ts";
import type { MediaTools } from "../media/tools.ts";
import { errorMessage } from "../store/json-guards.ts";
import type { Envelope } from "./peaks-range.ts";
import { PeakScanner } from "./peaks-scan.ts";
import { type PcmBits, readWavHeader } from "./wav.ts";

const CHUNK = 1 << 20;
/** The rate ffmpeg resamples to: enough for a 1/200 s envelope, 16 KB a second to read back. */
const DECODE_RATE = 8000;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export interface DecodeOptions {
  media: MediaTools;
  /** A path for ffmpeg's samples (removed after), asked for only when ffmpeg is needed; its folder exists. */
  scratch: () => Promise<string>;
  signal?: AbortSignal;
}

/** The envelope of `file` (a real path already checked by the caller). */
export async function decodeEnvelope(file: string, shown: string, opts: DecodeOptions): Promise<Envelope> {
  const handle = await open(file, constants.O_RDONLY | NOFOLLOW);
  try {
    const size = (await handle.stat()).size;
    const wav = await readWavHeader(handle, size);
    if (wav) {
      const peaks = await scan(handle, wav.dataOffset, wav.dataBytes, wav, opts.signal);
      return envelope(wav.dataBytes / wav.blockAlign / wav.sampleRate, peaks);
    }
  } finally {
    await handle.close();
  }
  return decodeWithFfmpeg(file, shown, opts);
}

async function decodeWithFfmpeg(file: string, shown: string, opts: DecodeOptions): Promise<Envelope> {
  const facts = await probe(file, opts.media).catch((err) => {
    // ffprobe ran and could not read it: the file is no sound or video at all, which is the asker's mistake.
    if (err instanceof ToolRunError && err.exitCode !== null) {
      throw badRequest(`path: ${shown} is not a sound or video file ffmpeg can read`);
    }
    throw err;
  });
  if (!facts.audio) return { duration: facts.duration ?? 0, silent: true, peaks: new Uint8Array(0) };
  const scratch = await opts.scratch();
  try {
    const args = ["-v", "error", "-i", file, "-vn", "-sn", "-dn", "-ac", "1", "-ar", String(DECODE_RATE)];
    await runFfmpeg([...args, "-f", "s16le", "-acodec", "pcm_s16le", scratch], {
      media: opts.media,
      signal: opts.signal,
    });
    const bytes = (await stat(scratch)).size;
    const handle = await open(scratch, "r");
    try {
      const format = { sampleRate: DECODE_RATE, channels: 1, bits: 16 as PcmBits };
      const peaks = await scan(handle, 0, bytes - (bytes % 2), format, opts.signal);
      return envelope(Math.floor(bytes / 2) / DECODE_RATE, peaks);
    } finally {
      await handle.close();
    }
  } catch (err) {
    if (err instanceof StudioError || err instanceof ToolCanceled) throw err;
    throw new StudioError(500, `ffmpeg could not decode the sound of ${shown}: ${errorMessage(err)}`);
  } finally {
    await rm(scratch, { force: true });
  }
}

function envelope(duration: number, peaks: Uint8Array): Envelope {
  return { duration, silent: !peaks.some((p) => p > 0), peaks };
}

// Reads `length` bytes from `offset` into one reused buffer, carrying a split frame over to the next read.
async function scan(
  handle: FileHandle,
  offset: number,
  length: number,
  format: { sampleRate: number; channels: number; bits: PcmBits },
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const scanner = new PeakScanner(format, Math.floor(length / frameBytes(format)));
  const buf = new Uint8Array(CHUNK);
  let carry = 0;
  let pos = offset;
  const end = offset + length;
  while (pos < end) {
    if (signal?.aborted) throw new ToolCanceled();
    const want = Math.min(CHUNK - carry, end - pos);
    const { bytesRead } = await handle.read(buf, carry, want, pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const filled = carry + bytesRead;
    const used = scanner.push(buf.subarray(0, filled));
    carry = filled - used;
    buf.copyWithin(0, used, filled);
  }
  return scanner.finish();
}

function frameBytes(format: { channels: number; bits: PcmBits }): number {
  return format.channels * (format.bits / 8);
}
