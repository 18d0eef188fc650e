export { Webhook, webhookOf, type HandlerFor } from './decorator.js';
export * from './webhook-options.js';
export * from './contract.js';
export type { RbacRule } from './rbac-options.js';
export { resourceKey, type CachedResource } from './cache/cached-resource.js';
export { AdmissionDenial, Denied, Forbidden, Invalid, assertValid, field, type FieldError, type CauseType } from './errors.js';
export type { AdmissionRequest, AdmissionResponse, AdmissionReview, ReviewApiVersion, Status, StatusCause } from './admission/review.js';
export type { ServerConfig } from './config/server-config.js';
