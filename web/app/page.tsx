export default function Home() {
  return (
    <main>
      <h1>Agent Platform</h1>
      <p>
        Deploy an AI agent, call it through the v1 gateway, and approve the tool calls that need a person.
      </p>
      <p className="alternatives">
        <a className="button" href="/signup">
          Create an account
        </a>
        <a className="button secondary" href="/login">
          Sign in
        </a>
      </p>
      <p>
        <a href="/partners">Partner with us</a>
      </p>
    </main>
  );
}
