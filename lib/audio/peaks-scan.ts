// Turns little-endian integer PCM, fed in chunks of any size, into one peak byte per 1/200 s: the loudest sample of
// the slice over every channel, as round(|sample| / 32767 × 255) on the 16-bit scale. Node-free, so it is tested on
// plain arrays and a long file never has to be held whole.
import type { PcmBits } from "./wav.ts";

/** Peaks per second of sound, the rate every cached envelope has. */
export const PEAK_RATE = 200;

/** A loudness on the 16-bit scale (0..32768) as a peak byte. */
export function peakByte(level: number): number {
  return Math.min(255, Math.round((level / 32767) * 255));
}

export class PeakScanner {
  private readonly sampleRate: number;
  private readonly channels: number;
  private readonly bits: PcmBits;
  private readonly out: Uint8Array;
  private frame = 0;
  private bin = 0;
  private boundary: number;
  private level = 0;

  /** `frames`: how many frames will be fed (the envelope is sized for them; more are ignored). */
  constructor(format: { sampleRate: number; channels: number; bits: PcmBits }, frames: number) {
    this.sampleRate = format.sampleRate;
    this.channels = format.channels;
    this.bits = format.bits;
    this.out = new Uint8Array(Math.ceil((frames * PEAK_RATE) / format.sampleRate));
    this.boundary = this.edge(1);
  }

  /** Bytes of one frame. */
  get blockAlign(): number {
    return this.channels * (this.bits / 8);
  }

  /** Scan the whole frames at the start of `bytes`; answers how many bytes that was (the rest waits for more). */
  push(bytes: Uint8Array): number {
    const block = this.blockAlign;
    const frames = Math.floor(bytes.length / block);
    const view = new DataView(bytes.buffer, bytes.byteOffset, frames * block);
    const samples = frames * this.channels;
    let perFrame = this.channels;
    let level = this.level;
    let frame = this.frame;
    let offset = 0;
    for (let i = 0; i < samples; i++) {
      const s = this.sample(view, offset);
      offset += this.bits / 8;
      const a = s < 0 ? -s : s;
      if (a > level) level = a;
      if (--perFrame === 0) {
        perFrame = this.channels;
        frame++;
        if (frame >= this.boundary) {
          this.frame = frame;
          this.level = level;
          this.close();
          level = 0;
        }
      }
    }
    this.frame = frame;
    this.level = level;
    return frames * block;
  }

  /** The envelope of every frame fed (a last slice shorter than 1/200 s included). */
  finish(): Uint8Array {
    const bins = Math.ceil((this.frame * PEAK_RATE) / this.sampleRate);
    if (this.bin < bins && this.bin < this.out.length) this.out[this.bin] = peakByte(this.level);
    return this.out.subarray(0, Math.min(bins, this.out.length));
  }

  /** Frames fed so far. */
  get frames(): number {
    return this.frame;
  }

  // The first frame of slice `n` (slices start at ceil(n × rate / 200), so a 44.1 kHz slice is 220 or 221 frames).
  private edge(n: number): number {
    return Math.ceil((n * this.sampleRate) / PEAK_RATE);
  }

  // Ends the slices the current frame has passed; a slice with no frame of its own (rates under 200 Hz) reads 0.
  private close(): void {
    while (this.frame >= this.boundary) {
      if (this.bin < this.out.length) this.out[this.bin] = peakByte(this.level);
      this.level = 0;
      this.bin++;
      this.boundary = this.edge(this.bin + 1);
    }
  }

  // One sample on the 16-bit scale: 8-bit wav is unsigned, 24 and 32-bit keep their fraction below 16 bits.
  private sample(view: DataView, at: number): number {
    switch (this.bits) {
      case 16:
        return view.getInt16(at, true);
      case 8:
        return (view.getUint8(at) - 128) * 256;
      case 24:
        return (
          ((view.getUint8(at + 2) << 24) | (view.getUint8(at + 1) << 16) | (view.getUint8(at) << 8)) / 65536
        );
      default:
        return view.getInt32(at, true) / 65536;
    }
  }
}
