/** waitForHealthy against a real loopback agent; time moves on a manual clock, never by waiting. */
import { ManualClock } from "@svc/common";
import { afterAll, describe, expect, it } from "vitest";
import { waitForHealthy } from "./health";
import { startFakeAgent } from "./testing/fake-platform";

const agent = await startFakeAgent();
afterAll(() => agent.close());

function clockedSleep(clock: ManualClock, onSleep?: (count: number) => void) {
  let count = 0;
  return async (ms: number) => {
    clock.advance(ms);
    onSleep?.(++count);
  };
}

describe("waitForHealthy", () => {
  it("returns at once when the agent is up", async () => {
    agent.healthy = true;
    const clock = new ManualClock();
    const wait = await waitForHealthy(agent.url, {
      now: () => clock.now().getTime(),
      sleep: clockedSleep(clock),
    });
    expect(wait).toMatchObject({ healthy: true, attempts: 1, probe: { status: "running" } });
  });

  it("polls every pollMs until the agent comes up", async () => {
    agent.healthy = false;
    const clock = new ManualClock();
    const slept: number[] = [];
    const wait = await waitForHealthy(agent.url, {
      pollMs: 2_000,
      timeoutMs: 60_000,
      now: () => clock.now().getTime(),
      sleep: async (ms) => {
        slept.push(ms);
        clock.advance(ms);
        if (slept.length === 3) agent.healthy = true;
      },
    });
    expect(wait).toMatchObject({ healthy: true, attempts: 4 });
    expect(slept).toEqual([2_000, 2_000, 2_000]);
  });

  it("gives up after the timeout (default 60 s, every 2 s) with the last probe", async () => {
    agent.healthy = false;
    const clock = new ManualClock();
    const wait = await waitForHealthy(agent.url, {
      now: () => clock.now().getTime(),
      sleep: clockedSleep(clock),
    });
    expect(wait.healthy).toBe(false);
    expect(wait.attempts).toBe(31);
    expect(wait.probe.status).toBe("unreachable");
  });
});
