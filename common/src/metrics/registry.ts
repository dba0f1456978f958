/**
 * The process's one Prometheus registry. Next.js loads modules in several graphs (server.ts, each route
 * bundle), so the registry lives on `globalThis` under a well-known symbol and every metric is created
 * idempotently: the second module graph asking for `http_requests_total` gets the first one's counter.
 */
import {
  Counter,
  type CounterConfiguration,
  collectDefaultMetrics,
  Gauge,
  type GaugeConfiguration,
  Histogram,
  type HistogramConfiguration,
  Registry,
} from "prom-client";

const REGISTRY_KEY = Symbol.for("svc.metrics.registry");

type Holder = { [REGISTRY_KEY]?: Registry };

/** The registry every metric of this process is registered in; the default process metrics are collected once, when it is made. */
export function metricsRegistry(): Registry {
  const holder = globalThis as Holder;
  let registry = holder[REGISTRY_KEY];
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
    holder[REGISTRY_KEY] = registry;
  }
  return registry;
}

type Config<C> = Omit<C, "registers">;

/** The counter `name`, created on first use. */
export function counter<L extends string>(config: Config<CounterConfiguration<L>>): Counter<L> {
  const registry = metricsRegistry();
  const existing = registry.getSingleMetric(config.name);
  if (existing) return existing as Counter<L>;
  return new Counter<L>({ ...config, registers: [registry] });
}

/** The gauge `name`, created on first use. */
export function gauge<L extends string>(config: Config<GaugeConfiguration<L>>): Gauge<L> {
  const registry = metricsRegistry();
  const existing = registry.getSingleMetric(config.name);
  if (existing) return existing as Gauge<L>;
  return new Gauge<L>({ ...config, registers: [registry] });
}

/** The histogram `name`, created on first use. */
export function histogram<L extends string>(config: Config<HistogramConfiguration<L>>): Histogram<L> {
  const registry = metricsRegistry();
  const existing = registry.getSingleMetric(config.name);
  if (existing) return existing as Histogram<L>;
  return new Histogram<L>({ ...config, registers: [registry] });
}

/** Seconds since `started` (a `process.hrtime.bigint()` reading). */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
