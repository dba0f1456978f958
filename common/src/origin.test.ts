import { describe, expect, it } from "vitest";
import { isPublicOrigin } from "./origin";

describe("isPublicOrigin", () => {
  it("accepts exactly the public URL's origin (its path does not matter)", () => {
    expect(isPublicOrigin("https://agents.example.com", "https://agents.example.com/app/")).toBe(true);
    expect(isPublicOrigin("https://agents.example.com:443", "https://agents.example.com")).toBe(false);
    expect(isPublicOrigin("http://agents.example.com", "https://agents.example.com")).toBe(false);
    expect(isPublicOrigin("https://evil.agents.example.com", "https://agents.example.com")).toBe(false);
    expect(isPublicOrigin("https://agents.example.com.evil.example", "https://agents.example.com")).toBe(
      false,
    );
    expect(isPublicOrigin("null", "https://agents.example.com")).toBe(false);
    expect(isPublicOrigin("", "https://agents.example.com")).toBe(false);
  });

  it("a loopback public URL accepts the loopback names of its scheme and port, nothing else", () => {
    const local = "http://127.0.0.1:3000";
    expect(isPublicOrigin("http://localhost:3000", local)).toBe(true);
    expect(isPublicOrigin("http://[::1]:3000", local)).toBe(true);
    expect(isPublicOrigin("http://localhost:3001", local)).toBe(false);
    expect(isPublicOrigin("https://localhost:3000", local)).toBe(false);
    expect(isPublicOrigin("http://localhost:3000/path", local)).toBe(false);
    expect(isPublicOrigin("http://127.0.0.2:3000", local)).toBe(false);
    expect(isPublicOrigin("http://localhost:3000", "https://agents.example.com")).toBe(false);
  });
});
