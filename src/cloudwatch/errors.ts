/**
 * CloudWatch's errors: the exception's shape name (JSON and CBOR `__type`), its awsQueryError code
 * (the Query protocol's Code and the `x-amzn-query-error` header) and the message.
 */
export class CloudWatchError extends Error {
  readonly shapeName: string;
  readonly queryCode: string;
  readonly statusCode: number;

  constructor(shapeName: string, queryCode: string, message: string, statusCode = 400) {
    super(message);
    this.shapeName = shapeName;
    this.queryCode = queryCode;
    this.statusCode = statusCode;
  }
}

export function invalidParameterValue(message: string): CloudWatchError {
  return new CloudWatchError('InvalidParameterValueException', 'InvalidParameterValue', message);
}

export function missingParameter(name: string): CloudWatchError {
  return new CloudWatchError('MissingRequiredParameterException', 'MissingParameter', `The parameter ${name} is required.`);
}

export function invalidParameterCombination(message: string): CloudWatchError {
  return new CloudWatchError('InvalidParameterCombinationException', 'InvalidParameterCombination', message);
}

export function invalidNextToken(): CloudWatchError {
  return new CloudWatchError('InvalidNextToken', 'InvalidNextToken', 'The service returned an invalid token.');
}

/** A body that is not the protocol's encoding (bad CBOR, JSON, form). */
export function serializationFailure(message: string): CloudWatchError {
  return new CloudWatchError('SerializationException', 'MalformedInput', message);
}

export function unknownOperation(name: string): CloudWatchError {
  return new CloudWatchError('UnknownOperationException', 'InvalidAction', `The action ${name} is not valid for this web service.`);
}
