/**
 * The web's routes for its OpenAPI document: one entry per `app/**\/route.ts` method, with the zod schemas
 * the route validates with, each in its area's `openapi.ts`. A new route adds its entry there (and a new
 * area its list here); `openapi.test.ts` fails until it does.
 */
import type { ApiOperation } from "@svc/common/openapi/index";
import { accountsOperations } from "../../accounts/openapi";
import { agentsOperations } from "../../agents/openapi";
import { apiKeysOperations } from "../../apikeys/openapi";
import { boardOperations } from "../../board/openapi";
import { buddiesOperations } from "../../buddies/openapi";
import { chainOperations } from "../../chain/openapi";
import { chatOperations } from "../../chat/openapi";
import { filesOperations } from "../../files/openapi";
import { gatewayOperations } from "../../gateway/openapi";
import { healthOperations } from "../../health/openapi";
import { heartbeatOperations } from "../../heartbeat/openapi";
import { idpOperations } from "../../idp/openapi";
import { initDeepOperations } from "../../initdeep/openapi";
import { partnersOperations } from "../../partners/openapi";
import { passkeysOperations } from "../../passkeys/openapi";
import { permissionsOperations } from "../../permissions/openapi";
import { personaOperations } from "../../persona/openapi";
import { jobsOperations } from "../../platform-jobs/openapi";
import { radioOperations } from "../../radio/openapi";
import { riscOperations } from "../../risc/openapi";
import { runtimeOperations } from "../../runtime/openapi";
import { tasksOperations } from "../../scheduled-tasks/openapi";
import { sessionsOperations } from "../../sessions/openapi";
import { setupOperations } from "../../setup/openapi";
import { skillsOperations } from "../../skills/openapi";
import { socialOperations } from "../../social/openapi";
import { walletsOperations } from "../../wallets/openapi";
import { webhooksOperations } from "../../webhooks/openapi";
import { csrfOperations } from "../csrf/openapi";
import { metaOperations } from "./meta";
import { withSharedResponses } from "./shared";

/** The table; each entry gets the shared 403 and 413 its route answers from ./shared.ts. */
const operations: readonly ApiOperation[] = [
  ...agentsOperations,
  ...jobsOperations,
  ...filesOperations,
  ...boardOperations,
  ...buddiesOperations,
  ...socialOperations,
  ...partnersOperations,
  ...chainOperations,
  ...walletsOperations,
  ...radioOperations,
  ...accountsOperations,
  ...metaOperations,
  ...healthOperations,
  ...csrfOperations,
  ...sessionsOperations,
  ...idpOperations,
  ...passkeysOperations,
  ...apiKeysOperations,
  ...chatOperations,
  ...heartbeatOperations,
  ...permissionsOperations,
  ...runtimeOperations,
  ...riscOperations,
  ...webhooksOperations,
  ...gatewayOperations,
  ...tasksOperations,
  ...skillsOperations,
  ...initDeepOperations,
  ...personaOperations,
  ...setupOperations,
];

export const webOperations: readonly ApiOperation[] = operations.map(withSharedResponses);
