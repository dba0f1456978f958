/**
 * The backend tests' shared fixtures: the file's database, its app, users and the web's signed headers.
 *
 * Where test support lives (backend/, wrapper/, summarizer/, common/): in a `testing/` folder beside the
 * code it serves — `<area>/testing/<what>.ts`, fakes of outside systems in common/testing/fakes/ — imported
 * only by tests. Not `testing.ts` or `test-support.ts` files, not helpers exported from a `*.test.ts`.
 *
 * Waiting: `vi.waitFor` or `expect.poll` for a condition, or await the event itself (a promise, an emitted
 * event, a row). A sleep only where a test proves something does NOT happen, with a line saying so.
 *
 *   const app = testApp({ env: { ADMIN_EMAILS: "ops@example.com" } });
 *   const user = await createUser({ plan: "pro" });
 *   await request(app).get("/api/admin/users").set(headersFor(user, "admin"));
 */
export * from "./app";
export * from "./keys";
export * from "./users";
