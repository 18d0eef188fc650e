/**
 * The reference for the framework: the sample's Profile webhooks written by
 * hand on bare node:https, with no framework, compiled to JavaScript like
 * `serve`. It does the same work: reads and parses the body; on
 * /mutate-profile applies the sample defaulter's defaults
 * (sample/webhooks/profile-defaulter.ts) and builds their patch operations
 * directly; on /validate-profile runs the validator's checks
 * (sample/webhooks/profile-validator.ts) with the sample's own constants.
 * Any other path is allowed, as the floor (floor-server.ts) does. Its answers
 * are checked against serve's before anything is timed (run.ts).
 *
 *   node bench/admission/hand-written-server.ts <cert> <key>   (prints "listening <port>")
 */
import { answer, type Review } from './hand-written-answer.js';
import { serveBare } from './bare-server.js';

serveBare('hand-written-server.ts', (urlPath, review) => answer(urlPath, review as Review));
