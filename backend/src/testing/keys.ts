/**
 * The keys of every backend test: the running servers' (common/testing/running-servers), so the same headers
 * reach an in-process app (`testApp`) and a backend started with `useRunningServers`.
 */
export {
  RUNNING_DATA_ENCRYPTION_KEY as DATA_ENCRYPTION_KEY,
  RUNNING_HMAC_SECRET as HMAC_SECRET,
  RUNNING_INTERNAL_API_KEY as INTERNAL_API_KEY,
} from "@svc/common/testing/running-servers";
