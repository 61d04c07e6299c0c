// The header of a PCM wav file (8, 16, 24 or 32-bit integer samples), read without ffmpeg so the most common
// recording format is scanned in-process. Anything else (float, RF64, compressed) answers null: ffmpeg reads it.
import type { FileHandle } from "node:fs/promises";

export type PcmBits = 8 | 16 | 24 | 32;

export interface PcmWav {
  channels: number;
  sampleRate: number;
  bits: PcmBits;
  /** Bytes of one frame (every channel's sample). */
  blockAlign: number;
  /** Where the samples start in the file. */
  dataOffset: number;
  /** Bytes of samples, cut to whole frames and to what the file really holds. */
  dataBytes: number;
}

const FORMAT_PCM = 1;
const FORMAT_EXTENSIBLE = 0xfffe;
// Chunks a writer may put before the samples (LIST, fact, bext, junk…): more than this is not a wav worth reading.
const MAX_CHUNKS = 64;

/** The format chunk's PCM facts, or null when the samples are not integer PCM of a width the scanner reads. */
export function parseFmt(fmt: Uint8Array): Pick<PcmWav, "channels" | "sampleRate" | "bits"> | null {
  if (fmt.length < 16) return null;
  const view = new DataView(fmt.buffer, fmt.byteOffset, fmt.byteLength);
  let tag = view.getUint16(0, true);
  const channels = view.getUint16(2, true);
  const sampleRate = view.getUint32(4, true);
  const bits = view.getUint16(14, true);
  // WAVE_FORMAT_EXTENSIBLE names the real format in the first two bytes of its sub-format GUID.
  if (tag === FORMAT_EXTENSIBLE) {
    if (fmt.length < 26) return null;
    tag = view.getUint16(24, true);
  }
  if (tag !== FORMAT_PCM || channels < 1 || sampleRate < 1) return null;
  if (bits !== 8 && bits !== 16 && bits !== 24 && bits !== 32) return null;
  return { channels, sampleRate, bits };
}

/** The PCM wav `handle` holds (`size` bytes long), or null when it is not one this reader takes. */
export async function readWavHeader(handle: FileHandle, size: number): Promise<PcmWav | null> {
  const head = await readAt(handle, 0, 12);
  if (head.length < 12 || ascii(head, 0) !== "RIFF" || ascii(head, 8) !== "WAVE") return null;
  let pos = 12;
  let format: Pick<PcmWav, "channels" | "sampleRate" | "bits"> | null = null;
  for (let i = 0; i < MAX_CHUNKS && pos + 8 <= size; i++) {
    const chunk = await readAt(handle, pos, 8);
    if (chunk.length < 8) return null;
    const id = ascii(chunk, 0);
    const length = new DataView(chunk.buffer, chunk.byteOffset, 8).getUint32(4, true);
    const body = pos + 8;
    if (id === "fmt ") {
      format = parseFmt(await readAt(handle, body, Math.min(length, 64)));
      if (!format) return null;
    } else if (id === "data") {
      if (!format) return null;
      const blockAlign = format.channels * (format.bits / 8);
      // A writer that streamed the file may leave the length 0 or 0xFFFFFFFF: the samples then run to the end.
      const declared = length === 0 || length === 0xffffffff ? size - body : length;
      const bytes = Math.max(0, Math.min(declared, size - body));
      return { ...format, blockAlign, dataOffset: body, dataBytes: bytes - (bytes % blockAlign) };
    }
    // Chunks are padded to an even length.
    pos = body + length + (length % 2);
  }
  return null;
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  const { bytesRead } = await handle.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

function ascii(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
}
