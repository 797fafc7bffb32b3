/**
 * HTTPS for dynatwin: the user's own certificate (`--tls-cert` / `--tls-key`), or with `--https` a
 * self-signed one made here, so that clients that insist on TLS (or code paths that only run over
 * it) can be tried locally without openssl or a certificate tool.
 *
 * The self-signed certificate is an X.509 v3 certificate written in DER by hand (Node can parse
 * certificates but not issue them): a P-256 key, ECDSA-with-SHA-256, names `localhost`,
 * `127.0.0.1` and `::1` (plus the bound host), valid from a day before it was made for 397 days
 * (the longest validity browsers accept for a server certificate). It is its own issuer with
 * cA=TRUE, so a client trusts it by adding the file to its CA bundle (NODE_EXTRA_CA_CERTS,
 * AWS_CA_BUNDLE, `--ca-bundle`). On a persistent store it is kept in the data directory and reused
 * while it is valid for the names asked, so a client trusts it once.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

export interface TlsMaterial {
  /** PEM certificate chain. */
  readonly cert: string;
  /** PEM private key. */
  readonly key: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** CA/Browser Forum limit for server certificates; clients may refuse longer ones. */
export const SELF_SIGNED_VALIDITY_DAYS = 397;
/** Names always in the certificate: what a client on this machine calls the server. */
const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '::1'];
const COMMON_NAME = 'dynatwin local certificate';

// Object identifiers, DER content bytes (X.690 base-128 arcs).
const OID_ECDSA_WITH_SHA256 = oid(1, 2, 840, 10045, 4, 3, 2);
const OID_COMMON_NAME = oid(2, 5, 4, 3);
const OID_BASIC_CONSTRAINTS = oid(2, 5, 29, 19);
const OID_KEY_USAGE = oid(2, 5, 29, 15);
const OID_EXTENDED_KEY_USAGE = oid(2, 5, 29, 37);
const OID_SUBJECT_ALT_NAME = oid(2, 5, 29, 17);
const OID_SUBJECT_KEY_IDENTIFIER = oid(2, 5, 29, 14);
const OID_SERVER_AUTH = oid(1, 3, 6, 1, 5, 5, 7, 3, 1);

/** A new self-signed certificate and its key, valid from `nowMs` minus a day, naming `hostNames`. */
export function selfSignedCertificate(hostNames: readonly string[], nowMs: number): TlsMaterial {
  const names = certificateNames(hostNames);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const publicKeyInfo = publicKey.export({ type: 'spki', format: 'der' });
  const signatureAlgorithm = sequence(tlv(0x06, OID_ECDSA_WITH_SHA256));
  const name = sequence(set(sequence(tlv(0x06, OID_COMMON_NAME), tlv(0x0c, Buffer.from(COMMON_NAME, 'utf8')))));
  const toBeSigned = sequence(
    tlv(0xa0, integer(Buffer.from([2]))), // [0] EXPLICIT version v3
    integer(serialNumber()),
    signatureAlgorithm,
    name, // issuer
    sequence(time(nowMs - DAY_MS), time(nowMs + SELF_SIGNED_VALIDITY_DAYS * DAY_MS)),
    name, // subject: the same, it is its own issuer
    publicKeyInfo,
    tlv(0xa3, sequence(...extensions(names, publicKeyInfo))), // [3] EXPLICIT extensions
  );
  const signature = sign('sha256', toBeSigned, privateKey); // DER ECDSA-Sig-Value
  const certificate = sequence(toBeSigned, signatureAlgorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return { cert: pem('CERTIFICATE', certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/**
 * Whether `material` (a certificate dynatwin made earlier) still serves: it parses, its key
 * matches, it is valid at `nowMs` for at least another day, and it names every one of `hostNames`.
 */
export function stillServes(material: TlsMaterial, hostNames: readonly string[], nowMs: number): boolean {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(material.cert);
    if (!certificate.checkPrivateKey(createPrivateKey(material.key))) return false;
  } catch {
    return false;
  }
  if (Date.parse(certificate.validFrom) > nowMs || Date.parse(certificate.validTo) < nowMs + DAY_MS) return false;
  return certificateNames(hostNames).every((name) =>
    isIP(name) === 0 ? certificate.checkHost(name, { wildcards: false }) !== undefined : certificate.checkIP(name) !== undefined,
  );
}

/** Loopback names plus the bound host (unless it is a wildcard address), without duplicates. */
export function certificateNames(hostNames: readonly string[]): readonly string[] {
  const names = new Set(LOOPBACK_NAMES);
  for (const host of hostNames) {
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (bare !== '' && bare !== '0.0.0.0' && bare !== '::') names.add(bare.toLowerCase());
  }
  return [...names];
}

function extensions(names: readonly string[], publicKeyInfo: Buffer): Buffer[] {
  const keyIdentifier = createHash('sha1').update(publicKeyInfo).digest();
  const alternativeNames = names.map((name) => {
    const family = isIP(name);
    if (family === 0) return tlv(0x82, Buffer.from(name, 'ascii')); // [2] dNSName
    return tlv(0x87, ipBytes(name, family)); // [7] iPAddress
  });
  return [
    extension(OID_BASIC_CONSTRAINTS, true, sequence(tlv(0x01, Buffer.from([0xff])))), // cA TRUE
    // digitalSignature (bit 0) and keyCertSign (bit 5): 0b1000_0100, 2 unused bits.
    extension(OID_KEY_USAGE, true, tlv(0x03, Buffer.from([0x02, 0x84]))),
    extension(OID_EXTENDED_KEY_USAGE, false, sequence(tlv(0x06, OID_SERVER_AUTH))),
    extension(OID_SUBJECT_ALT_NAME, false, sequence(...alternativeNames)),
    extension(OID_SUBJECT_KEY_IDENTIFIER, false, tlv(0x04, keyIdentifier)),
  ];
}

function extension(id: Buffer, critical: boolean, value: Buffer): Buffer {
  const parts = [tlv(0x06, id)];
  if (critical) parts.push(tlv(0x01, Buffer.from([0xff])));
  parts.push(tlv(0x04, value));
  return sequence(...parts);
}

function ipBytes(address: string, family: number): Buffer {
  if (family === 4) return Buffer.from(address.split('.').map(Number));
  // Expand '::' into the missing zero groups, then write eight 16-bit groups.
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const headGroups = head === '' || head === undefined ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const bytes = Buffer.alloc(16);
  [...headGroups, ...zeros, ...tailGroups].forEach((group, index) => bytes.writeUInt16BE(parseInt(group, 16), index * 2));
  return bytes;
}

/** 16 random bytes, positive (top bit clear) and non-zero, as RFC 5280 asks of serial numbers. */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes;
}

/** UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5). */
function time(ms: number): Buffer {
  const iso = new Date(ms).toISOString(); // 2026-11-25T19:30:00.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, ''); // 20261125193000
  const year = new Date(ms).getUTCFullYear();
  if (year < 2050) return tlv(0x17, Buffer.from(digits.slice(2) + 'Z', 'ascii'));
  return tlv(0x18, Buffer.from(digits + 'Z', 'ascii'));
}

function integer(bytes: Buffer): Buffer {
  // A leading 1 bit would read as negative: DER prefixes a zero byte.
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function sequence(...parts: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(parts));
}

function set(...parts: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(parts));
}

/** One DER tag-length-value; lengths in short form below 128, long form above. */
export function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else {
    const lengthBytes: number[] = [];
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) lengthBytes.unshift(rest & 0xff);
    header = Buffer.from([tag, 0x80 | lengthBytes.length, ...lengthBytes]);
  }
  return Buffer.concat([header, content]);
}

function oid(first: number, second: number, ...rest: number[]): Buffer {
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups: number[] = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) groups.unshift((value & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return Buffer.from(bytes);
}

function pem(label: string, der: Buffer): string {
  const base64 = der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${base64}\n-----END ${label}-----\n`;
}
