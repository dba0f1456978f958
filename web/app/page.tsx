export default function Home() {
  return (
    <main>
      <h1>Agent Platform</h1>
      <p>
        Deploy an AI agent, call it through the v1 gateway, and approve the tool calls that need a person.
        This server is running; its health is at <a href="/api/health">/api/health</a>.
      </p>
    </main>
  );
}
