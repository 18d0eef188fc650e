/**
 * The sample's webhooks that need no API server: the fault script runs on
 * loopback with no cluster, and /validate-assignment's Profile cache would
 * keep the server unready for ever without one.
 */
import { webhookOf } from 'shaper-gen';
import { webhooks as sample } from '../../sample/webhooks.generated.js';

export const webhooks = sample.filter((handler) => (webhookOf(handler)?.cache.length ?? 0) === 0);
