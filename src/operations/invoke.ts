/**
 * Running an operation on a request: the one path the HTTP server (server/http.ts) and PartiQL
 * (partiql-run.ts, for the operation requests the PartiQL compiler builds) share —
 * deserialize (SerializationException), member constraints, the operation's `validate`, then
 * `execute`.
 */
import type { Engine } from '../engine/engine.js';
import { responseBody, type AnyOperation, type ValidationContext } from './operation.js';
import { checkConstraints, deserialize } from './shape.js';

/** Deserializes and validates `input` for `operation`; throws what validation rejects. */
export function checkRequest(operation: AnyOperation, input: unknown, context: ValidationContext): unknown {
  const checked = deserialize(input, operation.members);
  checkConstraints(checked, operation.members);
  return operation.validate(checked, context);
}

/** Checks and executes `input` for `operation`; the response as an object (a JsonText's body). */
export async function invokeOperation(engine: Engine, operation: AnyOperation, input: unknown): Promise<object> {
  const request = checkRequest(operation, input, { expressions: engine.expressions });
  return responseBody(await operation.execute(engine, request));
}

/** The tables a validated request touches, as its operation declares them (request metrics). */
export function tablesOf(operation: AnyOperation, request: unknown): string | readonly string[] | undefined {
  return operation.tables === undefined ? undefined : operation.tables(request);
}
