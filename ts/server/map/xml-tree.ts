// TMX and TSX files as a small element tree. fast-xml-parser runs in
// preserveOrder mode because layer order is meaning in Tiled: <layer>,
// <objectgroup> and <group> siblings interleave, and the default
// (grouped-by-name) output would lose which layer is on top.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { MapError } from "../content/map-error.js";
import { typedPropertyValue, type Properties } from "../content/properties.js";

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated text content of this element (not of its children). */
  text: string;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Entities are decoded below: the parser's own decoding leaves numeric
  // references (&#10;, which Tiled writes for newlines in attributes) alone
  // unless HTML entities are switched on, and those are not XML.
  processEntities: false,
});

const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Replaces the five predefined XML entities and numeric character references. */
function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g, (reference, body: string) => {
    if (body[0] !== "#") return XML_ENTITIES[body] ?? reference;
    const code = body[1] === "x" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : reference;
  });
}

type OrderedNode = Record<string, unknown>;

/** Parses an XML document and returns its root element; malformed XML is a MapError naming line and column. */
export function parseXml(text: string, file: string): XmlElement {
  const verdict = XMLValidator.validate(text);
  if (verdict !== true) {
    const { msg, line, col } = verdict.err;
    throw new MapError(file, `bad XML at line ${line}, column ${col}: ${msg}`);
  }
  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(text) as OrderedNode[];
  } catch (error) {
    // The validator passes some documents the parser refuses: nesting deeper than its limit (100).
    throw new MapError(file, `bad XML: ${(error as Error).message}`);
  }
  const roots = toElements(nodes);
  if (roots.length !== 1) throw new MapError(file, `bad XML: expected one root element, found ${roots.length}`);
  return roots[0];
}

function toElements(nodes: OrderedNode[]): XmlElement[] {
  const elements: XmlElement[] = [];
  for (const node of nodes) {
    const element = toElement(node);
    if (element) elements.push(element);
  }
  return elements;
}

function toElement(node: OrderedNode): XmlElement | null {
  for (const key of Object.keys(node)) {
    if (key === ":@" || key === "#text") continue;
    const childNodes = (node[key] as OrderedNode[]) ?? [];
    let text = "";
    for (const child of childNodes) if ("#text" in child) text += String(child["#text"]);
    const attrs: Record<string, string> = {};
    for (const [name, value] of Object.entries((node[":@"] as Record<string, string>) ?? {})) {
      attrs[name] = decodeEntities(value);
    }
    return { name: key, attrs, children: toElements(childNodes), text: decodeEntities(text) };
  }
  return null;
}

/** The first child element with this name. */
export function childNamed(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((child) => child.name === name);
}

/** A required integer attribute, or the fallback when absent; anything but an integer is a MapError. */
export function intAttr(element: XmlElement, name: string, file: string, fallback?: number): number {
  const text = element.attrs[name];
  if (text === undefined) {
    if (fallback === undefined) throw new MapError(file, `<${element.name}> has no ${name} attribute`);
    return fallback;
  }
  if (!/^-?\d+$/.test(text.trim())) {
    throw new MapError(file, `<${element.name}> ${name}="${text}": expected an integer`);
  }
  return Number(text);
}

/** A numeric attribute (pixel positions may be fractional), or the fallback when absent. */
export function numberAttr(element: XmlElement, name: string, file: string, fallback: number): number {
  const text = element.attrs[name];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) {
    throw new MapError(file, `<${element.name}> ${name}="${text}": expected a number`);
  }
  return value;
}

/** The <properties> of an element. Multi-line string values live in the element text instead of `value`. */
export function xmlProperties(element: XmlElement): Properties {
  const properties: Properties = {};
  const list = childNamed(element, "properties");
  if (!list) return properties;
  for (const property of list.children) {
    if (property.name !== "property") continue;
    const name = property.attrs.name;
    if (name === undefined) continue;
    const value = typedPropertyValue(property.attrs.type, property.attrs.value ?? property.text);
    if (value !== undefined) properties[name] = value;
  }
  return properties;
}
