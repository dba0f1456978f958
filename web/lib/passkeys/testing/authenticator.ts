/**
 * A software WebAuthn authenticator for tests: one P-256 credential (node:crypto) that answers
 * registration with `none` attestation and authentication with a real ES256 signature, producing the same
 * JSON a browser hands to @simplewebauthn/browser's callers.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";

/** Authenticator data flags (WebAuthn §6.1). */
export const FLAG_UP = 0x01;
export const FLAG_UV = 0x04;
export const FLAG_AT = 0x40;

type CborValue = number | string | Uint8Array | CborMap;
type CborMap = Map<number | string, CborValue>;

function cborHead(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(length, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(length, 1);
  return b;
}

/** The small subset of CBOR (RFC 8949) WebAuthn needs: ints, byte and text strings, maps. */
export function encodeCbor(value: CborValue): Buffer {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error("only integers are supported");
    return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  }
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  const parts = [cborHead(5, value.size)];
  for (const [k, v] of value) parts.push(encodeCbor(k), encodeCbor(v));
  return Buffer.concat(parts);
}

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export interface CeremonyOverrides {
  /** Default: the authenticator's origin. */
  origin?: string;
  /** Default: the authenticator's rpId. */
  rpId?: string;
  /** Default: UP|UV (plus AT for registration). */
  flags?: number;
  /** Signature counter to report; default: the stored counter (after the step for authentication). */
  counter?: number;
  /** clientDataJSON type; default `webauthn.create` / `webauthn.get`. */
  type?: string;
}

export class SoftwareAuthenticator {
  readonly rpId: string;
  readonly origin: string;
  readonly credentialId: Buffer;
  readonly transports: AuthenticatorTransportFuture[];
  /** The signature counter; it advances by `counterStep` on every assertion (0: a counter-less key). */
  counter: number;
  counterStep: number;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;

  constructor(options: {
    rpId: string;
    origin: string;
    counter?: number;
    counterStep?: number;
    transports?: AuthenticatorTransportFuture[];
  }) {
    this.rpId = options.rpId;
    this.origin = options.origin;
    this.counter = options.counter ?? 0;
    this.counterStep = options.counterStep ?? 1;
    this.transports = options.transports ?? ["internal", "hybrid"];
    this.credentialId = randomBytes(32);
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  /** The credential id, base64url: `id` and `rawId` of the responses, and the stored passkey id. */
  get id(): string {
    return this.credentialId.toString("base64url");
  }

  /** The public key as a COSE_Key (EC2, ES256, P-256). */
  cosePublicKey(): Buffer {
    const jwk = this.publicKey.export({ format: "jwk" });
    return encodeCbor(
      new Map<number, CborValue>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x ?? "", "base64url")],
        [-3, Buffer.from(jwk.y ?? "", "base64url")],
      ]),
    );
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), "utf8");
  }

  /** navigator.credentials.create() for options carrying `challenge` (base64url). */
  register(options: { challenge: string }, overrides: CeremonyOverrides = {}): RegistrationResponseJSON {
    const authData = Buffer.concat([
      sha256(overrides.rpId ?? this.rpId),
      Buffer.from([overrides.flags ?? FLAG_UP | FLAG_UV | FLAG_AT]),
      uint32(overrides.counter ?? this.counter),
      Buffer.alloc(16), // AAGUID: zeros, as software and privacy-preserving authenticators send
      Buffer.from([this.credentialId.length >> 8, this.credentialId.length & 0xff]),
      this.credentialId,
      this.cosePublicKey(),
    ]);
    const attestationObject = encodeCbor(
      new Map<string, CborValue>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    const clientDataJSON = this.clientData(
      overrides.type ?? "webauthn.create",
      options.challenge,
      overrides.origin ?? this.origin,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: clientDataJSON.toString("base64url"),
        attestationObject: attestationObject.toString("base64url"),
        transports: this.transports,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** navigator.credentials.get() for options carrying `challenge` (base64url). */
  authenticate(
    options: { challenge: string },
    overrides: CeremonyOverrides & { userHandle?: string } = {},
  ): AuthenticationResponseJSON {
    if (overrides.counter === undefined) this.counter += this.counterStep;
    const authenticatorData = Buffer.concat([
      sha256(overrides.rpId ?? this.rpId),
      Buffer.from([overrides.flags ?? FLAG_UP | FLAG_UV]),
      uint32(overrides.counter ?? this.counter),
    ]);
    const clientDataJSON = this.clientData(
      overrides.type ?? "webauthn.get",
      options.challenge,
      overrides.origin ?? this.origin,
    );
    // EC keys sign DER-encoded ECDSA by default, the encoding WebAuthn uses for ES256.
    const signature = sign(
      "sha256",
      Buffer.concat([authenticatorData, sha256(clientDataJSON)]),
      this.privateKey,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: clientDataJSON.toString("base64url"),
        authenticatorData: authenticatorData.toString("base64url"),
        signature: signature.toString("base64url"),
        ...(overrides.userHandle ? { userHandle: overrides.userHandle } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
