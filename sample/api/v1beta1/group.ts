import { GROUP as SHAPER_GROUP } from '../group.js';

/**
 * The v1beta1 API package of shaper.io: the kinds in this directory are the
 * second version of kinds declared in sample/api/ (v1alpha1).
 * @shaper:groupName
 */
export const GROUP = SHAPER_GROUP;
/** @shaper:versionName */
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}`;
