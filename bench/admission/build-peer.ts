/**
 * Builds the controller-runtime peer into the cache unless it is there for
 * the current sources (bench/run.sh runs this before the admission benchmark).
 *
 *   node bench/admission/build-peer.ts
 */
import { peerBinary } from './controller-runtime-peer.ts';

const binary = peerBinary();
if (binary.path === undefined) console.log(`bench: ${binary.unavailable}; the admission benchmark will run without the controller-runtime peer`);
else if (binary.builtInMs === undefined) console.log(`controller-runtime peer: ${binary.path} (cached)`);
