// The process's one Prometheus registry (prom-client), and the way a feature adds a metric
// to it: counter(), histogram(), gauge() make the metric once per process and hand the same
// one back to every later caller (several apps in one process, as the tests build, share it).
// A feature keeps its metrics in its own module (src/billRun/metrics.ts, ...) and names them
// billrun_<area>_<what>[_total|_seconds]; docs/operations.md lists them.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
// Process figures (CPU, memory, event-loop lag, handles), as billrun_process_*, billrun_nodejs_*.
collectDefaultMetrics({ register: registry, prefix: 'billrun_' });

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter<L>({ name, help, labelNames, registers: [registry] });
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
  return (registry.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge<L>({ name, help, labelNames, registers: [registry] });
}

export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
  return (registry.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
}

/** Seconds since `start` (a performance.now() reading). */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}
