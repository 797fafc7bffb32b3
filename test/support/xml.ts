/**
 * A well-formedness check for the XML the bench writes (its SVG flame graphs), so a test can tell
 * that a browser will open the file without pulling in an XML parser: elements nest and close,
 * attribute values are quoted and unique per element, every `&` starts a known or numeric entity,
 * no raw `<` stands in text or attribute values, one root element. No DTD, no CDATA (the writer
 * uses neither, so meeting one is an error).
 */

export interface XmlOutline {
  readonly root: string;
  readonly elements: number;
  /** Every attribute value and text run, entities decoded, in document order. */
  readonly texts: readonly string[];
}

const NAME = /[A-Za-z_][\w.:-]*/y;
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: number): string {
  if (raw.includes('<')) throw new Error(`raw "<" in character data at ${where}`);
  return raw.replace(/&([^;&<\s]*);?/g, (match, body: string) => {
    if (!match.endsWith(';')) throw new Error(`unterminated entity "${match}" at ${where}`);
    if (body in ENTITIES) return ENTITIES[body]!;
    const numeric = /^#(?:(\d+)|x([0-9a-fA-F]+))$/.exec(body);
    if (numeric === null) throw new Error(`unknown entity "${match}" at ${where}`);
    return String.fromCodePoint(numeric[1] !== undefined ? Number(numeric[1]) : parseInt(numeric[2]!, 16));
  });
}

function nameAt(text: string, at: number): string {
  NAME.lastIndex = at;
  const match = NAME.exec(text);
  if (match === null) throw new Error(`expected a name at ${at}: ${JSON.stringify(text.slice(at, at + 20))}`);
  return match[0];
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}

function indexAfter(text: string, token: string, from: number): number {
  const at = text.indexOf(token, from);
  if (at < 0) throw new Error(`"${token}" missing after ${from}`);
  return at + token.length;
}

/** Parses one start tag at `at` ('<' already seen); returns its name, whether it closes itself, and where it ends. */
function startTag(text: string, at: number, texts: string[]): { name: string; selfClosing: boolean; end: number } {
  const name = nameAt(text, at + 1);
  let i = at + 1 + name.length;
  const seen = new Set<string>();
  for (;;) {
    const spaced = skipSpace(text, i);
    if (text.startsWith('/>', spaced)) return { name, selfClosing: true, end: spaced + 2 };
    if (text[spaced] === '>') return { name, selfClosing: false, end: spaced + 1 };
    if (spaced === i) throw new Error(`expected space, ">" or "/>" in <${name}> at ${i}`);
    const attribute = nameAt(text, spaced);
    if (seen.has(attribute)) throw new Error(`attribute ${attribute} twice in <${name}> at ${spaced}`);
    seen.add(attribute);
    i = skipSpace(text, spaced + attribute.length);
    if (text[i] !== '=') throw new Error(`attribute ${attribute} of <${name}> has no "=" at ${i}`);
    i = skipSpace(text, i + 1);
    const quote = text[i];
    if (quote !== '"' && quote !== "'") throw new Error(`attribute ${attribute} of <${name}> is not quoted at ${i}`);
    const close = text.indexOf(quote, i + 1);
    if (close < 0) throw new Error(`attribute ${attribute} of <${name}> never closes`);
    texts.push(decode(text.slice(i + 1, close), i));
    i = close + 1;
  }
}

export function checkWellFormedXml(text: string): XmlOutline {
  const open: string[] = [];
  const texts: string[] = [];
  let root: string | undefined;
  let elements = 0;
  let i = 0;
  if (text.startsWith('<?xml')) i = indexAfter(text, '?>', 0);
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const run = text.slice(i, lt < 0 ? text.length : lt);
    if (open.length === 0 && run.trim() !== '') throw new Error(`text outside the root element at ${i}`);
    if (run !== '') texts.push(decode(run, i));
    if (lt < 0) break;
    if (text.startsWith('<!--', lt)) {
      i = indexAfter(text, '-->', lt + 4);
    } else if (text.startsWith('</', lt)) {
      const name = nameAt(text, lt + 2);
      const gt = skipSpace(text, lt + 2 + name.length);
      if (text[gt] !== '>') throw new Error(`bad end tag </${name} at ${lt}`);
      const expected = open.pop();
      if (expected !== name) throw new Error(`</${name}> at ${lt} closes <${expected ?? 'nothing'}>`);
      i = gt + 1;
    } else if (text[lt + 1] === '!' || text[lt + 1] === '?') {
      throw new Error(`unsupported markup at ${lt}: ${text.slice(lt, lt + 12)}`);
    } else {
      if (open.length === 0 && root !== undefined) throw new Error(`a second root element at ${lt}`);
      const tag = startTag(text, lt, texts);
      root ??= tag.name;
      elements++;
      if (!tag.selfClosing) open.push(tag.name);
      i = tag.end;
    }
  }
  if (open.length > 0) throw new Error(`unclosed elements: ${open.join(' > ')}`);
  if (root === undefined) throw new Error('no root element');
  return { root, elements, texts };
}
