import type { Database } from "@svc/db";
import { gatewayChatProcessor } from "../chat/processor";
import { notAvailableYet, type ProcessorRegistry } from "./processors";

/** The processor of every job type. */
export function platformProcessors(deps: {
  db: Database;
  dataEncryptionKey: string | undefined;
}): ProcessorRegistry {
  return {
    gateway_chat_completion: gatewayChatProcessor(deps),
    provision_managed_runtime: notAvailableYet("provision_managed_runtime"),
    runtime_sync: notAvailableYet("runtime_sync"),
    retry_repair: notAvailableYet("retry_repair"),
  };
}
