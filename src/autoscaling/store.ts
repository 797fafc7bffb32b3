/**
 * Auto scaling's persisted state, kept in the server's store beside the table metadata and cached
 * in memory (the evaluator and the Describe* operations read the cache):
 *   0x00 'a' 't' <resource id> 0x00 <dimension>                 → ScalableTargetRecord
 *   0x00 'a' 'p' <resource id> 0x00 <dimension> 0x00 <policy>   → PolicyRecord
 *   0x00 'a' 'v' <resource id> 0x00 <dimension>                 → { activities }: newest first, bounded
 * Deleting a table leaves them, as AWS does ("any associated scalable targets, scaling policies,
 * or CloudWatch alarms are not automatically deleted", DynamoDB Developer Guide, AutoScaling).
 */
import type { Storage, WriteTransaction } from '../storage/storage.js';
import type { ActivityRecord, PolicyRecord, ScalableTargetRecord } from './model.js';

const CATALOG_BYTE = 0x00;
const AUTO_SCALING_TAG = 0x61; // 'a'
const TARGET_TAG = 0x74; // 't'
const POLICY_TAG = 0x70; // 'p'
const ACTIVITY_TAG = 0x76; // 'v'

/** Activities kept per scalable target (AWS keeps six weeks; a bound keeps the record small). */
export const ACTIVITIES_PER_TARGET_MAX = 100;
/** Scalable targets and policies held at once: AWS's per-account quotas are of this order (3,000 targets per namespace). */
export const TARGETS_MAX = 3000;
/** Target tracking policies per scalable target (AWS's quota: 50 per target). */
export const POLICIES_PER_TARGET_MAX = 50;

function key(tag: number, ...parts: string[]): Buffer {
  return Buffer.concat([Buffer.from([CATALOG_BYTE, AUTO_SCALING_TAG, tag]), Buffer.from(parts.join('\u0000'), 'utf8')]);
}

/** The map key of a target: resource id and dimension. */
export function targetKey(resourceId: string, dimension: string): string {
  return resourceId + '\u0000' + dimension;
}

interface ActivityLog {
  readonly activities: readonly ActivityRecord[];
}

export class AutoScalingStore {
  readonly #storage: Storage;
  readonly targets = new Map<string, ScalableTargetRecord>();
  /** Policies by target key, then by name. */
  readonly policies = new Map<string, Map<string, PolicyRecord>>();
  readonly activities = new Map<string, readonly ActivityRecord[]>();

  private constructor(storage: Storage) {
    this.#storage = storage;
  }

  static open(storage: Storage): AutoScalingStore {
    const store = new AutoScalingStore(storage);
    for (const entry of storage.range({ start: key(TARGET_TAG), end: key(TARGET_TAG + 1) })) {
      const target = entry.value as ScalableTargetRecord;
      store.targets.set(targetKey(target.resourceId, target.dimension), target);
    }
    for (const entry of storage.range({ start: key(POLICY_TAG), end: key(POLICY_TAG + 1) })) {
      const policy = entry.value as PolicyRecord;
      store.#policyMap(targetKey(policy.resourceId, policy.dimension)).set(policy.name, policy);
    }
    for (const entry of storage.range({ start: key(ACTIVITY_TAG), end: key(ACTIVITY_TAG + 1) })) {
      const log = entry.value as ActivityLog;
      const first = log.activities[0];
      if (first !== undefined) store.activities.set(targetKey(first.resourceId, first.dimension), log.activities);
    }
    return store;
  }

  #policyMap(targetId: string): Map<string, PolicyRecord> {
    let map = this.policies.get(targetId);
    if (map === undefined) this.policies.set(targetId, (map = new Map()));
    return map;
  }

  async putTarget(target: ScalableTargetRecord): Promise<void> {
    await this.#storage.write((txn) => txn.put(key(TARGET_TAG, target.resourceId, target.dimension), target));
    this.targets.set(targetKey(target.resourceId, target.dimension), target);
  }

  /** Removes a target with its policies (AWS deletes them with it) and keeps its activities. */
  async removeTarget(resourceId: string, dimension: string): Promise<void> {
    const id = targetKey(resourceId, dimension);
    const policies = [...(this.policies.get(id)?.values() ?? [])];
    await this.#storage.write((txn) => {
      txn.remove(key(TARGET_TAG, resourceId, dimension));
      for (const policy of policies) txn.remove(key(POLICY_TAG, resourceId, dimension, policy.name));
    });
    this.targets.delete(id);
    this.policies.delete(id);
  }

  async putPolicy(policy: PolicyRecord): Promise<void> {
    await this.#storage.write((txn) => txn.put(key(POLICY_TAG, policy.resourceId, policy.dimension, policy.name), policy));
    this.#policyMap(targetKey(policy.resourceId, policy.dimension)).set(policy.name, policy);
  }

  async removePolicy(policy: PolicyRecord): Promise<void> {
    await this.#storage.write((txn) => txn.remove(key(POLICY_TAG, policy.resourceId, policy.dimension, policy.name)));
    const id = targetKey(policy.resourceId, policy.dimension);
    const map = this.policies.get(id);
    map?.delete(policy.name);
    if (map?.size === 0) this.policies.delete(id);
  }

  /** Adds an activity (newest first), dropping the oldest past the bound. */
  async addActivity(activity: ActivityRecord): Promise<void> {
    const id = targetKey(activity.resourceId, activity.dimension);
    const activities = [activity, ...(this.activities.get(id) ?? [])].slice(0, ACTIVITIES_PER_TARGET_MAX);
    await this.#storage.write((txn: WriteTransaction) => txn.put(key(ACTIVITY_TAG, activity.resourceId, activity.dimension), { activities } satisfies ActivityLog));
    this.activities.set(id, activities);
  }

  /** Every policy, grouped by target. */
  *allPolicies(): IterableIterator<PolicyRecord> {
    for (const map of this.policies.values()) yield* map.values();
  }
}
