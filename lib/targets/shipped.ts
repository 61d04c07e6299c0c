// The shipped target descriptions, imported with the code rather than read from disk, so a registry of them can be
// built where there is no file system (a per-function deployment) and each process or thread parses them once.
// Every `<kind>/<id>/target.json` beside this module has one line here (a test compares the list with the folders).

import ltx2Voice from "./audio/ltx2_voice/target.json" with { type: "json" };
import silence from "./audio/silence/target.json" with { type: "json" };
import speech from "./audio/speech/target.json" with { type: "json" };
import card from "./image/card/target.json" with { type: "json" };
import fluxKontext from "./image/flux_kontext/target.json" with { type: "json" };
import flux2Klein from "./image/flux2_klein/target.json" with { type: "json" };
import flux2KleinEdit from "./image/flux2_klein_edit/target.json" with { type: "json" };
import kleinErp360 from "./image/klein_erp_360/target.json" with { type: "json" };
import krea2 from "./image/krea2/target.json" with { type: "json" };
import qwenImage21 from "./image/qwen_image_21/target.json" with { type: "json" };
import qwenRapidAio from "./image/qwen_rapid_aio/target.json" with { type: "json" };
import zImageTurbo from "./image/z_image_turbo/target.json" with { type: "json" };
import type { TargetKind } from "./registry.ts";
import animatic from "./video/animatic/target.json" with { type: "json" };
import ltx2 from "./video/ltx2/target.json" with { type: "json" };
import ltx2Ingredients from "./video/ltx2_ingredients/target.json" with { type: "json" };
import minimaxH3Fl2va from "./video/minimax_h3_fl2va/target.json" with { type: "json" };
import minimaxH3Ref2va from "./video/minimax_h3_ref2va/target.json" with { type: "json" };
import wan22I2v from "./video/wan22_i2v/target.json" with { type: "json" };
import wan22Ti2v from "./video/wan22_ti2v/target.json" with { type: "json" };
import wan22Vace from "./video/wan22_vace/target.json" with { type: "json" };

/** Each shipped target's folder kind, folder name and parsed file, kinds in the order video, image, audio. */
export const SHIPPED_TARGET_FILES: readonly { kind: TargetKind; id: string; raw: unknown }[] = [
  { kind: "video", id: "animatic", raw: animatic },
  { kind: "video", id: "ltx2", raw: ltx2 },
  { kind: "video", id: "ltx2_ingredients", raw: ltx2Ingredients },
  { kind: "video", id: "minimax_h3_fl2va", raw: minimaxH3Fl2va },
  { kind: "video", id: "minimax_h3_ref2va", raw: minimaxH3Ref2va },
  { kind: "video", id: "wan22_i2v", raw: wan22I2v },
  { kind: "video", id: "wan22_ti2v", raw: wan22Ti2v },
  { kind: "video", id: "wan22_vace", raw: wan22Vace },
  { kind: "image", id: "card", raw: card },
  { kind: "image", id: "flux2_klein", raw: flux2Klein },
  { kind: "image", id: "flux2_klein_edit", raw: flux2KleinEdit },
  { kind: "image", id: "flux_kontext", raw: fluxKontext },
  { kind: "image", id: "klein_erp_360", raw: kleinErp360 },
  { kind: "image", id: "krea2", raw: krea2 },
  { kind: "image", id: "qwen_image_21", raw: qwenImage21 },
  { kind: "image", id: "qwen_rapid_aio", raw: qwenRapidAio },
  { kind: "image", id: "z_image_turbo", raw: zImageTurbo },
  { kind: "audio", id: "ltx2_voice", raw: ltx2Voice },
  { kind: "audio", id: "silence", raw: silence },
  { kind: "audio", id: "speech", raw: speech },
];
