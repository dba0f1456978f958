import { createHash } from "node:crypto";
import {
  decodeAttestationObject,
  isoBase64URL,
  parseAuthenticatorData,
} from "@simplewebauthn/server/helpers";
import { describe, expect, it } from "vitest";
import { encodeCbor, FLAG_AT, FLAG_UP, FLAG_UV, SoftwareAuthenticator } from "./authenticator";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("encodeCbor", () => {
  it("encodes the RFC 8949 Appendix A examples it supports", () => {
    expect(hex(encodeCbor(0))).toBe("00");
    expect(hex(encodeCbor(23))).toBe("17");
    expect(hex(encodeCbor(24))).toBe("1818");
    expect(hex(encodeCbor(1000))).toBe("1903e8");
    expect(hex(encodeCbor(1000000))).toBe("1a000f4240");
    expect(hex(encodeCbor(-1))).toBe("20");
    expect(hex(encodeCbor(-100))).toBe("3863");
    expect(hex(encodeCbor("IETF"))).toBe("6449455446");
    expect(hex(encodeCbor(new Uint8Array([1, 2, 3, 4])))).toBe("4401020304");
    expect(
      hex(
        encodeCbor(
          new Map([
            [1, 2],
            [3, 4],
          ]),
        ),
      ),
    ).toBe("a201020304");
    expect(hex(encodeCbor(new Map()))).toBe("a0");
  });
});

describe("SoftwareAuthenticator", () => {
  const authenticator = new SoftwareAuthenticator({ rpId: "localhost", origin: "http://localhost:3000" });

  it("attests with fmt none and authData holding rpIdHash, UP|UV|AT, counter, zero AAGUID, id and key", () => {
    const response = authenticator.register({ challenge: "Y2hhbGxlbmdl" });
    const attestation = decodeAttestationObject(isoBase64URL.toBuffer(response.response.attestationObject));
    expect(attestation.get("fmt")).toBe("none");
    expect(attestation.get("attStmt").size).toBe(0);
    const authData = parseAuthenticatorData(attestation.get("authData"));
    expect(hex(authData.rpIdHash)).toBe(createHash("sha256").update("localhost").digest("hex"));
    expect(authData.flags.flagsInt).toBe(FLAG_UP | FLAG_UV | FLAG_AT);
    expect(authData.counter).toBe(0);
    expect(hex(authData.aaguid ?? new Uint8Array())).toBe("00".repeat(16));
    expect(isoBase64URL.fromBuffer(authData.credentialID ?? new Uint8Array())).toBe(authenticator.id);
    expect(hex(authData.credentialPublicKey ?? new Uint8Array())).toBe(hex(authenticator.cosePublicKey()));
    expect(JSON.parse(isoBase64URL.toUTF8String(response.response.clientDataJSON))).toEqual({
      type: "webauthn.create",
      challenge: "Y2hhbGxlbmdl",
      origin: "http://localhost:3000",
      crossOrigin: false,
    });
  });

  it("asserts with authenticatorData holding rpIdHash, UP|UV and the advanced counter", () => {
    const response = authenticator.authenticate({ challenge: "Y2hhbGxlbmdl" });
    const authData = parseAuthenticatorData(isoBase64URL.toBuffer(response.response.authenticatorData));
    expect(authData.flags.flagsInt).toBe(FLAG_UP | FLAG_UV);
    expect(authData.counter).toBe(1);
    expect(authenticator.counter).toBe(1);
    expect(JSON.parse(isoBase64URL.toUTF8String(response.response.clientDataJSON)).type).toBe("webauthn.get");
    // DER-encoded ECDSA signature: a SEQUENCE of two INTEGERs
    expect(hex(isoBase64URL.toBuffer(response.response.signature)).slice(0, 2)).toBe("30");
  });
});
