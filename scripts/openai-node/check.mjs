// Checks an OpenAI-compatible endpoint (bench serve-sim, the recording
// endpoint of bench's program strategy, bench proxy) with the official npm
// openai client, the way a JavaScript agent framework would use it:
//
//   node check.mjs --base-url http://127.0.0.1:8088/v1 --key K --fixture f.json [--model sim]
//
// The fixture gives the prompts (so the endpoint's model has something to
// answer): {"chat_prompt", "tools_prompt", "tools": [OpenAI tool specs],
// "completion_prompt"}. Each check prints "ok <name>: ..." and the script
// exits 1 at the first failure, printing "FAIL <name>: why".
//
// Checks: chat with n=3 (three choices with text, usage that adds up);
// streaming chat with n=2 and include_usage (chunks assemble per choice into
// text with a finish reason, one usage chunk); the SDK's own stream helper
// (finalChatCompletion); tools (a tool call comes back parsed: a declared
// name, JSON object arguments, an id, finish_reason tool_calls), streamed
// too; completions with n=2 (texts, usage), streamed; and a malformed
// request raising the SDK's BadRequestError (the error shape it parses).

import OpenAI from "openai";
import { readFileSync } from "node:fs";

function flags(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const [k, v] = a.includes("=") ? a.slice(2).split(/=(.*)/s) : [a.slice(2), argv[++i]];
    out[k] = v;
  }
  return out;
}

class CheckError extends Error {}

function expect(cond, why) {
  if (!cond) throw new CheckError(why);
}

function usageOK(u, what) {
  expect(u && u.prompt_tokens > 0 && u.completion_tokens > 0, `${what}: usage ${JSON.stringify(u)} lacks token counts`);
  expect(u.total_tokens === u.prompt_tokens + u.completion_tokens, `${what}: usage ${JSON.stringify(u)} does not add up`);
}

async function streamed(stream) {
  const texts = [];
  const finish = [];
  const calls = [];
  let usage = null;
  let chunks = 0;
  for await (const ch of stream) {
    chunks++;
    if (ch.usage) usage = ch.usage;
    for (const c of ch.choices ?? []) {
      texts[c.index] = (texts[c.index] ?? "") + (c.delta?.content ?? c.text ?? "");
      if (c.finish_reason) finish[c.index] = c.finish_reason;
      for (const tc of c.delta?.tool_calls ?? []) {
        const cur = (calls[tc.index ?? 0] ??= { id: "", name: "", args: "" });
        cur.id += tc.id ?? "";
        cur.name += tc.function?.name ?? "";
        cur.args += tc.function?.arguments ?? "";
      }
    }
  }
  return { texts, finish, calls, usage, chunks };
}

function toolCallOK(tc, names, what) {
  expect(tc && tc.id, `${what}: tool call without an id: ${JSON.stringify(tc)}`);
  expect(names.includes(tc.name), `${what}: tool ${JSON.stringify(tc.name)} is not one of ${names.join(", ")}`);
  let args;
  try {
    args = JSON.parse(tc.args);
  } catch (e) {
    throw new CheckError(`${what}: arguments ${JSON.stringify(tc.args)} are not JSON: ${e.message}`);
  }
  expect(args && typeof args === "object" && !Array.isArray(args), `${what}: arguments ${tc.args} are not an object`);
}

async function main() {
  const f = flags(process.argv.slice(2));
  const baseURL = f["base-url"] ?? process.env.OPENAI_BASE_URL;
  const apiKey = f.key ?? process.env.OPENAI_API_KEY ?? "unused";
  if (!baseURL || !f.fixture) throw new Error("usage: node check.mjs --base-url URL --fixture FILE [--key K] [--model M]");
  const fx = JSON.parse(readFileSync(f.fixture, "utf8"));
  const model = f.model ?? "sim";
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60_000 });
  const user = (content) => [{ role: "user", content }];
  const names = fx.tools.map((t) => t.function.name);

  const checks = {
    "chat n=3": async () => {
      const r = await client.chat.completions.create({ model, messages: user(fx.chat_prompt), n: 3, temperature: 0.7 });
      expect(r.choices.length === 3, `${r.choices.length} choices, want 3`);
      r.choices.forEach((c, i) => {
        expect(c.index === i, `choice ${i} has index ${c.index}`);
        expect(typeof c.message.content === "string" && c.message.content.length > 0, `choice ${i} has no text`);
        expect(c.finish_reason, `choice ${i} has no finish_reason`);
      });
      usageOK(r.usage, "chat");
      return `${r.choices.length} choices, ${r.usage.completion_tokens} completion tokens`;
    },
    "chat stream": async () => {
      const s = await client.chat.completions.create({
        model, messages: user(fx.chat_prompt), n: 2, temperature: 0.7, stream: true, stream_options: { include_usage: true },
      });
      const got = await streamed(s);
      expect(got.texts.length === 2 && got.texts.every((t) => t.length > 0), `assembled ${JSON.stringify(got.texts)}`);
      expect(got.finish.length === 2 && got.finish.every(Boolean), `finish reasons ${JSON.stringify(got.finish)}`);
      usageOK(got.usage, "chat stream");
      return `${got.chunks} chunks into 2 choices`;
    },
    "chat stream helper": async () => {
      const s = client.chat.completions.stream({ model, messages: user(fx.chat_prompt), stream_options: { include_usage: true } });
      const r = await s.finalChatCompletion();
      expect(r.choices.length === 1 && r.choices[0].message.content, `final completion ${JSON.stringify(r.choices)}`);
      return `${r.choices[0].message.content.length} characters`;
    },
    tools: async () => {
      const r = await client.chat.completions.create({ model, messages: user(fx.tools_prompt), tools: fx.tools, tool_choice: "auto" });
      const c = r.choices[0];
      const tcs = c.message.tool_calls ?? [];
      expect(tcs.length > 0, `no tool call: ${JSON.stringify(c.message)}`);
      expect(c.finish_reason === "tool_calls", `finish_reason ${c.finish_reason}`);
      expect(tcs[0].type === "function", `tool call type ${tcs[0].type}`);
      toolCallOK({ id: tcs[0].id, name: tcs[0].function.name, args: tcs[0].function.arguments }, names, "tools");
      usageOK(r.usage, "tools");
      return `${tcs[0].function.name}(${tcs[0].function.arguments})`;
    },
    "tools stream": async () => {
      const s = await client.chat.completions.create({
        model, messages: user(fx.tools_prompt), tools: fx.tools, stream: true, stream_options: { include_usage: true },
      });
      const got = await streamed(s);
      expect(got.calls.length > 0, `no streamed tool call (text ${JSON.stringify(got.texts)})`);
      toolCallOK(got.calls[0], names, "tools stream");
      expect(got.finish[0] === "tool_calls", `finish_reason ${got.finish[0]}`);
      return `${got.calls[0].name}(${got.calls[0].args})`;
    },
    completions: async () => {
      const r = await client.completions.create({ model, prompt: fx.completion_prompt, n: 2, max_tokens: 256 });
      expect(r.choices.length === 2 && r.choices.every((c) => typeof c.text === "string" && c.text.length > 0), `choices ${JSON.stringify(r.choices)}`);
      usageOK(r.usage, "completions");
      return `${r.choices.length} choices`;
    },
    "completions stream": async () => {
      const s = await client.completions.create({ model, prompt: fx.completion_prompt, stream: true, stream_options: { include_usage: true } });
      const got = await streamed(s);
      expect(got.texts[0]?.length > 0, `assembled ${JSON.stringify(got.texts)}`);
      usageOK(got.usage, "completions stream");
      return `${got.chunks} chunks`;
    },
    "bad request": async () => {
      try {
        await client.chat.completions.create({ model, messages: [{ role: "nobody", content: "x" }] });
      } catch (e) {
        expect(e instanceof OpenAI.BadRequestError, `${e.constructor.name} (status ${e.status}), want BadRequestError: ${e.message}`);
        expect(typeof e.message === "string" && e.message.length > 0, "error without a message");
        return `400: ${e.message.slice(0, 80)}`;
      }
      throw new CheckError("a message with role 'nobody' was accepted");
    },
  };

  const only = f.only ? f.only.split(",") : Object.keys(checks);
  for (const name of only) {
    const check = checks[name];
    if (!check) throw new Error(`unknown check ${name}`);
    try {
      console.log(`ok ${name}: ${await check()}`);
    } catch (e) {
      console.log(`FAIL ${name}: ${e instanceof CheckError ? e.message : `${e.constructor.name}: ${e.message}`}`);
      process.exit(1);
    }
  }
}

main().catch((e) => {
  console.log(`FAIL setup: ${e.message}`);
  process.exit(2);
});
