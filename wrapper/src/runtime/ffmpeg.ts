import { execFile } from "node:child_process";

export interface FfmpegInfo {
  available: boolean;
  /** The version after "ffmpeg version" in `ffmpeg -version`, or null. */
  version: string | null;
}

/** Runs `<command> -version` once (5 s timeout) and reports whether ffmpeg is there and which version. */
export function detectFfmpeg(command = "ffmpeg", timeoutMs = 5_000): Promise<FfmpegInfo> {
  return new Promise((resolve) => {
    execFile(command, ["-version"], { timeout: timeoutMs, windowsHide: true }, (error, stdout) => {
      if (error) {
        resolve({ available: false, version: null });
        return;
      }
      const match = /ffmpeg version (\S+)/i.exec(String(stdout));
      resolve({ available: true, version: match ? match[1] : null });
    });
  });
}
