import type { Readable } from "node:stream";
import Busboy, { type BusboyFileStream, type BusboyInstance } from "@fastify/busboy";
import {
  fieldTooLong,
  fieldTwice,
  malformedMultipart,
  notMultipart,
  oneFileOnly,
  unknownField,
} from "./errors";

/** The upload was cut off: the file passed `limit` bytes. Nothing of it may be kept. */
export class UploadCutOff extends Error {
  constructor(
    readonly limit: number,
    /** The name the client sent for the file (not sanitized). */
    readonly filename: string,
  ) {
    super(`upload cut off at ${limit} bytes`);
    this.name = "UploadCutOff";
  }
}

/** The upload failed for another reason while its file was being stored. */
class UploadAbandoned extends Error {
  constructor() {
    super("upload abandoned");
    this.name = "UploadAbandoned";
  }
}

export interface ReceivedFile {
  /** The name the client sent, path included (not yet sanitized). */
  filename: string;
  /** The part's Content-Type as sent. */
  contentType: string;
  /** Bytes stored. */
  size: number;
}

export interface ReceiveOptions {
  contentType: string;
  body: Readable;
  /** The multipart field carrying the file. */
  fileField: string;
  /** The text fields accepted beside it; any other field is a 400. */
  textFields: readonly string[];
  /** The file is cut off (UploadCutOff) as soon as it passes this many bytes. */
  maxFileBytes: number;
  /**
   * Called when the file part starts, with the text fields seen before it: stores the stream as it arrives
   * and resolves when stored (rejects, storing nothing, when the stream fails).
   */
  storeFile(
    stream: Readable,
    part: { filename: string; contentType: string },
    fieldsSoFar: ReadonlyMap<string, string>,
  ): Promise<void>;
}

const MAX_FIELD_BYTES = 1024;

/**
 * Reads a multipart/form-data body with busboy, streaming: the file's bytes go to `storeFile` as they
 * arrive (busboy pauses the request while storage is behind), never buffered whole. Resolves with the text
 * fields and the file once the body is read and the file stored; rejects with a 400 for a malformed body,
 * an unknown field or a second file, or with UploadCutOff over `maxFileBytes`, always after `storeFile` has
 * settled, so the caller can clean up knowing no write is still running. After a failure the rest of the
 * body is read and discarded (the client still receives the answer).
 */
export function receiveMultipart(options: ReceiveOptions): Promise<{
  fields: Map<string, string>;
  file: ReceivedFile | null;
}> {
  const { body } = options;
  if (!/^multipart\/form-data\s*;/i.test(options.contentType)) return Promise.reject(notMultipart());
  let parser: BusboyInstance;
  try {
    parser = new Busboy({
      headers: { "content-type": options.contentType },
      // Sanitizing applies to the name as sent, path included (busboy would keep the basename).
      preservePath: true,
      isPartAFile: (_field, _type, filename) => filename !== undefined,
      limits: {
        fileSize: options.maxFileBytes,
        files: 1,
        // Room for a few unexpected fields, so they are named in the answer rather than counted.
        fields: options.textFields.length + 8,
        fieldSize: MAX_FIELD_BYTES,
        parts: options.textFields.length + 10,
      },
    });
  } catch (err) {
    return Promise.reject(malformedMultipart((err as Error).message));
  }

  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    let file: ReceivedFile | null = null;
    let fileStream: BusboyFileStream | undefined;
    let stored: Promise<unknown> | undefined;
    let settled = false;
    let cutOff: UploadCutOff | undefined;

    const finish = async (failure?: unknown) => {
      if (settled) return;
      settled = true;
      body.unpipe(parser);
      if (failure) {
        // Stops a store in progress (it rejects and keeps nothing).
        fileStream?.destroy(new UploadAbandoned());
        body.resume();
      }
      const storeFailure = stored
        ? await stored.then(
            () => undefined,
            (err: unknown) => err ?? new Error("store failed"),
          )
        : undefined;
      const error = cutOff ?? failure ?? storeFailure;
      if (error) reject(error);
      else {
        if (file && fileStream) file.size = fileStream.bytesRead;
        resolve({ fields, file });
      }
    };

    parser.on("file", (name, stream, filename, _encoding, contentType) => {
      // Parts already buffered may still arrive after a failure: never store them.
      if (settled) {
        stream.resume();
        return;
      }
      if (name !== options.fileField) {
        stream.resume();
        void finish(unknownField(name));
        return;
      }
      fileStream = stream;
      file = { filename, contentType, size: 0 };
      // Busboy stops pushing at the limit and would end the stream as if complete: fail it instead.
      // Its failures reach us through storeFile's promise; an unlistened 'error' would crash the process.
      stream.on("error", () => undefined);
      stream.on("limit", () => {
        cutOff = new UploadCutOff(options.maxFileBytes, filename);
        stream.destroy(cutOff);
      });
      stored = options.storeFile(stream, { filename, contentType }, new Map(fields));
      stored.catch((err: unknown) => void finish(err));
    });
    parser.on("field", (name, value, nameTruncated, valueTruncated) => {
      if (settled) return;
      if (!options.textFields.includes(name) || nameTruncated) void finish(unknownField(name));
      else if (valueTruncated) void finish(fieldTooLong(name, MAX_FIELD_BYTES));
      else if (fields.has(name)) void finish(fieldTwice(name));
      else fields.set(name, value);
    });
    parser.on("filesLimit", () => void finish(oneFileOnly()));
    parser.on("fieldsLimit", () => void finish(malformedMultipart("too many fields")));
    parser.on("partsLimit", () => void finish(malformedMultipart("too many parts")));
    parser.on("error", (err: Error) => void finish(malformedMultipart(err.message)));
    parser.on("finish", () => void finish());
    body.on("error", (err) => void finish(err));
    body.pipe(parser);
  });
}
