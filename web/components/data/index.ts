export { ApiError, type ApiInit, api, apiErrorOf, fieldOf, type Json, messageOf } from "./api";
export { useAgentNames } from "./use-agent-names";
export { type LiveSocketOptions, type LiveStatus, useLiveSocket } from "./use-live-socket";
export { usePolling } from "./use-polling";
export { type Resource, useResource } from "./use-resource";
