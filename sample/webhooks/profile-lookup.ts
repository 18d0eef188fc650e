/** How the Assignment validator learns whether a Profile exists. */
import type { AdmissionContext } from 'shaper-gen';
import { GROUP, VERSION } from '../api/group.js';
import type { Profile } from '../api/profile.js';

export interface ProfileLookup {
  /** The Profile, or undefined when it does not exist. Other API failures throw. */
  get(namespace: string, name: string, ctx: AdmissionContext): Promise<Profile | undefined>;
}

/**
 * Reads the Profile from the API server on every call (needs `get` on
 * profiles.shaper.io — the chart's RBAC grants exactly that). No cache: an
 * admission decision must not rest on a Profile deleted a moment ago.
 */
export class ApiProfileLookup implements ProfileLookup {
  async get(namespace: string, name: string, ctx: AdmissionContext): Promise<Profile | undefined> {
    // Imported on first use: the client library is large, and most pods never need it before their first Assignment.
    const { ApiException, CustomObjectsApi } = await import('@kubernetes/client-node');
    try {
      return (await ctx.kube.api(CustomObjectsApi).getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'profiles', name })) as Profile;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  }
}
