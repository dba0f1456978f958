import { Card, Notice } from "@/components/ui";

/** How a program pays a gateway call: MPP per call, or a pre-funded session debited per call. */
export function GatewayUsage({ origin, mpp }: { origin: string; mpp: boolean }) {
  const mppExample = `import { Mppx, evm } from "mppx/client";

const mppx = Mppx.create({ methods: [evm.charge({ account })] }); // a viem account holding the token
const res = await mppx.fetch("${origin}/api/v1/gateway", {
  method: "POST",
  headers: { "content-type": "application/json", "x-payment-method": "mpp" },
  body: JSON.stringify({ plugin: "generate-text", messages: [{ role: "user", content: "Hi" }] }),
});
// res.headers.get("payment-receipt") is the settlement's transaction hash`;
  const sessionExample = `# open: pay the deposit the same way (the paying wallet owns the session)
POST ${origin}/api/wallet/sessions   {"deposit": "5.00"}
→ 201 {"sessionId", "walletAddress", "balance", "expiresAt"}

# each call
POST ${origin}/api/v1/gateway
X-Payment-Method: session
X-Session-Id: <sessionId>
X-Wallet-Address: <walletAddress>
Idempotency-Key: <optional; a retry is answered without a second debit>
→ Payment-Receipt: session:<sessionId>:<n>   X-Session-Remaining: <balance>`;
  return (
    <Card
      title="Calling the gateway"
      testId="gateway-usage"
      description={
        <>
          <code>POST {origin}/api/v1/gateway</code> with a JSON body: <code>plugin</code> (default{" "}
          <code>agent</code>) and the plugin's own fields, e.g. <code>messages</code>. Send{" "}
          <code>Accept: text/event-stream</code> to stream.
        </>
      }
    >
      {mpp ? null : (
        <Notice tone="warning" testId="mpp-not-configured">
          MPP is not configured on this server (<code>MPP_RECIPIENT</code>, <code>MPP_FACILITATOR_URL</code>):
          MPP and session calls answer 503 until it is.
        </Notice>
      )}
      <h3 className="subheading">Pay per call with MPP</h3>
      <p>
        Without a payment the gateway answers 402 with a <code>WWW-Authenticate: Payment …</code> challenge
        (an EVM charge in an EIP-3009 token). An MPP client signs it and repeats the call with{" "}
        <code>Authorization: Payment &lt;credential&gt;</code>; each credential pays one call.
      </p>
      <pre className="code-block">
        <code>{mppExample}</code>
      </pre>
      <h3 className="subheading">Pre-funded session</h3>
      <p>Pay once into a session, then each call is debited from its balance without a payment of its own.</p>
      <pre className="code-block">
        <code>{sessionExample}</code>
      </pre>
    </Card>
  );
}
