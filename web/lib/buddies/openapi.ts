import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, session } from "../infra/openapi/responses";
import { buddyActionBody, buddySchema, createBuddyBody } from "./inputs";

const tags = ["buddies"];

/** The buddies' routes. */
export const buddiesOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/buddies",
    summary: "The caller's buddies, oldest first",
    tags,
    auth: ["session", "apiKey"],
    scope: "buddies:read",
    success: { status: 200, description: "`{buddies}`", schema: z.object({ buddies: z.array(buddySchema) }) },
    errors: session,
  },
  {
    method: "post",
    path: "/api/buddies",
    summary: "Hatch a buddy (at most 20 per user)",
    tags,
    auth: ["session", "apiKey"],
    scope: "buddies:write",
    body: createBuddyBody,
    success: { status: 201, description: "`{buddy}`", schema: z.object({ buddy: buddySchema }) },
    errors: { ...session, ...crossSite, 400: "bad name or type, or 20 buddies reached" },
  },
  {
    method: "patch",
    path: "/api/buddies/{buddyId}",
    summary: "Feed, play with, train or rename a buddy",
    tags,
    auth: ["session", "apiKey"],
    scope: "buddies:write",
    body: buddyActionBody,
    success: {
      status: 200,
      description: "`{buddy, leveledUp}`; for rename `{buddy}`",
      schema: z.object({ buddy: buddySchema, leveledUp: z.boolean().optional() }),
    },
    errors: {
      ...session,
      ...crossSite,
      400: "bad action or name, or energy below 30 to train",
      404: "no such buddy of the caller",
    },
  },
  {
    method: "delete",
    path: "/api/buddies/{buddyId}",
    summary: "Delete a buddy",
    tags,
    auth: ["session", "apiKey"],
    scope: "buddies:write",
    success: {
      status: 200,
      description: "`{success: true}`",
      schema: z.object({ success: z.literal(true) }),
    },
    errors: { ...session, ...crossSite, 404: "no such buddy of the caller" },
  },
];
