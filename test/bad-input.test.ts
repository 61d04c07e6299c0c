// Bad input answers a short 4xx: the measured 500s (long shot, many-segment path, deeply nested size and limits),
// id limits in the schemas, and messages that quote a long value cut to its start and its length.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { functions } from "../functions/index.ts";
import { settingsUpdateSchema } from "../lib/config/settings-schema.ts";
import { StudioError, shown } from "../lib/errors.ts";
import { checkAbsolutePath } from "../lib/paths/text.ts";
import { renderBody, renderRequest } from "../lib/render/request.ts";
import { depthOf, shotId, targetId } from "../lib/schema/fields.ts";
import { parseInput } from "../lib/validate.ts";
import { createApp } from "../runtime/app.ts";
import { makeStudio, refusal, SCRIPT, type Studio } from "./support/studio-episode.ts";

/** `{"a": {"a": ... leaf}}` `depth` levels deep, built without recursion. */
function nested(depth: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** JSON text nesting `depth` arrays: deeper than JSON.stringify itself can write. */
const deepArrays = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

describe("the measured 500s answer 4xx", () => {
  let studio: Studio;
  let ep: string;

  beforeAll(async () => {
    studio = await makeStudio();
    ep = await studio.episode(SCRIPT);
    await studio.take(ep, "proxy", "sh010", 1);
  }, 60_000);
  afterAll(() => studio?.cleanup());

  it("POST /studio/cancel with a 5,000-character shot is a 400 naming the shot id rule", async () => {
    const answer = await studio.call("POST", "/cancel", { ep, shot: "s".repeat(5000), take: 1 });
    refusal(answer, 400, /^shot: must be a shot id/);
    expect(JSON.stringify(answer.body).length).toBeLessThan(300);
  });

  it("GET /studio/browse with a 3,000-segment path is a 400", async () => {
    const answer = await studio.call("GET", "/browse", { path: `${studio.root}${"/a".repeat(3000)}` });
    refusal(answer, 400, /^path/);
    expect(JSON.stringify(answer.body).length).toBeLessThan(400);
  });

  it("POST /studio/render with a deeply nested size is a 400", async () => {
    const body = `{"ep": ${JSON.stringify(ep)}, "shots": ["sh010"], "size": ${deepArrays(100_000)}}`;
    const answer = await rawCall(studio, "POST", "/render", body);
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    expect(answer.text.length).toBeLessThan(400);
  });

  it("an unknown route with a 20,000-character path answers a short 404", async () => {
    const app = createApp(studio.env.services, functions);
    const res = await app.request(`http://127.0.0.1:8190/studio/no-such-route/${"x".repeat(20_000)}`);
    const text = await res.text();
    expect(res.status).toBe(404);
    expect(text.length, text.slice(0, 200)).toBeLessThan(400);
  });

  it("PUT /studio/settings with a deeply nested target_limits is a 400", async () => {
    const limits = `{"ltx2": {"a": ${deepArrays(100_000)}}}`;
    const answer = await rawCall(studio, "PUT", "/settings", `{"target_limits": ${limits}}`);
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    expect(answer.text.length).toBeLessThan(400);
  });
});

/** A request whose body text is given as is (the helper's call() would have to stringify it). */
async function rawCall(studio: Studio, method: string, route: string, body: string) {
  const app = createApp(studio.env.services, functions);
  const res = await app.request(`http://127.0.0.1:8190/studio${route}`, {
    method,
    headers: { "content-type": "application/json" },
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe("deep values are refused by the schema, whatever the runtime lets through", () => {
  it("a render size nested past JSON.stringify's reach is a 400 about size, not a stack overflow", () => {
    const body = renderBody.parse({ ep: "/x", size: JSON.parse(deepArrays(100_000)) });
    let caught: unknown;
    try {
      renderRequest(body);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StudioError);
    expect((caught as StudioError).message).toMatch(/^size must be WxH .* got \[\[\[/);
    expect((caught as StudioError).message.length).toBeLessThan(300);
  });

  it("target_limits deeper than 16 levels fail the settings schema; 16 pass", () => {
    const deep = settingsUpdateSchema.safeParse({ target_limits: { ltx2: { a: nested(17) } } });
    expect(deep.success).toBe(false);
    expect(() => parseInput(settingsUpdateSchema, { target_limits: { ltx2: { a: nested(17) } } })).toThrow(
      /^target_limits\.ltx2\.a: must nest at most 16 levels/,
    );
    expect(settingsUpdateSchema.safeParse({ target_limits: { ltx2: { a: nested(15) } } }).success).toBe(true);
  });

  it("depthOf counts levels without recursion", () => {
    expect(depthOf(1)).toBe(0);
    expect(depthOf([])).toBe(1);
    expect(depthOf({ a: [1, { b: 2 }] })).toBe(3);
    expect(depthOf(JSON.parse(deepArrays(200_000)))).toBe(200_000);
    expect(depthOf(JSON.parse(deepArrays(200_000)), 10)).toBe(11);
  });
});

describe("ids are limited by their schema", () => {
  it("a shot id is one word of at most 64 characters without control or format characters", () => {
    for (const ok of ["sh010", "s01a", "sh-010.b", "x".repeat(64), "ショット1"]) {
      expect(shotId.safeParse(ok).success, ok).toBe(true);
    }
    for (const bad of ["", "x".repeat(65), "sh 010", "sh010\n", "sh\u0000", "\u202esh", "sh\t1", 10]) {
      expect(shotId.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("a target id is letters, digits, _ . - starting with a letter or digit", () => {
    for (const ok of ["ltx2", "flux2_klein", "animatic", "a.b-c"])
      expect(targetId.safeParse(ok).success).toBe(true);
    for (const bad of ["", "-x", "../x", "a/b", "a b", "x".repeat(101)]) {
      expect(targetId.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("routes naming a shot, a take's shot or a target refuse an oversized one with 400", async () => {
    const studio = await makeStudio();
    try {
      const ep = await studio.episode(SCRIPT);
      const long = "s".repeat(300);
      refusal(await studio.call("GET", "/shot", { ep, shot: long }), 400, /^shot: must be a shot id/);
      refusal(
        await studio.call("POST", "/discard", { ep, shot: long, take: 1 }),
        400,
        /^shot: must be a shot id/,
      );
      refusal(
        await studio.call("POST", "/issues", { ep, shot: long, note: "n" }),
        400,
        /^shot: must be a shot id/,
      );
      refusal(await studio.call("PUT", "/override", { ep, shot: long, fields: {} }), 400, /^shot: must be/);
      refusal(
        await studio.call("POST", "/render", { ep, shots: [long] }),
        400,
        /^shots\.0: must be a shot id/,
      );
      refusal(
        await studio.call("PUT", "/episode-target", { ep, target: "t".repeat(300) }),
        400,
        /^target: must be/,
      );
      for (const target of ["t".repeat(300), "../x", "a b"]) {
        const answer = await studio.call("PUT", "/override", { ep, shot: "sh010", fields: { target } });
        refusal(answer, 400, /^target must be a target id/);
      }
      refusal(
        await studio.call("POST", "/jobs/cancel", { id: "j".repeat(65) }),
        400,
        /^id: must be a job id/,
      );
      // A lane is stored by name: a long one would be a row of garbage in the job database.
      const lane = `deployment:${"d".repeat(5000)}`;
      refusal(
        await studio.call("POST", "/jobs/pause", { lane, paused: true }),
        400,
        /^lane: must be a lane name/,
      );
      expect(Object.keys((await studio.call("GET", "/jobs")).body.lanes)).toEqual([]);
    } finally {
      await studio.cleanup();
    }
  }, 60_000);
});

describe("messages quote a long value by its start and its length", () => {
  it("shown() keeps short values whole and cuts long ones to 80 characters", () => {
    expect(shown("sh010")).toBe('"sh010"');
    expect(shown("x".repeat(10_000))).toBe(`"${"x".repeat(80)}"… (10000 characters)`);
    expect(shown([1, 2])).toBe("[1,2]");
    expect(shown(JSON.parse(deepArrays(100_000)))).toBe("[[[[…]]]]");
    expect(shown({ a: "y".repeat(500) }).length).toBeLessThanOrEqual(81);
  });

  it("a StudioError cuts any echoed run past 200 characters and any message past 1,000", () => {
    const run = new StudioError(400, `clear must be 1 or 0, not "${"a".repeat(17_559)}"`);
    expect(run.message).toBe(`clear must be 1 or 0, not "${"a".repeat(79)}… (17561 characters)`);
    const words = new StudioError(400, "ab ".repeat(2000));
    expect(words.message.length).toBeLessThan(1100);
    expect(words.message).toMatch(/… \(6000 characters\)$/);
  });

  it("an unknown field with a 5,000-character name is named by its start", () => {
    const schema = z.strictObject({ a: z.string().optional() });
    expect(() => parseInput(schema, { ["k".repeat(5000)]: 1 })).toThrow(
      `body: unknown field "${"k".repeat(80)}"… (5000 characters)`,
    );
  });

  it("a path refusal quotes the path's start, not all 4,000 characters", () => {
    const long = `relative/${"d/".repeat(1990)}`;
    expect(() => checkAbsolutePath(long, "ep")).toThrow(/^ep must be an absolute path \(got "relative\/d\/d/);
    try {
      checkAbsolutePath(long, "ep");
    } catch (err) {
      expect((err as Error).message.length).toBeLessThan(200);
    }
    expect(path.isAbsolute(long)).toBe(false);
  });
});

describe("every 400 says what was expected and what came", () => {
  it("the shared fields answer in a person's words, through the routes", async () => {
    const studio = await makeStudio();
    try {
      const ep = await studio.episode(SCRIPT);
      const said = async (method: "GET" | "POST" | "PUT", route: string, input: Record<string, unknown>) => {
        const answer = await studio.call(method, route, input);
        expect(answer.status, JSON.stringify(answer.body)).toBe(400);
        return (answer.body as { error: string }).error;
      };
      expect(await said("GET", "/episode", { ep, pass: "FINAL" })).toBe(
        'pass: must be "final" or "proxy" (got "FINAL")',
      );
      expect(await said("POST", "/discard", { ep, shot: "sh010", take: "x" })).toBe(
        'take: must be a whole number (got "x")',
      );
      expect(await said("POST", "/discard", { ep, shot: "sh010", take: 1.5 })).toBe(
        "take: must be a whole number (got 1.5)",
      );
      expect(await said("POST", "/discard", { ep, shot: "sh010", take: 0 })).toBe(
        "take: must be at least 1 (got 0)",
      );
      expect(await said("GET", "/episode", { pass: "proxy" })).toBe("ep: required");
      expect(await said("POST", "/build", { ep: 5 })).toBe("ep: must be text (got 5)");
      expect(await said("POST", "/cut/copy", { ep, from: "proxy", to: "draft", what: "all" })).toBe(
        'to: must be "final" or "proxy" (got "draft")',
      );
      expect(await said("GET", "/targets", { ready: "maybe" })).toBe(
        'ready: must be 1 or 0, true or false (got "maybe")',
      );
      expect(await said("PUT", "/pick", { ep, shot: "sh010", take: 1, force: "yes" })).toBe(
        'force: must be true or false (got "yes")',
      );
      expect(await said("POST", "/import", { parent: studio.root, scripts: "x" })).toBe(
        'scripts: must be a list (got "x")',
      );
      expect(await said("POST", "/render", { ep, seed: "12a" })).toBe(
        'seed: must be a string of digits (got "12a")',
      );
      expect(await said("POST", "/source/check", { ep, file: "notes", text: "" })).toBe(
        'file: must be "script" or "series" (got "notes")',
      );
      // A long value is cut in the message like anywhere else.
      const long = await said("GET", "/episode", { ep, pass: "p".repeat(5000) });
      expect(long).toBe(`pass: must be "final" or "proxy" (got "${"p".repeat(80)}"… (5000 characters))`);
    } finally {
      await studio.cleanup();
    }
  }, 60_000);

  it("no message is zod's own", () => {
    const schema = z.object({
      n: z.number().optional(),
      s: z.string().min(2).optional(),
      l: z.array(z.string()).max(1).optional(),
      u: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    });
    const said = (data: unknown) => {
      try {
        parseInput(schema, data);
      } catch (err) {
        return (err as Error).message;
      }
      return "accepted";
    };
    expect(said({ n: "1" })).toBe('n: must be a number (got "1")');
    expect(said({ s: "a" })).toBe('s: must be text of at least 2 characters (got "a")');
    expect(said({ l: ["a", "b"] })).toBe('l: must be a list of at most 1 item (got ["a","b"])');
    expect(said({ u: 5 })).toBe("u: must be text or an object (got 5)");
    expect(said(null)).toBe("body: must be an object (got null)");
  });
});
