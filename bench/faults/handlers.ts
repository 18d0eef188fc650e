/**
 * The fault script's own webhook, compiled by bench/tsconfig.build.json: a validator
 * that blocks the event loop for 2 s, to show what a CPU-bound handler does to
 * every other request and to the probes.
 */
import { Webhook } from 'shaper-gen';

export const BLOCK_MS = 2000;

@Webhook({
  path: '/validate-blocking',
  mutating: false,
  rules: [{ groups: ['example.io'], versions: ['v1'], resources: ['blockers'], operations: ['CREATE'] }],
  timeoutSeconds: 5,
})
export class BlockingValidator {
  validateCreate() {
    const until = Date.now() + BLOCK_MS;
    while (Date.now() < until) {
      // Busy: nothing else runs on this thread meanwhile.
    }
  }
}

export const webhooks = [BlockingValidator];
