/**
 * The hosting platform double (common/testing/fakes/hosting-platform.ts) bound to the backend's
 * `HostingError` and checked against the `HostingPlatform` interface.
 */
import { FakeHostingPlatform } from "@svc/common/testing";
import { HostingError, type HostingPlatform } from "../../hosting/types";

export type { FakeAgent, FakeService, PlatformCall } from "@svc/common/testing";
export { startFakeAgent } from "@svc/common/testing";

export class FakePlatform extends FakeHostingPlatform implements HostingPlatform {
  constructor() {
    super((reason, message) => new HostingError(reason, message));
  }
}
