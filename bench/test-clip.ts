// A short test clip made with ffmpeg (colour bars and a tone, H.264 + AAC as takes are), for the benchmarks that
// need many matching takes on disk.
import { execa } from "execa";
import { videoCodecArgs } from "../lib/media/assemble-args.ts";

export async function testClip(
  ffmpeg: string,
  file: string,
  clip: { width: number; height: number; frames: number; fps: number },
): Promise<void> {
  const seconds = clip.frames / clip.fps;
  await execa(ffmpeg, [
    "-v",
    "error",
    "-f",
    "lavfi",
    "-i",
    `testsrc2=size=${clip.width}x${clip.height}:rate=${clip.fps}:duration=${seconds}`,
    "-f",
    "lavfi",
    "-i",
    `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
    "-frames:v",
    String(clip.frames),
    ...videoCodecArgs("draft"),
    ...["-c:a", "aac", "-ar", "48000", "-ac", "2"],
    file,
  ]);
}
