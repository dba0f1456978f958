/**
 * Tests only: collects what the process writes to stdout and stderr (pino writes through sonic-boom with
 * `fs.write`/`fs.writeSync` on fd 1), so a test can search every log line for secrets. The writes still happen.
 */
import { createRequire } from "node:module";
import { afterEach, beforeEach, vi } from "vitest";

type Writer = (fd: number, data: unknown, ...rest: unknown[]) => unknown;

export function captureProcessOutput(): { text(): string } {
  const fs = createRequire(import.meta.url)("node:fs") as Record<"write" | "writeSync", Writer>;
  let written: string[] = [];
  beforeEach(() => {
    written = [];
    for (const name of ["write", "writeSync"] as const) {
      const original = fs[name];
      vi.spyOn(fs, name).mockImplementation((fd, data, ...rest) => {
        if (fd === 1 || fd === 2) written.push(String(data));
        return original(fd, data, ...rest);
      });
    }
  });
  afterEach(() => vi.restoreAllMocks());
  return { text: () => written.join("") };
}
