// Just enough XML for S3 answers: ListObjectsV2 pages and <Error> bodies. Workers have no
// DOMParser, and S3's XML is flat and regular, so a tolerant tag scanner does: it ignores
// attributes, namespace prefixes, unknown elements and whitespace, and decodes entities and
// CDATA. It is not a general XML parser and does not need to be.

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#NN;` `&#xHH;` and unwraps CDATA sections. */
export function decodeXmlText(s: string): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(/<!\[CDATA\[([\s\S]*?)\]\]>/g)) {
    out += decodeEntities(s.slice(last, m.index)) + m[1]!;
    last = m.index + m[0].length;
  }
  return out + decodeEntities(s.slice(last));
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, ent: string) => {
    if (ent[0] === '#') {
      const cp = ent[1] === 'x' || ent[1] === 'X' ? parseInt(ent.slice(2), 16) : parseInt(ent.slice(1), 10);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
    }
    return NAMED[ent] ?? whole;
  });
}

function elementPattern(tag: string): RegExp {
  // <Tag>…</Tag>, <ns:Tag attr="…">…</ns:Tag> or <Tag/>; the name must end where the tag does,
  // so `Key` does not match `KeyCount`.
  return new RegExp(`<(?:[\\w.-]+:)?${tag}(?:\\s[^>]*?)?(?:/>|>([\\s\\S]*?)</(?:[\\w.-]+:)?${tag}\\s*>)`, 'g');
}

/** The raw inner XML of every `<tag>` element, in document order (elements must not nest in themselves). */
export function xmlElements(xml: string, tag: string): string[] {
  return [...xml.matchAll(elementPattern(tag))].map((m) => m[1] ?? '');
}

/** The decoded text of the first `<tag>` element, or undefined if there is none. */
export function xmlText(xml: string, tag: string): string | undefined {
  const m = elementPattern(tag).exec(xml);
  return m ? decodeXmlText(m[1] ?? '') : undefined;
}

export interface ListedObject {
  key: string;
  size: number;
}

export interface ListPage {
  objects: ListedObject[];
  isTruncated: boolean;
  /** Token for the next page; absent on the last page (and on servers that omit it). */
  nextContinuationToken?: string;
}

/** Parses a ListObjectsV2 result (`<ListBucketResult>`). */
export function parseListObjectsV2(xml: string): ListPage {
  if (!/<(?:[\w.-]+:)?ListBucketResult[\s>]/.test(xml)) throw new SyntaxError('not a ListBucketResult document');
  const objects: ListedObject[] = [];
  for (const inner of xmlElements(xml, 'Contents')) {
    const key = xmlText(inner, 'Key');
    const size = Number(xmlText(inner, 'Size') ?? 'NaN');
    if (key === undefined || !Number.isSafeInteger(size) || size < 0) throw new SyntaxError('a <Contents> entry lacks a Key or a valid Size');
    objects.push({ key, size });
  }
  // Contents come first in S3's answers, but a tolerant reader should not depend on that:
  // strip them before looking for the top-level flags.
  const top = xml.replace(elementPattern('Contents'), '');
  const isTruncated = (xmlText(top, 'IsTruncated') ?? 'false').trim().toLowerCase() === 'true';
  const token = xmlText(top, 'NextContinuationToken');
  return token ? { objects, isTruncated, nextContinuationToken: token } : { objects, isTruncated };
}

export interface S3ErrorBody {
  code?: string;
  message?: string;
}

/** Reads `<Error><Code>…</Code><Message>…</Message></Error>`; empty when the body is not one. */
export function parseS3Error(xml: string): S3ErrorBody {
  const inner = xmlElements(xml, 'Error')[0];
  if (inner === undefined) return {};
  const code = xmlText(inner, 'Code')?.trim();
  const message = xmlText(inner, 'Message')?.trim();
  return { ...(code ? { code } : {}), ...(message ? { message } : {}) };
}
