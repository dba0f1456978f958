/**
 * The hook's decision long-polls each hold a connection and a timer for up to 55 s; an agent may hold at
 * most MAX_WAITS_PER_AGENT of them at once in this process (issue #12). More answer 429.
 */
import { tooManyWaits } from "./errors";

export const MAX_WAITS_PER_AGENT = 10;

export class AgentWaits {
  private readonly counts = new Map<string, number>();

  constructor(readonly max: number = MAX_WAITS_PER_AGENT) {}

  /** Long-polls of `agentId` waiting now. */
  count(agentId: string): number {
    return this.counts.get(agentId) ?? 0;
  }

  /** Counts one more wait of `agentId` (429 when it has `max` already); the returned function ends it. */
  enter(agentId: string): () => void {
    const current = this.count(agentId);
    if (current >= this.max) {
      throw tooManyWaits(this.max);
    }
    this.counts.set(agentId, current + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = this.count(agentId) - 1;
      if (left > 0) this.counts.set(agentId, left);
      else this.counts.delete(agentId);
    };
  }
}
