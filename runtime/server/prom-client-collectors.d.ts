/** prom-client's default collectors, each a CommonJS module of its own (prom-client/lib/metrics/). */
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';
  const collector: (registry: Registry, config: { readonly eventLoopMonitoringPrecision?: number }) => void;
  export default collector;
}
