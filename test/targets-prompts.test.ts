// Prompt writers for image and audio targets: keyframe, edit references, voice (targets 3.5.6, 3.5.8, 3.5.9).
import { describe, expect, it } from "vitest";
import { parseScript } from "../lib/script/parse.ts";
import type { Sequence, Shot } from "../lib/script/types.ts";
import { loadSeries } from "../lib/series/load.ts";
import { editIntroduction, keyframePrompt, voicePrompt } from "../lib/targets/prompts/index.ts";
import { seriesS } from "./support/series-s.ts";

const series = loadSeries(seriesS());

function parse(...body: string[]): { shot: Shot; sequence: Sequence } {
  const { story } = parseScript(["= e01  T", "# sq01 kitchen", "## sh010", ...body].join("\n"), series);
  const sequence = story.sequences[0];
  return { shot: sequence.shots[0], sequence };
}

const TWO = parse(
  "size: medium",
  "Ada fills the kettle. Bo opens the window. The kettle starts to whistle.",
  "ADA: (tired) Tea again?",
  "BO: Always.",
);

const HEAD =
  "The first frame of a medium shot of a cramped kitchen at night, as one still picture. " +
  "People are seen from the waist up, filling most of the frame height. " +
  "A flat 2D cartoon, framed as a medium shot. " +
  "Ada is a tall woman in a green raincoat. Bo is a stocky bearded man.";

describe("keyframe prompt", () => {
  it("first frame: the action's first sentence just beginning, the rest as context, speakers about to speak", () => {
    expect(keyframePrompt({ ...TWO, series, which: "first" })).toBe(
      `${HEAD} The moment shown is the very start of the action, just beginning: Ada fills the kettle. ` +
        "For context only, not yet shown: Bo opens the window. The kettle starts to whistle. " +
        "Ada and Bo are about to speak. No text, captions, speech bubbles or borders. Keep the framing a medium shot.",
    );
  });

  it("last frame: the action's last sentence, completed and at rest, speakers have just spoken", () => {
    const out = keyframePrompt({ ...TWO, series, which: "last" });
    expect(
      out.startsWith("The last frame of a medium shot of a cramped kitchen at night, as one still picture."),
    ).toBe(true);
    expect(out).toContain(
      "The moment shown is after the action is over, completed, with everything at rest: The kettle starts to whistle.",
    );
    expect(out).toContain("Ada and Bo have just spoken.");
    expect(out).not.toContain("Ada fills the kettle");
    expect(out).not.toContain("about to speak");
  });

  it("never carries dialogue text", () => {
    for (const which of ["first", "last"] as const) {
      const out = keyframePrompt({ ...TWO, series, which });
      expect(out).not.toContain("Tea again");
      expect(out).not.toContain("Always");
      expect(out).not.toContain("tired");
    }
  });

  it("close-up of a prop only, and nobody named in a wide shot", () => {
    const close = keyframePrompt({
      ...parse("size: close", "props: kettle", "Steam rises."),
      series,
      which: "first",
    });
    expect(close).toContain("The kettle fills the frame.");
    expect(close).toContain("The kettle is a dented steel kettle.");
    const empty = keyframePrompt({
      ...parse("size: wide", "Rain streaks the window."),
      series,
      which: "last",
    });
    expect(empty).toContain(
      "The whole of a cramped kitchen at night is shown, with people small and full-length.",
    );
    expect(empty).toContain("Nobody named is in frame.");
  });

  it("puts the reference introduction first", () => {
    const out = keyframePrompt({
      ...TWO,
      series,
      which: "first",
      refs: [
        { id: "ada", kind: "character" },
        { id: "kitchen", kind: "plate" },
      ],
      refWord: "image",
    });
    expect(
      out.startsWith(
        "Draw Ada exactly as in image 1: the same face, body, clothes and colours, posed for this shot. " +
          "Use the setting, layout, colours and light of image 2. The first frame of",
      ),
    ).toBe(true);
  });
});

describe("edit reference introduction", () => {
  it("one reference is 'the image'", () => {
    expect(editIntroduction([{ role: "character", name: "Ada" }], "image")).toBe(
      "Draw Ada exactly as in the image: the same face, body, clothes and colours, posed for this shot.",
    );
  });

  it("several references are numbered in the order given", () => {
    expect(
      editIntroduction(
        [
          { role: "character", name: "Ada" },
          { role: "prop", name: "the kettle" },
          { role: "plate", name: "a cramped kitchen at night" },
        ],
        "image",
      ),
    ).toBe(
      "Draw Ada exactly as in image 1: the same face, body, clothes and colours, posed for this shot. " +
        "Draw the kettle exactly as in image 2: the same shape and colours, posed for this shot. " +
        "Use the setting, layout, colours and light of image 3.",
    );
  });

  it("groups and composites", () => {
    expect(editIntroduction([{ role: "group", name: "The cooks", members: 3 }], "picture")).toBe(
      "The cooks are a group of 3 different people, each drawn once exactly as in the picture, posed for this shot.",
    );
    expect(editIntroduction([{ role: "composite", name: "Ada and Bo" }], "image")).toContain(
      "The image shows Ada and Bo in front of the background",
    );
  });
});

describe("voice prompt", () => {
  it("names the speaker with the design's first sentence, the voice, the seconds and the line", () => {
    expect(
      voicePrompt({
        name: "Ada",
        voice: "dry",
        design: "A tall woman. Green coat.",
        line: "Tea  again?",
        seconds: 3.4,
      }),
    ).toBe(
      "A clean close-mic recording of one speaker in a quiet room, with no music, noise, other voices or effects. " +
        'The speaker is Ada, a tall woman. The voice is dry. About 3 seconds long. Ada says: "Tea again?"',
    );
  });

  it("falls back to a neutral self-introduction without a line or design", () => {
    const out = voicePrompt({ name: "Mom", voice: "warm, from another room", line: "", seconds: 1 });
    expect(out).toContain("The speaker is Mom.");
    expect(out).toContain("The voice is warm, from another room.");
    expect(out).toContain("About 1 second long.");
    expect(out).toContain('Mom says: "Hello, my name is Mom');
  });
});
