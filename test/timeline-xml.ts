// A small strict XML reader for the timeline tests: elements, attributes and text, refusing what is not well formed
// (unclosed or crossed tags, a stray `<` or `&`, an attribute twice), so a test reads the export as an XML reader would.
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&([^;]*);/g, (_, name: string) => {
    if (name.startsWith("#x")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    const v = ENTITIES[name];
    if (v === undefined) throw new Error(`unknown entity &${name};`);
    return v;
  });
}

export function parseXml(source: string): XmlElement {
  let at = 0;
  const root: XmlElement = { name: "#document", attrs: {}, children: [], text: "" };
  const stack: XmlElement[] = [root];
  const fail = (why: string) => {
    throw new Error(`${why} at character ${at}`);
  };
  while (at < source.length) {
    const lt = source.indexOf("<", at);
    const text = source.slice(at, lt === -1 ? source.length : lt);
    if (/&(?![a-zA-Z]+;|#\d+;|#x[0-9a-fA-F]+;)/.test(text)) fail("a bare &");
    if (text.includes(">")) fail("a bare >");
    stack[stack.length - 1].text += decode(text);
    if (lt === -1) break;
    at = lt;
    if (source.startsWith("<?", at)) {
      const end = source.indexOf("?>", at);
      if (end === -1) fail("an unclosed declaration");
      at = end + 2;
    } else if (source.startsWith("<!--", at)) {
      const end = source.indexOf("-->", at);
      if (end === -1) fail("an unclosed comment");
      if (source.slice(at + 4, end).includes("--")) fail("-- inside a comment");
      at = end + 3;
    } else if (source.startsWith("<!DOCTYPE", at)) {
      const end = source.indexOf(">", at);
      at = end + 1;
    } else if (source.startsWith("</", at)) {
      const end = source.indexOf(">", at);
      const name = source.slice(at + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) fail(`</${name}> closes <${open?.name}>`);
      at = end + 1;
    } else {
      const m = /^<([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*"[^"<]*")*)\s*(\/?)>/.exec(
        source.slice(at),
      );
      if (!m) fail("a malformed tag");
      const [whole, name, attrText, selfClose] = m as RegExpExecArray;
      const attrs: Record<string, string> = {};
      for (const a of attrText.matchAll(/([A-Za-z_][\w.:-]*)\s*=\s*"([^"]*)"/g)) {
        if (a[1] in attrs) fail(`attribute ${a[1]} twice`);
        attrs[a[1]] = decode(a[2]);
      }
      const el: XmlElement = { name, attrs, children: [], text: "" };
      stack[stack.length - 1].children.push(el);
      if (!selfClose) stack.push(el);
      at += whole.length;
    }
  }
  if (stack.length !== 1) fail(`<${stack[stack.length - 1].name}> is never closed`);
  if (root.children.length !== 1) fail("not exactly one root element");
  return root.children[0];
}

/** Every element below `el` (depth first) named `name`. */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    for (const c of e.children) {
      if (c.name === name) out.push(c);
      walk(c);
    }
  };
  walk(el);
  return out;
}
