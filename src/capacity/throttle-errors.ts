/**
 * What a throttle verdict looks like on the wire (reference §3.2, §3.3, §3.6 model rules):
 *
 * - provisioned resource ⇒ ProvisionedThroughputExceededException, the table or the GSI message,
 *   `ThrottlingReasons: [{reason, resource}]` (upper-case T, as the API model spells it there);
 * - on-demand resource ⇒ ThrottlingException, the on-demand table or GSI message,
 *   `throttlingReasons` (lower-case t: the API model's spelling on ThrottlingException);
 * - MaxOnDemandThroughputExceeded ⇒ ThrottlingException with the maximum-throughput message.
 *
 * Key-range throttles follow the resource's billing by default; `keyRangeOnProvisioned` can make
 * them ThrottlingException (the reference lists sources for both, §3.2 ⚠). In a transaction the
 * same verdict becomes a cancellation reason: `ProvisionedThroughputExceeded` or `ThrottlingError`.
 */
import { dynamoError, type DynamoError } from '../errors.js';
import type { ThrottleReason, ThrottleVerdict } from './admission.js';

export const PROVISIONED_TABLE_MESSAGE =
  'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.';
/** DynamoDB's text has no final full stop. */
export const PROVISIONED_INDEX_MESSAGE =
  'The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API';
export const ON_DEMAND_TABLE_MESSAGE =
  'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';
export const ON_DEMAND_INDEX_MESSAGE =
  'Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly.';
export const MAX_ON_DEMAND_MESSAGE = 'Throughput exceeds the maximum OnDemandThroughput configured on table or index';

export type ThrottleExceptionName = 'ProvisionedThroughputExceededException' | 'ThrottlingException';

export interface ThrottlingReasonEntry {
  readonly reason: ThrottleReason;
  readonly resource: string;
}

/** A throttle's entry in TransactionCanceledException's CancellationReasons (§3.6). */
export interface ThrottleCancellationReason {
  readonly Code: 'ProvisionedThroughputExceeded' | 'ThrottlingError';
  readonly Message: string;
}

export interface ThrottleErrorOptions {
  /** The exception of key-range throttles on a provisioned resource (default ProvisionedThroughputExceededException). */
  readonly keyRangeOnProvisioned?: 'ProvisionedThroughputExceededException' | 'ThrottlingException';
}

/** Which exception a verdict raises. */
export function throttleExceptionName(verdict: ThrottleVerdict, options: ThrottleErrorOptions = {}): ThrottleExceptionName {
  if (verdict.limit === 'MaxOnDemandThroughputExceeded' || verdict.billing === 'on-demand') return 'ThrottlingException';
  if (verdict.limit === 'KeyRangeThroughputExceeded') return options.keyRangeOnProvisioned ?? 'ProvisionedThroughputExceededException';
  return 'ProvisionedThroughputExceededException';
}

/** The message DynamoDB sends with a verdict's exception. */
export function throttleMessage(verdict: ThrottleVerdict, options: ThrottleErrorOptions = {}): string {
  if (verdict.limit === 'MaxOnDemandThroughputExceeded') return MAX_ON_DEMAND_MESSAGE;
  const index = verdict.kind === 'Index';
  if (throttleExceptionName(verdict, options) === 'ProvisionedThroughputExceededException') {
    return index ? PROVISIONED_INDEX_MESSAGE : PROVISIONED_TABLE_MESSAGE;
  }
  return index ? ON_DEMAND_INDEX_MESSAGE : ON_DEMAND_TABLE_MESSAGE;
}

/** The error a single-item operation (or a batch that processed nothing) answers with. */
export function throttleError(verdict: ThrottleVerdict, options: ThrottleErrorOptions = {}): DynamoError {
  const name = throttleExceptionName(verdict, options);
  const reasons: ThrottlingReasonEntry[] = [{ reason: verdict.reason, resource: verdict.resourceArn }];
  // Each exception carries the member under its own API-model spelling (§3.3).
  const extra = name === 'ThrottlingException' ? { throttlingReasons: reasons } : { ThrottlingReasons: reasons };
  return dynamoError(name, throttleMessage(verdict, options), extra);
}

/** The verdict as a transaction cancellation reason. */
export function throttleCancellationReason(verdict: ThrottleVerdict, options: ThrottleErrorOptions = {}): ThrottleCancellationReason {
  const code = throttleExceptionName(verdict, options) === 'ThrottlingException' ? 'ThrottlingError' : 'ProvisionedThroughputExceeded';
  return { Code: code, Message: throttleMessage(verdict, options) };
}
