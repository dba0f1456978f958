import { ConfigError, flag, httpUrl, positiveInt } from "@svc/common";
import { z } from "zod";
import { readPlanValues, valueOfPlan } from "../infra/config/plans";

const MIB = 1024 * 1024;

/** The files area's variables (spread into the web's env schema). */
export const filesEnv = {
  /** Largest single upload in bytes; a longer upload is cut off at this many bytes with 413. */
  FILE_MAX_BYTES: positiveInt(25 * MIB),
  /** Storage quota per user in MiB, for every plan without its own `FILE_QUOTA_MB_<PLAN>`. */
  FILE_QUOTA_MB: positiveInt(10),
  /** `local` (a directory of this machine) or `s3` (any S3-compatible store; several web machines share it). */
  FILES_STORAGE: z.enum(["local", "s3"], "must be local or s3").default("local"),
  /** `local` storage: the upload directory; default `<DATA_DIR>/files`. */
  FILES_DIR: z.string().optional(),
  /** `s3` storage: endpoint of an S3-compatible store; unset → AWS S3 of S3_REGION. */
  S3_ENDPOINT: httpUrl().optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default("us-east-1"),
  /** Unset → the AWS SDK's default credential chain (environment, instance role). */
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`), which most self-hosted stores need. */
  S3_FORCE_PATH_STYLE: flag(false),
};

export interface FilesPlanConfig {
  /** MiB per plan (keys as `planVariableName` of ../infra/config/plans), from the `FILE_QUOTA_MB_<PLAN>` variables. */
  fileQuotaMbByPlan: Readonly<Record<string, number>>;
}

/**
 * The per-plan quotas (variables named by pattern, which the env schema cannot list) and the rules across
 * variables: the `s3` storage needs S3_BUCKET, and both S3 keys or neither. Throws ConfigError naming
 * each bad variable.
 */
export function loadFilesPlanConfig(
  env: Record<string, string | undefined>,
  parsed: {
    FILES_STORAGE: "local" | "s3";
    S3_BUCKET?: string;
    S3_ACCESS_KEY_ID?: string;
    S3_SECRET_ACCESS_KEY?: string;
  },
): FilesPlanConfig {
  const problems: string[] = [];
  const fileQuotaMbByPlan = readPlanValues(env, "FILE_QUOTA_MB", problems);
  if (parsed.FILES_STORAGE === "s3" && !parsed.S3_BUCKET) {
    problems.push("S3_BUCKET: is required when FILES_STORAGE=s3");
  }
  if (Boolean(parsed.S3_ACCESS_KEY_ID) !== Boolean(parsed.S3_SECRET_ACCESS_KEY)) {
    problems.push("S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { fileQuotaMbByPlan };
}

/** The storage quota of a plan in bytes. */
export function quotaBytesOfPlan(config: { FILE_QUOTA_MB: number } & FilesPlanConfig, plan: string): number {
  return valueOfPlan(config.fileQuotaMbByPlan, plan, config.FILE_QUOTA_MB) * MIB;
}
