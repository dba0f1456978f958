/**
 * The setup checklist's words: each capability's state, what to set for it (variables, whether set, never a
 * secret's value) and, when it is off, one sentence a user understands. Here the web's own capabilities;
 * the backend's (from its facts) in ./backend-capabilities.ts.
 */
import { urlWithoutSecrets } from "@svc/common/setup";
import { mppConfigured } from "../gateway/billing/mpp";
import type { WebConfig } from "../infra/config";
import type { CapabilityDetail, CapabilityId, SetupVariable } from "./inputs";

/** Where variables go: `npm start` reads `.env`; a service started otherwise reads its environment. */
export const VARIABLES_WHERE =
  "Set variables in the .env file beside .env.example (npm start reads it; a variable already in the " +
  "environment wins), or in the environment of the service named; then restart the platform (stop npm " +
  "start with Ctrl-C and run it again): each service reads its variables once, at start.";

/** A capability as the checklist shows it, and the sentence for users when it is off. */
export interface Capability {
  detail: CapabilityDetail;
  /** Whether pages may offer it: false only when it is known to be off. */
  available: boolean;
  /** For users, when it is off or limited in a way they meet. */
  userMessage: string | null;
}

export type Config = WebConfig;

const webVariable = (
  name: string,
  isSet: boolean,
  meaning: string,
  { required = true, value = null }: { required?: boolean; value?: string | null } = {},
): SetupVariable => ({ name, service: "web", required, isSet, value, meaning });

export function capability(
  id: CapabilityId,
  name: string,
  fields: Partial<Omit<CapabilityDetail, "id" | "name">> & Pick<CapabilityDetail, "state" | "summary">,
): CapabilityDetail {
  return { id, name, action: null, command: null, variables: [], restartNeeded: true, ...fields };
}

export function mailCapability(config: Config): Capability {
  const name = "Mail";
  const variables = [
    webVariable("SMTP_URL", Boolean(config.SMTP_URL), "smtp://user:password@host:587 of your mail server", {
      value: config.SMTP_URL ? urlWithoutSecrets(config.SMTP_URL) : null,
    }),
    webVariable("MAIL_FROM", true, "the sender of platform mail", {
      required: false,
      value: config.MAIL_FROM,
    }),
  ];
  if (config.SMTP_URL) {
    return {
      detail: capability("mail", name, {
        state: "ready",
        summary: `Mail is sent through ${urlWithoutSecrets(config.SMTP_URL)} as ${config.MAIL_FROM}.`,
        variables,
      }),
      available: true,
      userMessage: null,
    };
  }
  return {
    detail: capability("mail", name, {
      state: "attention",
      summary: `No mail server: each message (confirmation links) is written to ${config.DATA_DIR}/mail as an .eml file instead, and nobody receives it.`,
      action: "Set SMTP_URL for the web to send mail; until then, open the newest file in that folder.",
      variables,
    }),
    available: false,
    userMessage:
      "Email: this server sends no mail, so links we would email you (such as the confirmation link) stay on the server; ask its administrator for them.",
  };
}

export function cardPaymentsCapability(config: Config): Capability {
  const name = "Card payments";
  const variables = [
    webVariable("STRIPE_SECRET_KEY", Boolean(config.STRIPE_SECRET_KEY), "the card provider's secret key"),
    webVariable(
      "STRIPE_WEBHOOK_SECRET",
      Boolean(config.STRIPE_WEBHOOK_SECRET),
      "signs the provider's webhook (POST /api/webhooks/stripe), which adds the credit",
    ),
  ];
  if (!config.STRIPE_SECRET_KEY) {
    return {
      detail: capability("card_payments", name, {
        state: "off",
        summary: "Nobody can buy card credit; gateway calls can be paid only with MPP or a payment session.",
        action: "Set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET for the web.",
        variables,
      }),
      available: false,
      userMessage: "Buying card credit: card payments are not set up on this server.",
    };
  }
  if (!config.STRIPE_WEBHOOK_SECRET) {
    return {
      detail: capability("card_payments", name, {
        state: "attention",
        summary:
          "Checkout works, but paid credit is never added: the provider's webhook is refused without STRIPE_WEBHOOK_SECRET.",
        action: `Set STRIPE_WEBHOOK_SECRET for the web, and point the provider's webhook at ${config.PUBLIC_URL.replace(/\/+$/, "")}/api/webhooks/stripe.`,
        variables,
      }),
      available: true,
      userMessage: null,
    };
  }
  return {
    detail: capability("card_payments", name, {
      state: "ready",
      summary: `Users can buy card credit (${config.CARD_CREDIT_PACK_USD} USD per checkout); the provider's webhook adds it.`,
      variables,
    }),
    available: true,
    userMessage: null,
  };
}

export function mppCapability(config: Config): Capability {
  const name = "MPP payments";
  const variables = [
    webVariable("MPP_RECIPIENT", Boolean(config.MPP_RECIPIENT), "the wallet address paid"),
    webVariable("MPP_SECRET", Boolean(config.MPP_SECRET), "the challenge key (npm start generates one)"),
    webVariable(
      "MPP_FACILITATOR_URL",
      Boolean(config.MPP_FACILITATOR_URL),
      "the facilitator that settles payments",
      {
        value: config.MPP_FACILITATOR_URL ? urlWithoutSecrets(config.MPP_FACILITATOR_URL) : null,
      },
    ),
  ];
  if (mppConfigured(config)) {
    return {
      detail: capability("mpp", name, {
        state: "ready",
        summary: "Programs can pay per call with MPP and open pre-funded payment sessions.",
        variables,
      }),
      available: true,
      userMessage: null,
    };
  }
  const missing = variables.filter((v) => !v.isSet).map((v) => v.name);
  return {
    detail: capability("mpp", name, {
      state: "off",
      summary: "Gateway calls paid with MPP, and payment sessions, answer 503.",
      action: `Set ${missing.join(", ")} for the web.`,
      variables,
    }),
    available: false,
    userMessage: "Paying per call with MPP, and payment sessions: not set up on this server.",
  };
}

export function identityProviderCapability(config: Config): Capability {
  const name = "Identity provider";
  const callback = `${config.PUBLIC_URL.replace(/\/+$/, "")}/api/auth/idp/callback`;
  const variables = [
    webVariable("IDP_ISSUER", Boolean(config.IDP_ISSUER), "the OpenID Connect issuer URL", {
      value: config.IDP_ISSUER ? urlWithoutSecrets(config.IDP_ISSUER) : null,
    }),
    webVariable("IDP_CLIENT_ID", Boolean(config.IDP_CLIENT_ID), "this platform's client id there"),
    webVariable(
      "IDP_CLIENT_SECRET",
      Boolean(config.IDP_CLIENT_SECRET),
      "its client secret (confidential clients)",
      {
        required: false,
      },
    ),
  ];
  if (config.IDP_ISSUER && config.IDP_CLIENT_ID) {
    return {
      detail: capability("identity_provider", name, {
        state: "ready",
        summary: `"Continue with identity provider" signs people in through ${urlWithoutSecrets(config.IDP_ISSUER)}.`,
        variables,
      }),
      available: true,
      userMessage: null,
    };
  }
  return {
    detail: capability("identity_provider", name, {
      state: "off",
      summary: 'The sign-in page shows no "Continue with identity provider" button.',
      action: `Register ${callback} as a redirect URL at your provider, then set IDP_ISSUER, IDP_CLIENT_ID and IDP_CLIENT_SECRET for the web.`,
      variables,
    }),
    available: false,
    userMessage: "Signing in with an identity provider: not set up on this server.",
  };
}
