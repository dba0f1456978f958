/** The v1 gateway's routes in the web's OpenAPI document (assembled in ../infra/openapi/operations.ts). */
import { type ApiOperation, backendErrorBody, jsonObject } from "@svc/common/openapi/index";
import { z } from "zod";
import { session } from "../infra/openapi/responses";
import {
  billingOverview,
  checkoutQuery,
  gatewayBody,
  openSessionBody,
  paymentRequiredBody,
  paymentSessionView,
} from "./inputs";

const paymentRequired = {
  status: 402,
  description:
    "`payment_required` with the MPP offer (and `WWW-Authenticate: Payment amount=…, currency=…, recipient=…, id=…, " +
    'realm=…, method="evm", intent="charge", request=…, expires=…`) and the card block',
  schema: paymentRequiredBody,
};

export const gatewayOperations: readonly ApiOperation[] = [
  {
    method: "post",
    path: "/api/v1/gateway",
    summary: "Call a plugin (agent, generate-text, tts, stt), paid by card credit, MPP or a payment session",
    description:
      "Plugin: `X-Plugin-Id`, else body `plugin`, else `agent`. Payment: `X-Payment-Method` (`stripe` default, " +
      "`mpp`, `session`); else `Authorization: Payment <credential>` means `mpp`; else card credit of the " +
      "signed-in user (or the API key's owner). Sessions send `X-Session-Id` and `X-Wallet-Address` (and may send `Idempotency-Key`). " +
      "The plugin's status, body and Content-Type come back (server-sent events with `Accept: text/event-stream`), " +
      "with `x-plugin-id`, `Payment-Receipt` (MPP: transaction hash; session: voucher) and `X-Session-Remaining`. " +
      "Each plugin takes only its own fields, within caps, checked before anything is charged: agent and " +
      "generate-text a chat completion (`messages` required; `max_tokens` at most 4096 / 1024, sent as the cap " +
      "when absent; `n` at most 1; at most 100 / 50 messages, 64 / 16 tools and 64,000 / 16,000 characters of " +
      "prompt), tts `text` (at most 4096 characters) with `voice`, `model`, `format`, `speed` (0.25 to 4), " +
      "`language`, stt `audio` (base64) with `format`, `language`, `model`, `prompt`. Refunds (card credit, " +
      "session; MPP is settled on chain): only when the plugin did no work, i.e. it was never reached or it " +
      "answered a 5xx other than 504; once it had the request (a timeout, a connection broken after sending, " +
      "its 504) the call stays paid. Card credit can also be spent with an API key holding `billing:write`.",
    tags: ["gateway"],
    auth: ["none", "session", "apiKey"],
    scope: "billing:write",
    body: gatewayBody,
    // The platform's AI plugins (those without an upstream URL of their own) are served by the backend.
    backendRoutes: ["POST /api/ai/gateway"],
    success: { status: 200, description: "the plugin's answer", schema: jsonObject },
    errorBody: backendErrorBody,
    errors: {
      400:
        "`unknown_plugin`, a bad X-Payment-Method, a non-JSON body; `invalid_request`: a field the plugin does not " +
        "take, a missing one, or one over its cap (the message names it), nothing charged",
      401:
        "`Unauthorized`: a plugin registered with auth and no session cookie, verified MPP credential or active " +
        "payment session (`WWW-Authenticate` carries the plugin's MPP challenge when MPP is configured)",
      402: {
        ...paymentRequired,
        description: `${paymentRequired.description}; or \`session_required\`, \`session_invalid\`, \`insufficient_balance\` (with \`session.remaining\`, \`session.cost\`), \`voucher_failed\``,
      },
      409:
        "`idempotency_in_progress`: the first call with this Idempotency-Key is still running; " +
        "`idempotency_answer_not_kept`: it was answered (status in the message) and paid once (`Payment-Receipt`, " +
        "`X-Session-Remaining`) but its answer was not kept (over 1 MB, a stream that did not end, or none recorded within 15 minutes)",
      500: "`internal`",
      502:
        "`no_plugin` (no upstream configured) or `upstream_unreachable` (refunded when the plugin was never reached; " +
        "when it broke off after receiving the call, the call stays paid); `payment_settlement_unknown`: the MPP " +
        "facilitator's connection broke or it failed after the settlement was sent, or (a retry) that credential's " +
        "earlier settlement has an unknown outcome: the payment may have gone through, the credential is never " +
        "settled again (retrying it does not charge twice)",
      503: "MPP is not configured (names the variable)",
      504:
        "`upstream_timeout`: no answer in 30 s (the call stays paid once the plugin had it); `payment_settlement_unknown`: the MPP facilitator did not answer " +
        "the settlement in time (`MPP_FACILITATOR_TIMEOUT_MS`): the payment may have gone through",
    },
  },
  {
    method: "get",
    path: "/api/v1/payments/card/create",
    summary:
      "Buy a card credit pack: a checkout session at the card provider, answered with a redirect to it",
    tags: ["gateway"],
    auth: ["session", "apiKey"],
    scope: "billing:write",
    query: checkoutQuery,
    success: { status: 303, description: "redirect to the provider's checkout page" },
    errors: {
      400: "unknown plugin",
      ...session,
      502: "the card provider could not be reached or refused",
      503: "STRIPE_SECRET_KEY unset",
    },
  },
  {
    method: "post",
    path: "/api/webhooks/stripe",
    summary:
      "The card provider's events: a paid checkout the platform created (completed, or a delayed payment's " +
      "async_payment_succeeded) credits its buyer the USD amount sold, once per event id and once per checkout",
    tags: ["webhooks"],
    auth: ["webhookSecret"],
    body: jsonObject,
    success: {
      status: 200,
      description:
        "`{received: true, credited?}`; a checkout the platform did not create, or not paid in USD the amount " +
        "sold, is acknowledged with `{received: true}` and credits nothing",
      schema: z.object({ received: z.literal(true), credited: z.string().optional() }),
    },
    errors: { 400: "bad or missing Stripe-Signature", 503: "STRIPE_WEBHOOK_SECRET unset" },
  },
  {
    method: "post",
    path: "/api/wallet/sessions",
    summary: "Open a pre-funded payment session by paying its deposit with an MPP credential",
    tags: ["gateway"],
    auth: ["none"],
    body: openSessionBody,
    success: {
      status: 201,
      description:
        "the session; a copy of a deposit credential already settled answers that deposit's one session " +
        "(opening it if it does not exist yet)",
      schema: paymentSessionView,
    },
    errorBody: backendErrorBody,
    errors: {
      400: "deposit missing or outside the configured range",
      402: {
        ...paymentRequired,
        description:
          "no or a refused credential (or a copy arriving while it is being settled): the MPP offer for the deposit",
      },
      502:
        "`payment_settlement_unknown`: the facilitator's connection broke or it failed after the deposit's " +
        "settlement was sent (or a retry of such a credential): the deposit may have gone through; never settled again",
      503: "MPP is not configured (names the variable)",
      504:
        "`payment_settlement_unknown`: the facilitator did not answer the deposit's settlement in time: it may " +
        "have gone through; never settled again",
    },
  },
  {
    method: "get",
    path: "/api/wallet/sessions/{id}",
    summary: "A payment session, read by its wallet (`X-Wallet-Address`)",
    tags: ["gateway"],
    auth: ["none"],
    success: { status: 200, description: "the session", schema: paymentSessionView },
    errorBody: backendErrorBody,
    errors: { 400: "X-Wallet-Address missing or not an address", 404: "unknown id or another wallet" },
  },
  {
    method: "get",
    path: "/api/gateway/billing",
    summary:
      "The signed-in user's card credit, whether card and MPP payments are configured, and plugin prices",
    tags: ["gateway"],
    auth: ["session", "apiKey"],
    scope: "billing:read",
    backendRoutes: ["GET /api/setup"],
    success: { status: 200, description: "the billing overview", schema: billingOverview },
    errors: session,
  },
];
