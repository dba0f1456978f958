import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectFfmpeg } from "./ffmpeg";

describe("detectFfmpeg", () => {
  it("reads the version after 'ffmpeg version'", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ffmpeg-"));
    const script = join(dir, "ffmpeg");
    await writeFile(script, "#!/bin/sh\necho 'ffmpeg version 6.1.1-3ubuntu5 Copyright (c) 2000-2023'\n");
    await chmod(script, 0o755);
    expect(await detectFfmpeg(script)).toEqual({ available: true, version: "6.1.1-3ubuntu5" });
  });

  it("reports ffmpeg missing", async () => {
    expect(await detectFfmpeg("/nonexistent/ffmpeg")).toEqual({ available: false, version: null });
  });
});
