/**
 * The bench's loopback agent in its own worker thread (an agent is another machine: its 50 ms answers must
 * not wait on the event loop of what is measured): the one fake agent runtime, answering each chat
 * completion after `delayMs` (with `adminPassword` it proves its wrapper's identity). Posts its port first, then `[prompt, epoch ms]` for each completion received.
 */
import { parentPort, workerData } from "node:worker_threads";
import { startFakeAgentRuntime } from "../../common/testing/fakes/agent-runtime.mjs";

const { token, delayMs, adminPassword } = workerData as {
  token: string;
  delayMs: number;
  adminPassword?: string;
};
const agent = await startFakeAgentRuntime({
  token,
  adminPassword,
  reply: "ok",
  onRequest: (request) => {
    if (request.path !== "/v1/chat/completions") return;
    const prompt = JSON.parse(request.body.toString()).messages.at(-1).content as string;
    parentPort?.postMessage([prompt, Date.now()]);
  },
});
agent.setDelay(delayMs);
parentPort?.postMessage(agent.port);
