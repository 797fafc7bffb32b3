/**
 * TransactWriteItems and TransactGetItems over the store.
 *
 * Isolation. Each transaction is exactly one storage write(): its function runs exclusively and
 * sees every earlier write, so a transaction reads, checks every condition and applies every
 * action with nothing else of this process in between. Single-item writes (writeItem) are one
 * storage write each as well, so transactions and single-item writes are serialisable with each
 * other in apply order.
 *
 * Conflicts. Applied is not yet committed: from the moment a transaction is applied until its
 * write's promise settles (durable), its items are held (transaction-holds.ts), and a request that
 * meets a held item gets DynamoDB's answer: a transaction is cancelled with TransactionConflict at
 * each held item (None elsewhere), a single write gets TransactionConflictException. On a store
 * other processes write too (WriteTransaction.getLocked, postgres.ts) a transaction reads its
 * items with the 'fail' lock mode, and an item another process's write holds (KeyConflictError)
 * cancels it the same way, at that item. Every conflict answered is counted in the table's
 * TransactionConflict metric. A token is recorded in the same write that applies its transaction,
 * so a retry with the token of a transaction still in flight is answered as a replay, where
 * DynamoDB may answer TransactionInProgressException.
 *
 * Atomicity. All conditions, all new images and the LSI item collection limits are checked before
 * the first put; if any action fails, the function throws TransactionCanceledException having
 * written nothing, which the Storage contract requires (it does not roll back a half-done write).
 */
import { DynamoError, TRANSACTION_CONFLICT_MESSAGE, validationError } from '../errors.js';
import type { Condition } from '../expressions/ast.js';
import { evaluateCondition } from '../expressions/evaluate.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { KeyConflictError, type WriteTransaction } from '../storage/storage.js';
import type { Engine } from './engine.js';
import { throttleCancellationReason, type ThrottleCancellationReason } from '../capacity/throttle-errors.js';
import { readUnits } from '../capacity/units.js';
import { COLLECTION_SIZE_EXCEEDED, CollectionGrowth } from './item-collections.js';
import {
  checkPlan,
  commitPlans,
  growCollections,
  planCheck,
  planWrite,
  readCollectionSizes,
  readOldImage,
  readOldImages,
  requireCurrentTable,
  type CommitRules,
  type NewImage,
  type OldImage,
  type WritePlan,
} from './write-pipeline.js';
import type { Table } from './table.js';
import { recordConflictsByTable, type HeldKeys } from './transaction-holds.js';

const TRANSACTION_CANCELED = 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException';
const CONDITION_FAILED_MESSAGE = 'The conditional request failed';

/** One entry of TransactionCanceledException's CancellationReasons. */
export type CancellationReason =
  | { readonly Code: 'None' }
  | ThrottleCancellationReason
  | {
      readonly Code: 'ConditionalCheckFailed' | 'ValidationError' | 'ItemCollectionSizeLimitExceeded' | 'TransactionConflict';
      readonly Message: string;
      readonly Item?: AttributeMap;
    };

export const NO_REASON: CancellationReason = { Code: 'None' };

/** The reason of an item a transaction in flight holds (transaction-holds.ts) or another process's write locks. */
export const TRANSACTION_CONFLICT_REASON: CancellationReason = { Code: 'TransactionConflict', Message: TRANSACTION_CONFLICT_MESSAGE };

export function validationReason(message: string): CancellationReason {
  return { Code: 'ValidationError', Message: message };
}

/**
 * DynamoDB lists every action's code in the message and spells the message member `Message`
 * (body captured from DynamoDB: {"__type": ..., "CancellationReasons": [...], "Message": ...}).
 */
export function transactionCanceled(reasons: readonly CancellationReason[]): DynamoError {
  const codes = reasons.map((reason) => reason.Code).join(', ');
  return new DynamoError(TRANSACTION_CANCELED, `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`, {
    messageField: 'Message',
    extra: { CancellationReasons: reasons },
  });
}

/** Where an action acts: its encoded key, or the key fault that cancels the transaction. */
export type ActionTarget =
  | { readonly kind: 'key'; readonly storageKey: Uint8Array }
  | { readonly kind: 'invalid'; readonly message: string };

export interface TransactWriteAction {
  readonly table: Table;
  readonly target: ActionTarget;
  readonly condition: Condition | undefined;
  /** ReturnValuesOnConditionCheckFailure = ALL_OLD: the reason carries the current item. */
  readonly returnOldItemOnFailure: boolean;
  /**
   * The image replacing the current one (Put, Update, Delete), or undefined for a ConditionCheck,
   * which writes nothing. May throw a ValidationException, which cancels the transaction with a
   * ValidationError reason, as DynamoDB reports faults that depend on the stored item.
   */
  readonly decide: ((oldItem: AttributeMap | undefined) => NewImage) | undefined;
}

/** One plan per action, in order: a ConditionCheck's writes nothing and is charged as a write of its item. */
export type TransactWriteOutcome = WritePlan;

export interface IdempotencyKey {
  readonly token: string;
  readonly fingerprint: string;
}

export type TransactWriteResult =
  | { readonly kind: 'applied'; readonly outcomes: readonly TransactWriteOutcome[] }
  /**
   * The token already completed this request: nothing written; each item's transactional read of
   * its current image (2 units per 4 KB), which DynamoDB reports for a replay instead.
   */
  | { readonly kind: 'replayed'; readonly readUnits: readonly number[] };

/**
 * Every action is admitted together, at transactional rates (a ConditionCheck as a write of the
 * item it checked, reference §1.4): one throttled item cancels the transaction, its reason
 * ProvisionedThroughputExceeded or ThrottlingError, the others None (§3.6).
 */
function transactionRules(actionCount: number): CommitRules {
  return {
    admission: 'together',
    refused: (verdict, refused) =>
      transactionCanceled(Array.from({ length: actionCount }, (_, index) => (index === refused ? throttleCancellationReason(verdict) : NO_REASON))),
  };
}

/**
 * Applies every action or none, in one storage write, through the write pipeline: every action is
 * read, evaluated (condition, new image) and planned, every plan checked (a failure of any
 * cancels the transaction with every action's reason), then all are admitted together and applied.
 * Its items stay held until the write's promise settles (transaction-holds.ts).
 */
export function transactWrite(
  engine: Engine,
  actions: readonly TransactWriteAction[],
  idempotency: IdempotencyKey | undefined,
): Promise<TransactWriteResult> {
  let held: HeldKeys | undefined;
  const written = engine.storage.write((txn): TransactWriteResult => {
    const nowMs = engine.clock.nowMs();
    if (idempotency !== undefined && engine.transactionTokens.check(idempotency.token, idempotency.fingerprint, nowMs) === 'replay') {
      return { kind: 'replayed', readUnits: actions.map((action) => readUnits(currentSize(txn, action.target), 'transactional')) };
    }
    requireCurrentTables(engine, actions);
    rejectFirstInvalidKey(actions);
    const storageKeys = actions.map(storageKeyOf);
    // A hold set without room for these items: a conflict the client retries, not a set without bound.
    if (!engine.transactionHolds.hasRoomFor(storageKeys.length)) throw conflictCancellation(engine, actions, storageKeys.map(() => true));
    const conflict = heldItemsCancellation(engine, actions, storageKeys);
    if (conflict !== undefined) throw conflict;
    // The read phase: every action's item, before any action is evaluated.
    const images = readImagesOrCancel(engine, txn, actions, storageKeys);
    const evaluations = withinItemCollections(txn, actions.map((action, index) => evaluateAction(action, images[index]!)));
    const plans: WritePlan[] = [];
    for (const evaluation of evaluations) {
      if (!evaluation.ok) throw transactionCanceled(evaluations.map(reasonOf));
      plans.push(evaluation.plan);
    }
    commitPlans(engine, txn, plans, transactionRules(plans.length));
    if (idempotency !== undefined) engine.transactionTokens.record(txn, idempotency.token, idempotency.fingerprint, nowMs);
    // Last: nothing after it may throw, or the items would stay held by a write that never applied.
    held = engine.transactionHolds.hold(storageKeys);
    return { kind: 'applied', outcomes: plans };
  });
  return written.finally(() => {
    if (held !== undefined) engine.transactionHolds.release(held);
  });
}

/**
 * The cancellation of a transaction (TransactWriteItems, TransactGetItems) some of whose items a
 * transaction in flight holds: TransactionConflict at each of them, None elsewhere, counted in the
 * TransactionConflict metric; undefined when none is held.
 */
export function heldItemsCancellation(engine: Engine, actions: readonly { readonly table: Table }[], storageKeys: readonly Uint8Array[]): DynamoError | undefined {
  const holds = engine.transactionHolds;
  if (!holds.active) return undefined;
  const conflicted = storageKeys.map((storageKey) => holds.holds(storageKey));
  return conflicted.includes(true) ? conflictCancellation(engine, actions, conflicted) : undefined;
}

function conflictCancellation(engine: Engine, actions: readonly { readonly table: Table }[], conflicted: readonly boolean[]): DynamoError {
  recordConflictsByTable(engine, actions.flatMap((action, index) => (conflicted[index] ? [action.table.name] : [])));
  return transactionCanceled(conflicted.map((isConflict) => (isConflict ? TRANSACTION_CONFLICT_REASON : NO_REASON)));
}

/**
 * The read phase with the 'fail' lock mode: on a store other processes write (getLocked), an item
 * another write holds cancels the transaction with TransactionConflict at that item, as DynamoDB
 * cancels a transaction rather than queue it. Stores without getLocked read as usual.
 */
function readImagesOrCancel(engine: Engine, txn: WriteTransaction, actions: readonly TransactWriteAction[], storageKeys: readonly Uint8Array[]): OldImage[] {
  try {
    return readOldImages(txn, storageKeys, 'fail');
  } catch (error) {
    if (!(error instanceof KeyConflictError)) throw error;
    const conflicted = storageKeys.map((storageKey) => Buffer.compare(storageKey, error.key) === 0);
    // A key this transaction did not ask for is the store's defect, not a conflict to report.
    if (!conflicted.includes(true)) throw error;
    throw conflictCancellation(engine, actions, conflicted);
  }
}

/**
 * Keys are validated before any action runs, and DynamoDB stops at the first that does not fit its
 * schema: that action's reason is ValidationError, every other one None, even one whose condition
 * would fail or whose key is also wrong (Alternator's test_transact.py, recorded from DynamoDB).
 */
function rejectFirstInvalidKey(actions: readonly TransactWriteAction[]): void {
  const first = actions.findIndex((action) => action.target.kind === 'invalid');
  if (first < 0) return;
  const target = actions[first]!.target as { readonly kind: 'invalid'; readonly message: string };
  throw transactionCanceled(actions.map((_, index) => (index === first ? validationReason(target.message) : NO_REASON)));
}

/** An action that would succeed (its plan, checked), or why it cannot. */
type Evaluation =
  | { readonly ok: false; readonly reason: CancellationReason }
  | { readonly ok: true; readonly plan: WritePlan };

/**
 * The check stage, for every action: one that would grow an LSI item collection past its limit
 * (summed over the transaction's writes) cancels the transaction.
 */
function withinItemCollections(txn: WriteTransaction, evaluations: Evaluation[]): Evaluation[] {
  readCollectionSizes(txn, evaluations.flatMap((evaluation) => (evaluation.ok ? [evaluation.plan] : [])));
  const growth = new CollectionGrowth();
  return evaluations.map((evaluation) => {
    if (!evaluation.ok) return evaluation;
    if (!checkPlan(evaluation.plan, growth)) return { ok: false, reason: { Code: 'ItemCollectionSizeLimitExceeded', Message: COLLECTION_SIZE_EXCEEDED } };
    growCollections(evaluation.plan, growth);
    return evaluation;
  });
}

function reasonOf(evaluation: Evaluation): CancellationReason {
  return evaluation.ok ? NO_REASON : evaluation.reason;
}

/** An action's key; only called once rejectFirstInvalidKey let every action through. */
function storageKeyOf(action: TransactWriteAction): Uint8Array {
  if (action.target.kind !== 'key') throw new Error('assertion failed: an invalid key is read after the keys were validated');
  return action.target.storageKey;
}

/** Decides one action from its item's old image (read phase): a checked condition, a plan. */
function evaluateAction(action: TransactWriteAction, old: OldImage): Evaluation {
  if (action.target.kind === 'invalid') return { ok: false, reason: validationReason(action.target.message) };
  const storageKey = action.target.storageKey;
  if (action.condition !== undefined && !evaluateCondition(action.condition, old.item)) {
    return { ok: false, reason: conditionFailed(action, old.item) };
  }
  if (action.decide === undefined) return { ok: true, plan: planCheck(action.table, storageKey, old, 'transactional') };
  try {
    return { ok: true, plan: planWrite(action.table, storageKey, old, action.decide(old.item), 'transactional') };
  } catch (error) {
    if (error instanceof DynamoError && error.code === 'ValidationException') return { ok: false, reason: validationReason(error.message) };
    throw error;
  }
}

function conditionFailed(action: TransactWriteAction, oldItem: AttributeMap | undefined): CancellationReason {
  const withItem = action.returnOldItemOnFailure && oldItem !== undefined;
  return withItem
    ? { Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED_MESSAGE, Item: oldItem }
    : { Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED_MESSAGE };
}

function currentSize(txn: WriteTransaction, target: ActionTarget): number {
  return target.kind === 'key' ? readOldImage(txn, target.storageKey).sizeBytes : 0;
}

export function requireCurrentTables(engine: Engine, actions: readonly { readonly table: Table }[]): void {
  for (const table of new Set(actions.map((action) => action.table))) requireCurrentTable(engine, table);
}

/**
 * The target of an action whose key faults are cancellation reasons: runs `encode` (keys.ts
 * checks, which throw ValidationException) and keeps its message instead of throwing it.
 */
export function targetOf(encode: () => Uint8Array): ActionTarget {
  try {
    return { kind: 'key', storageKey: encode() };
  } catch (error) {
    if (error instanceof DynamoError && error.code === 'ValidationException') return { kind: 'invalid', message: error.message };
    throw error;
  }
}

/** No two actions of one transaction may act on the same item (keys carry their table's id). */
export function requireDistinctTargets(targets: readonly ActionTarget[]): void {
  const seen = new Set<string>();
  for (const target of targets) {
    if (target.kind !== 'key') continue;
    const identity = Buffer.from(target.storageKey).toString('latin1');
    if (seen.has(identity)) throw validationError('Transaction request cannot include multiple operations on one item');
    seen.add(identity);
  }
}
