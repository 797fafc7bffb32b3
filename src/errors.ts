/**
 * Typed errors carrying DynamoDB's wire identity: the `__type` namespace, the short name and the
 * exact message text. Every layer throws these; only the server turns them into HTTP responses.
 */

const DYNAMODB_NAMESPACE = 'com.amazonaws.dynamodb.v20120810#';
const CORAL_SERVICE_NAMESPACE = 'com.amazon.coral.service#';
const CORAL_VALIDATE_NAMESPACE = 'com.amazon.coral.validate#';

export class DynamoError extends Error {
  /** The full `__type` value, e.g. `com.amazonaws.dynamodb.v20120810#ResourceNotFoundException`. */
  readonly wireType: string;
  readonly statusCode: number;
  /**
   * SerializationException bodies spell the field `Message`; every other error uses `message`.
   * Kept so the body matches DynamoDB byte for byte.
   */
  readonly messageField: 'message' | 'Message';
  /** Extra top-level members of the error body (CancellationReasons, Item, ThrottlingReasons ...). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    wireType: string,
    message: string,
    options: { statusCode?: number; messageField?: 'message' | 'Message'; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.wireType = wireType;
    this.statusCode = options.statusCode ?? 400;
    this.messageField = options.messageField ?? 'message';
    this.extra = options.extra;
  }

  /** The short exception name, e.g. `ValidationException`. */
  get code(): string {
    return this.wireType.slice(this.wireType.indexOf('#') + 1);
  }

  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { __type: this.wireType };
    if (this.message !== '') body[this.messageField] = this.message;
    if (this.extra !== undefined) Object.assign(body, this.extra);
    return body;
  }
}

export function validationError(message: string): DynamoError {
  return new DynamoError(CORAL_VALIDATE_NAMESPACE + 'ValidationException', message);
}

/** A body that does not deserialize into the operation's input shape (wrong JSON types, bad base64 ...). */
export function serializationError(message?: string): DynamoError {
  return new DynamoError(CORAL_SERVICE_NAMESPACE + 'SerializationException', message ?? '', { messageField: 'Message' });
}

export function coralServiceError(name: string, message: string, statusCode = 400): DynamoError {
  return new DynamoError(CORAL_SERVICE_NAMESPACE + name, message, { statusCode });
}

export function dynamoError(name: string, message: string, extra?: Record<string, unknown>): DynamoError {
  return new DynamoError(DYNAMODB_NAMESPACE + name, message, { extra });
}

export function resourceNotFound(message = 'Requested resource not found'): DynamoError {
  return dynamoError('ResourceNotFoundException', message);
}

export function resourceInUse(message: string): DynamoError {
  return dynamoError('ResourceInUseException', message);
}

export function conditionalCheckFailed(extra?: Record<string, unknown>): DynamoError {
  return dynamoError('ConditionalCheckFailedException', 'The conditional request failed', extra);
}

/** DynamoDB's text for an item a transaction in flight holds, as an error and as a cancellation reason's Message. */
export const TRANSACTION_CONFLICT_MESSAGE = 'Transaction is ongoing for the item';

/** A PutItem, UpdateItem or DeleteItem on an item a transaction in flight holds (engine/transaction-holds.ts). */
export function transactionConflict(): DynamoError {
  return dynamoError('TransactionConflictException', TRANSACTION_CONFLICT_MESSAGE);
}

export function limitExceeded(message: string): DynamoError {
  return dynamoError('LimitExceededException', message);
}

/** Our own bug: answered as a 500 InternalServerError, never with details of the failure. */
export function internalError(): DynamoError {
  return new DynamoError(DYNAMODB_NAMESPACE + 'InternalServerError', 'Internal server error', { statusCode: 500 });
}

/** Precondition checks that must hold whatever the input; a failure is a bug in dynatwin. */
export function assert(condition: unknown, why: string): asserts condition {
  if (!condition) throw new Error('assertion failed: ' + why);
}

/**
 * A write the store cannot take now (a full disk, an I/O error: storage/logged.ts): DynamoDB's
 * retryable 503, the one a closing server answers, with a message that says why (the fault, the
 * data directory, the space needed). The SDKs retry a 503; once the store can write again it
 * takes writes by itself.
 */
export function writesRefused(message: string): DynamoError {
  return new DynamoError(DYNAMODB_NAMESPACE + 'ServiceUnavailable', message, { statusCode: 503 });
}
