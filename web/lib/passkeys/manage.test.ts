import { describe, expect, it } from "vitest";
import { POST as authVerifyRoute } from "@/app/api/passkey/auth/verify/route";
import { DELETE as deletePasskeyRoute } from "@/app/api/passkeys/[id]/route";
import { GET as listPasskeysRoute } from "@/app/api/passkeys/route";
import { type CookieJar, call, makeRequest, signedInUser, useWebTestContext } from "../infra/testing";
import { authOptions, passkeyRow, registerPasskey } from "./testing/flows";

const { clock, config } = useWebTestContext();

function deleteRequest(id: string, jar?: CookieJar) {
  return deletePasskeyRoute(
    makeRequest({ method: "DELETE", path: `/api/passkeys/${encodeURIComponent(id)}`, jar }),
    {
      params: Promise.resolve({ id }),
    },
  );
}

describe("GET /api/passkeys", () => {
  it("401 without a session", async () => {
    const res = await call(listPasskeysRoute, {});
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "sign in first", code: "unauthorized" });
  });

  it("lists only the signed-in user's passkeys, oldest first, with lastUsedAt once used", async () => {
    const me = await signedInUser();
    const other = await signedInUser();
    const createdFirst = clock.now().toISOString();
    const phone = await registerPasskey(me.jar, config, { label: "Phone" });
    clock.advance(60_000);
    const createdSecond = clock.now().toISOString();
    const laptop = await registerPasskey(me.jar, config);
    await registerPasskey(other.jar, config, { label: "Not mine" });

    clock.advance(60_000);
    const { options, challenge } = await authOptions(me.user.email);
    const signIn = await call(authVerifyRoute, {
      method: "POST",
      json: { response: laptop.authenticate(options), challenge },
    });
    expect(signIn.status).toBe(200);

    const res = await call(listPasskeysRoute, { jar: me.jar });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      passkeys: [
        { id: phone.id, label: "Phone", createdAt: createdFirst, lastUsedAt: null },
        { id: laptop.id, label: "Passkey", createdAt: createdSecond, lastUsedAt: clock.now().toISOString() },
      ],
    });
    const fresh = await signedInUser();
    expect(await (await call(listPasskeysRoute, { jar: fresh.jar })).json()).toEqual({ passkeys: [] });
  });
});

describe("DELETE /api/passkeys/[id]", () => {
  it("removes an own passkey: {ok: true}", async () => {
    const { jar } = await signedInUser();
    const key = await registerPasskey(jar, config);
    const res = await deleteRequest(key.id, jar);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(await passkeyRow(key.id)).toBeUndefined();
    expect(await (await call(listPasskeysRoute, { jar })).json()).toEqual({ passkeys: [] });
  });

  it("404 for another user's passkey, which still exists", async () => {
    const owner = await signedInUser();
    const key = await registerPasskey(owner.jar, config);
    const intruder = await signedInUser();
    const res = await deleteRequest(key.id, intruder.jar);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "passkey not found", code: "not_found" });
    expect((await passkeyRow(key.id))?.userId).toBe(owner.user.id);
  });

  it("404 for an unknown passkey; the second delete of one is 404 too", async () => {
    const { jar } = await signedInUser();
    const key = await registerPasskey(jar, config);
    expect((await deleteRequest("no-such-credential", jar)).status).toBe(404);
    expect((await deleteRequest(key.id, jar)).status).toBe(200);
    const again = await deleteRequest(key.id, jar);
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: "passkey not found", code: "not_found" });
  });

  it("401 without a session, and the passkey stays", async () => {
    const { jar } = await signedInUser();
    const key = await registerPasskey(jar, config);
    const res = await deleteRequest(key.id);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "sign in first", code: "unauthorized" });
    expect(await passkeyRow(key.id)).toBeDefined();
  });
});
