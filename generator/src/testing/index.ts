/**
 * `@shaper-gen/generator/testing`: what a project's tests use of the
 * generator, a dev dependency (so fast-check and the TypeScript scan stay out
 * of the image): the round-trip property of a conversion, over objects
 * generated from the kind's schemas.
 */
export { arbitraryFromSchema, arbitraryObject } from './arbitrary.js';
export { roundTrip, type RoundTripOptions, type RoundTripRun } from './round-trip.js';
export { customResources } from './custom-resources.js';
