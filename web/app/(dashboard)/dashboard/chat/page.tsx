import type { Metadata } from "next";
import { FeatureUnavailable, pageSetupStatus } from "../../setup-status";
import { ChatView } from "./chat-view";

export const metadata: Metadata = { title: "Chat" };

export default async function ChatPage() {
  const setup = await pageSetupStatus();
  return (
    <ChatView
      unavailable={
        setup.available.ai_provider ? null : (
          <FeatureUnavailable status={setup} capability="ai_provider">
            Chat is not available on this server: it has no AI provider set up yet, so your agent cannot
            answer.
          </FeatureUnavailable>
        )
      }
    />
  );
}
