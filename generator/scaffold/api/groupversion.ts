/**
 * The __GROUP__ API group, version __VERSION__: every kind declared in this
 * directory gets this group and version (shaper-gen manifests writes its CRD).
 * @shaper:groupName
 */
export const GROUP = '__GROUP__';
/** @shaper:versionName */
export const VERSION = '__VERSION__';
