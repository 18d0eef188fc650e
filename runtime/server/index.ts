/**
 * `shaper-gen/server`: run the admission server from your own entry point
 * instead of the `shaper-gen serve` CLI — e.g. to add routes to `server.app`.
 */
export { startServer, serveUntilSignalled, type ServeOptions, type RunningServer } from './serve.js';
export { WebhookServer, type WebhookServerOptions, type ListeningAddresses, type ShutdownOptions } from './webhook-server.js';
export { registerWebhooks, registerConversions, importWebhookClasses, importHandlerModules, RegistrationError } from './registry.js';
export { ServerMetrics } from './metrics.js';
export { parseServerConfig, loadServerConfig, mergeServerConfig, DEFAULT_SERVER_CONFIG, type ServerConfig } from '../config/server-config.js';
export { ConfigError } from '../problems.js';
