import type { WebContext } from "../infra/context";
import { agentRuntimeCapability, aiProviderCapability, hostingCapability } from "./backend-capabilities";
import { backendFactsOf } from "./backend-facts";
import {
  type Capability,
  cardPaymentsCapability,
  identityProviderCapability,
  mailCapability,
  mppCapability,
  VARIABLES_WHERE,
} from "./capabilities";
import type { CapabilityId, SetupStatus, UnavailableFeature } from "./inputs";

/** Every capability of this server, in the checklist's order. */
export async function capabilitiesOf(ctx: Pick<WebContext, "config" | "clock">): Promise<Capability[]> {
  const facts = await backendFactsOf(ctx);
  const { config } = ctx;
  return [
    aiProviderCapability(config, facts),
    hostingCapability(config, facts),
    agentRuntimeCapability(config, facts),
    mailCapability(config),
    cardPaymentsCapability(config),
    mppCapability(config),
    identityProviderCapability(config),
  ];
}

/**
 * `GET /api/setup`: for everyone, which capabilities pages may offer and what is unavailable in plain words;
 * for an admin also each capability's state, what to set and where. Never a secret's value.
 */
export async function setupStatusOf(
  ctx: Pick<WebContext, "config" | "clock">,
  user: { isAdmin: boolean },
): Promise<SetupStatus> {
  const capabilities = await capabilitiesOf(ctx);
  const available = Object.fromEntries(capabilities.map((c) => [c.detail.id, c.available])) as Record<
    CapabilityId,
    boolean
  >;
  const unavailable: UnavailableFeature[] = capabilities.flatMap((c) =>
    c.userMessage ? [{ capability: c.detail.id, message: c.userMessage }] : [],
  );
  // One sentence for users when the backend's capabilities could not be read at all.
  const facts = await backendFactsOf(ctx);
  if (!facts.reachable) {
    unavailable.unshift({
      capability: "backend",
      message:
        "The platform's backend is not answering: deploying, chat and scheduled tasks may fail until it is back.",
    });
  }
  if (!user.isAdmin) return { role: "user", available, unavailable };
  return {
    role: "admin",
    available,
    unavailable,
    where: VARIABLES_WHERE,
    capabilities: capabilities.map((c) => c.detail),
  };
}
