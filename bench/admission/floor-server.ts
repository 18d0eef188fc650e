/**
 * The floor: a bare node:https server with no framework that does the least an
 * admission webhook must do — read the body, parse it, answer "allowed" with
 * the uid copied — so framework figures can be read as a ratio to it.
 *
 *   node bench/admission/floor-server.ts <cert> <key>   (prints "listening <port>")
 */
import { serveBare } from './bare-server.js';

serveBare('floor-server.ts', (_path, review) => ({ uid: review.request.uid, allowed: true }));
