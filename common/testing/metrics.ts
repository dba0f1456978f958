/**
 * Reading a Prometheus text scrape in tests: the value of one series, so a test can assert that a named
 * series moved by an exact amount between two scrapes.
 */

/** Parses `name{a="x",b="y"} 12` lines into samples (comments and blank lines skipped). */
export function parseMetrics(
  text: string,
): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const samples: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]] = pair[2].replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/**
 * The value of the series `name` whose labels include `labels` (summed when several match, e.g. every
 * status of a route); 0 when none does yet.
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const sample of parseMetrics(text)) {
    if (sample.name !== name) continue;
    if (Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) total += sample.value;
  }
  return total;
}
