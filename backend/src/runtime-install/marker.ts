/**
 * The marker of a finished install, `<dir>/.agent-runtime.json`, written last (before the directory is
 * renamed into place): an install without it, or whose files are gone, is not one. Paths in it are
 * relative to the install directory, which is renamed after the marker is written.
 */
import { access, constants, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const MARKER_FILE = ".agent-runtime.json";

export interface RuntimeMarker {
  version: string;
  nodeVersion: string;
  nodePackage: string;
  /** Relative to the install directory. */
  node: string;
  entry: string;
  installedAt: string;
}

export async function writeMarker(dir: string, marker: RuntimeMarker): Promise<void> {
  await writeFile(join(dir, MARKER_FILE), `${JSON.stringify(marker, null, 2)}\n`, { mode: 0o644 });
}

/**
 * The marker of a usable install of `version` in `dir`, or null: the marker names that version, its node
 * is executable and its entry readable (a few system calls, no process started).
 */
export async function readValidMarker(dir: string, version: string): Promise<RuntimeMarker | null> {
  let marker: Partial<RuntimeMarker>;
  try {
    marker = JSON.parse(await readFile(join(dir, MARKER_FILE), "utf8")) as Partial<RuntimeMarker>;
  } catch {
    return null;
  }
  if (
    marker.version !== version ||
    typeof marker.node !== "string" ||
    typeof marker.entry !== "string" ||
    typeof marker.nodeVersion !== "string"
  )
    return null;
  try {
    await access(join(dir, marker.node), constants.X_OK);
    await access(join(dir, marker.entry), constants.R_OK);
  } catch {
    return null;
  }
  return marker as RuntimeMarker;
}
