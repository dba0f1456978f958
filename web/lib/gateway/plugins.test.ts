import { describe, expect, it } from "vitest";
import { loadWebConfig } from "../infra/config";
import { pluginRegistry } from "./plugins";
import { microsToUsd, usdToMicros } from "./pricing";

const base = { DATABASE_URL: "postgres://x@127.0.0.1/x", SESSION_SECRET: "0123456789abcdef0123" };

describe("plugin registry", () => {
  it("defaults agent and generate-text to the backend's AI route with the internal key; tts and stt have none", () => {
    const registry = pluginRegistry(
      loadWebConfig({
        ...base,
        BACKEND_URL: "http://127.0.0.1:4000/",
        INTERNAL_API_KEY: "internal-key-0123456789",
      }),
    );
    expect([...registry.keys()]).toEqual(["agent", "generate-text", "tts", "stt"]);
    for (const id of ["agent", "generate-text"]) {
      expect(registry.get(id)?.upstream).toEqual({
        url: "http://127.0.0.1:4000/api/ai/gateway",
        headers: { authorization: "Bearer internal-key-0123456789" },
      });
    }
    expect(registry.get("tts")?.upstream).toBeNull();
    expect(registry.get("stt")?.upstream).toBeNull();
    expect(
      [...registry.values()].map((p) => [p.id, p.auth, p.streaming, microsToUsd(p.priceMicros)]),
    ).toEqual([
      ["agent", false, true, "0.05"],
      ["generate-text", false, true, "0.01"],
      ["tts", false, false, "0.03"],
      ["stt", false, false, "0.02"],
    ]);
  });

  it("takes each plugin's URL and price from its variables", () => {
    const registry = pluginRegistry(
      loadWebConfig({
        ...base,
        GATEWAY_PLUGIN_TTS_URL: "http://tts.internal/speak",
        GATEWAY_PLUGIN_TTS_PRICE_USD: "0.125",
      }),
    );
    expect(registry.get("tts")?.upstream).toEqual({ url: "http://tts.internal/speak", headers: {} });
    expect(registry.get("tts")?.priceMicros).toBe(125_000n);
    // Without the internal key the AI plugins have no way to the backend.
    expect(registry.get("agent")?.upstream).toBeNull();
  });

  it("refuses a price that is not a plain USD decimal", () => {
    expect(() => loadWebConfig({ ...base, GATEWAY_PLUGIN_AGENT_PRICE_USD: "1e-2" })).toThrow(
      /GATEWAY_PLUGIN_AGENT_PRICE_USD/,
    );
  });

  it("refuses a price of zero: every call is paid", () => {
    for (const zero of ["0", "0.000000", "000.0"]) {
      expect(() => loadWebConfig({ ...base, GATEWAY_PLUGIN_TTS_PRICE_USD: zero })).toThrow(
        /GATEWAY_PLUGIN_TTS_PRICE_USD: must be more than 0/,
      );
    }
    expect(() => loadWebConfig({ ...base, GATEWAY_PLUGIN_TTS_PRICE_USD: "0.000001" })).not.toThrow();
  });
});

describe("money", () => {
  it("converts USD strings and micro-USD exactly, never through a float", () => {
    expect(usdToMicros("0.05")).toBe(50_000n);
    expect(usdToMicros("5")).toBe(5_000_000n);
    expect(usdToMicros("100.000001")).toBe(100_000_001n);
    expect(microsToUsd(50_000n)).toBe("0.05");
    expect(microsToUsd(5_000_000n)).toBe("5.00");
    expect(microsToUsd(1n)).toBe("0.000001");
    expect(microsToUsd(0n)).toBe("0.00");
    expect(() => usdToMicros("0.0000001")).toThrow();
    expect(() => usdToMicros("-1")).toThrow();
  });
});
