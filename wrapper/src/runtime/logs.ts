import { StringDecoder } from "node:string_decoder";
import { type Clock, systemClock } from "@svc/common";

export type LogStream = "stdout" | "stderr";

/** One line of the runtime's output, as `/api/logs` answers it. */
export interface LogEntry {
  ts: string;
  stream: LogStream;
  line: string;
}

export type LogSubscriber = (entry: LogEntry) => void;

export const LOG_RING_CAPACITY = 500;
/** Longer lines are cut here so one runaway line cannot hold unbounded memory. */
export const MAX_LOG_LINE_BYTES = 8 * 1024;

/** Cuts `line` to at most `max` UTF-8 bytes without splitting a character. */
export function cutLine(line: string, max = MAX_LOG_LINE_BYTES): string {
  if (line.length * 3 <= max) return line;
  const bytes = Buffer.from(line, "utf8");
  if (bytes.length <= max) return line;
  let end = max;
  // Step back over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

interface PartialLine {
  decoder: StringDecoder;
  text: string;
  /** The current line already exceeded the limit: the rest of it is discarded up to its newline. */
  overflowed: boolean;
}

/**
 * The last `capacity` lines the runtime printed, fed raw chunks per stream. Partial lines wait for their
 * newline (or `flush`, on exit); subscribers receive every new entry as it is added.
 */
export class LogRing {
  private readonly entries: LogEntry[] = [];
  private readonly subscribers = new Set<LogSubscriber>();
  private readonly partial: Record<LogStream, PartialLine> = {
    stdout: { decoder: new StringDecoder("utf8"), text: "", overflowed: false },
    stderr: { decoder: new StringDecoder("utf8"), text: "", overflowed: false },
  };

  constructor(
    readonly capacity = LOG_RING_CAPACITY,
    private readonly clock: Clock = systemClock,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /** Feeds raw output of `stream`; complete lines become entries. */
  write(stream: LogStream, chunk: Buffer | string): void {
    const state = this.partial[stream];
    const text = typeof chunk === "string" ? chunk : state.decoder.write(chunk);
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      if (newline === -1) break;
      this.appendPartial(state, text.slice(start, newline));
      this.emitPartial(stream, state);
      start = newline + 1;
    }
    if (start < text.length) this.appendPartial(state, text.slice(start));
  }

  /** Emits what is left of unterminated lines (the process exited). */
  flush(stream?: LogStream): void {
    for (const name of stream ? [stream] : (["stdout", "stderr"] as const)) {
      const state = this.partial[name];
      this.appendPartial(state, state.decoder.end());
      if (state.text.length > 0 || state.overflowed) this.emitPartial(name, state);
    }
  }

  /** Adds one whole line (used for the wrapper's own notes about the process). */
  push(stream: LogStream, line: string): LogEntry {
    const entry: LogEntry = { ts: this.clock.now().toISOString(), stream, line: cutLine(line) };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    for (const subscriber of this.subscribers) {
      try {
        subscriber(entry);
      } catch {
        // A failing subscriber must not stop the others nor the runtime's output handling.
      }
    }
    return entry;
  }

  /** The last `n` entries, oldest first. */
  tail(n: number): LogEntry[] {
    if (n <= 0) return [];
    return this.entries.slice(-n);
  }

  /** Calls `fn` for each new entry; returns the unsubscribe function. */
  subscribe(fn: LogSubscriber): () => void {
    this.subscribers.add(fn);
    return () => {
      this.subscribers.delete(fn);
    };
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  private appendPartial(state: PartialLine, text: string): void {
    if (state.overflowed || text.length === 0) return;
    state.text += text;
    // Characters never outnumber bytes, so past the limit in characters the line is surely too long.
    if (state.text.length > MAX_LOG_LINE_BYTES) {
      state.text = state.text.slice(0, MAX_LOG_LINE_BYTES);
      state.overflowed = true;
    }
  }

  private emitPartial(stream: LogStream, state: PartialLine): void {
    const line = state.text.endsWith("\r") ? state.text.slice(0, -1) : state.text;
    state.text = "";
    state.overflowed = false;
    this.push(stream, line);
  }
}
