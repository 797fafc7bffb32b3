/**
 * The AWS Query protocol's two halves for CloudWatch: a form-encoded request
 * (`Action=GetMetricStatistics&Version=2010-08-01&Dimensions.member.1.Name=TableName&...`) read back
 * into the nested input the other protocols carry, and an answer written as XML in CloudWatch's
 * namespace. Bounded: at most PARAMETERS_MAX parameters, list positions up to LIST_INDEX_MAX,
 * nesting up to DEPTH_MAX; anything else is a SerializationException (400).
 */
import { serializationFailure } from './errors.js';

const PARAMETERS_MAX = 5000;
const LIST_INDEX_MAX = 1000;
const DEPTH_MAX = 12;
export const XML_NAMESPACE = 'http://monitoring.amazonaws.com/doc/2010-08-01/';

export interface QueryRequest {
  readonly action: string;
  readonly input: Record<string, unknown>;
}

type Node = Record<string, unknown> | unknown[];

export function decodeQueryBody(body: string): QueryRequest {
  const params = new URLSearchParams(body);
  let action: string | undefined;
  const input: Record<string, unknown> = {};
  let count = 0;
  for (const [name, value] of params) {
    if (++count > PARAMETERS_MAX) throw serializationFailure(`More than ${PARAMETERS_MAX} parameters.`);
    if (name === 'Action') action = value;
    else if (name !== 'Version') place(input, name, value);
  }
  if (action === undefined || action === '') throw serializationFailure('The request has no Action.');
  return { action, input: compact(input) as Record<string, unknown> };
}

/** Puts `value` at the dotted path: `X.member.N` is the N-th element of list X. */
function place(root: Record<string, unknown>, path: string, value: string): void {
  const segments = path.split('.');
  if (segments.length > DEPTH_MAX * 2 || segments.some((segment) => segment === '' || segment === '__proto__')) {
    throw serializationFailure(`Malformed parameter name ${JSON.stringify(path.slice(0, 100))}.`);
  }
  let node: Node = root;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const last = index === segments.length - 1;
    if (Array.isArray(node)) {
      const position = Number(segment);
      if (!Number.isInteger(position) || position < 1 || position > LIST_INDEX_MAX) throw serializationFailure(`Malformed list position in ${JSON.stringify(path.slice(0, 100))}.`);
      if (last) {
        node[position - 1] = value;
        return;
      }
      const elementIsList = segments[index + 1] === 'member';
      node = childOf(node, position - 1, elementIsList);
      if (elementIsList) index++;
    } else if (segment === 'member' && index > 0) {
      throw serializationFailure(`Malformed parameter name ${JSON.stringify(path.slice(0, 100))}.`);
    } else {
      if (last) {
        if (Object.hasOwn(node, segment)) throw serializationFailure(`Parameter ${JSON.stringify(path.slice(0, 100))} given twice.`);
        node[segment] = value;
        return;
      }
      const isList = segments[index + 1] === 'member';
      node = childOf(node, segment, isList);
      if (isList) index++;
    }
  }
}

function childOf(node: Node, key: string | number, isList: boolean): Node {
  const existing = (node as Record<string | number, unknown>)[key];
  if (existing !== undefined) {
    if (typeof existing !== 'object' || Array.isArray(existing) !== isList) throw serializationFailure('A parameter is both a value and a structure.');
    return existing as Node;
  }
  const created: Node = isList ? [] : {};
  (node as Record<string | number, unknown>)[key] = created;
  return created;
}

/** Lists without holes (positions given out of order or skipped are closed up). */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.filter((element) => element !== undefined).map(compact);
  if (node !== null && typeof node === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) result[key] = compact(value);
    return result;
  }
  return node;
}

/** `<ActionResponse xmlns=…><ActionResult>…</ActionResult><ResponseMetadata>…</ResponseMetadata></ActionResponse>`. */
export function encodeQueryResponse(action: string, output: object, requestId: string): string {
  return (
    `<${action}Response xmlns="${XML_NAMESPACE}"><${action}Result>${xmlMembers(output)}</${action}Result>` +
    `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`
  );
}

export function encodeQueryError(code: string, message: string, requestId: string, sender: boolean): string {
  return (
    `<ErrorResponse xmlns="${XML_NAMESPACE}"><Error><Type>${sender ? 'Sender' : 'Receiver'}</Type><Code>${escapeXml(code)}</Code>` +
    `<Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`
  );
}

function xmlMembers(value: object): string {
  let xml = '';
  for (const [name, member] of Object.entries(value)) {
    if (member === undefined) continue;
    xml += `<${name}>${xmlValue(member)}</${name}>`;
  }
  return xml;
}

function xmlValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((element) => `<member>${xmlValue(element)}</member>`).join('');
  if (value !== null && typeof value === 'object') return xmlMembers(value);
  return escapeXml(String(value));
}

const XML_ENTITIES: Readonly<Record<string, string>> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (character) => XML_ENTITIES[character]!);
}
