import { describe, expect, it } from "vitest";
import { meterEventStream, type TokenUsage, usageOfCompletion } from "./usage";

const request = { model: "m", messages: [{ role: "user" as const, content: "Hi?" }] };
const promptEstimate = Math.ceil(JSON.stringify(request.messages).length / 4);

async function meter(pieces: Uint8Array[]): Promise<{ passed: Uint8Array[]; usage: TokenUsage[] }> {
  const usage: TokenUsage[] = [];
  const passed: Uint8Array[] = [];
  async function* source() {
    yield* pieces;
  }
  for await (const chunk of meterEventStream(request, source(), async (u) => {
    usage.push(u);
  })) {
    passed.push(chunk);
  }
  return { passed, usage };
}

/** `text` as bytes cut every `size` bytes (through lines and multi-byte characters). */
function cut(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

const event = (fields: object) => `data: ${JSON.stringify(fields)}\n\n`;

describe("meterEventStream", () => {
  it("passes every chunk through unchanged and reads the usage event, however the bytes are cut", async () => {
    const text =
      event({ choices: [{ delta: { content: "Grüße " } }] }) +
      event({ choices: [{ delta: { content: "und 🎉" } }] }) +
      event({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 3 } }) +
      "data: [DONE]\n\n";
    for (const size of [1, 3, 7, 64, 10_000]) {
      const pieces = cut(text, size);
      const { passed, usage } = await meter(pieces);
      expect(passed).toEqual(pieces);
      expect(usage, `cut every ${size}`).toEqual([{ promptTokens: 11, completionTokens: 3 }]);
    }
  });

  it("without a usage event: the estimate of the prompt and of the streamed text (content and tool calls)", async () => {
    const toolCalls = [{ index: 0, function: { arguments: '{"a":1}' } }];
    const text =
      event({ choices: [{ delta: { content: "abcdefgh" } }] }) +
      event({ choices: [{ delta: { tool_calls: toolCalls } }] }) +
      "data: [DONE]";
    const { usage } = await meter(cut(text, 5));
    expect(usage).toEqual([
      {
        promptTokens: promptEstimate,
        completionTokens: Math.ceil((8 + JSON.stringify(toolCalls).length) / 4),
      },
    ]);
  });

  it("counts what was streamed when the consumer stops early, and when the source fails", async () => {
    const usage: TokenUsage[] = [];
    async function* source() {
      yield new TextEncoder().encode(event({ choices: [{ delta: { content: "12345678" } }] }));
      yield new TextEncoder().encode(event({ choices: [{ delta: { content: "more" } }] }));
    }
    for await (const _ of meterEventStream(request, source(), async (u) => {
      usage.push(u);
    })) {
      break;
    }
    expect(usage).toEqual([{ promptTokens: promptEstimate, completionTokens: 2 }]);

    async function* failing(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode(event({ choices: [{ delta: { content: "1234" } }] }));
      throw new Error("provider went away");
    }
    const consume = async () => {
      for await (const _ of meterEventStream(request, failing(), async (u) => {
        usage.push(u);
      })) {
        // read to the end
      }
    };
    await expect(consume()).rejects.toThrow("provider went away");
    expect(usage.at(-1)).toEqual({ promptTokens: promptEstimate, completionTokens: 1 });
  });
});

describe("usageOfCompletion", () => {
  it("the provider's usage, else an estimate from the answer's text", () => {
    expect(usageOfCompletion(request, { usage: { prompt_tokens: 9, completion_tokens: 4 } })).toEqual({
      promptTokens: 9,
      completionTokens: 4,
    });
    expect(
      usageOfCompletion(request, { choices: [{ message: { role: "assistant", content: "abcdefghi" } }] }),
    ).toEqual({ promptTokens: promptEstimate, completionTokens: 3 });
    // Nonsense counts are not trusted.
    expect(usageOfCompletion(request, { usage: { prompt_tokens: -5, completion_tokens: "x" } })).toEqual({
      promptTokens: promptEstimate,
      completionTokens: 0,
    });
  });
});
