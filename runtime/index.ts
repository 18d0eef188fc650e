export { Webhook, webhookOf, type HandlerFor } from './decorator.js';
export * from './webhook-options.js';
export * from './contract.js';
export { AdmissionDenial, Denied, Forbidden, Invalid, field, type FieldError, type CauseType } from './errors.js';
