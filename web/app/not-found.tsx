import type { Metadata } from "next";

export const metadata: Metadata = { title: "Page not found · Agent Platform" };

/** Any address without a page (outside the dashboard, which has its own): said plainly, with ways back. */
export default function NotFound() {
  return (
    <main className="narrow">
      <h1>Page not found</h1>
      <p>There is no page at this address. The link may be mistyped or out of date.</p>
      <p className="alternatives">
        <a className="button" href="/dashboard" data-testid="not-found-back">
          Go to your dashboard
        </a>
        <a className="button secondary" href="/">
          Home
        </a>
      </p>
    </main>
  );
}
