import { describe, expect, it } from 'vitest';
import { decodeXmlText, parseListObjectsV2, parseS3Error, xmlElements, xmlText } from './xml';

describe('decodeXmlText', () => {
  it.each([
    ['plain', 'plain'],
    ['a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;', 'a & b <c> "d" \'e\''],
    ['&#65;&#x42;&#x1F600;', 'AB😀'],
    ['&amp;amp;', '&amp;'],
    ['&unknown; & alone', '&unknown; & alone'],
    ['<![CDATA[<raw> &amp;]]> &amp; after', '<raw> &amp; & after'],
  ])('%j', (input, want) => expect(decodeXmlText(input)).toBe(want));
});

describe('element scanning', () => {
  it('matches whole names only, with namespaces, attributes and self-closing tags', () => {
    const xml = '<r><KeyCount>2</KeyCount><s3:Key a="1">k&amp;1</s3:Key><Key/><Key >k3</Key ></r>';
    expect(xmlElements(xml, 'Key')).toEqual(['k&amp;1', '', 'k3']);
    expect(xmlText(xml, 'KeyCount')).toBe('2');
    expect(xmlText(xml, 'Key')).toBe('k&1');
    expect(xmlText(xml, 'Missing')).toBeUndefined();
  });
});

const page = (contents: string, tail: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
  `<Name>b</Name><Prefix>repo/data/</Prefix><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys>${contents}${tail}</ListBucketResult>`;
const entry = (key: string, size: number) =>
  `<Contents>\n  <Key>${key}</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>&quot;abc&quot;</ETag>` +
  `<Size>${size}</Size><StorageClass>STANDARD</StorageClass><Owner><ID>x</ID></Owner></Contents>`;

describe('parseListObjectsV2', () => {
  it('reads keys, sizes and the continuation token', () => {
    const xml = page(
      entry('repo/data/ab/ab1', 10) + entry('repo/data/cd/a&amp;b', 0),
      '<IsTruncated>true</IsTruncated><NextContinuationToken>tok/+=&amp;</NextContinuationToken>',
    );
    expect(parseListObjectsV2(xml)).toEqual({
      objects: [
        { key: 'repo/data/ab/ab1', size: 10 },
        { key: 'repo/data/cd/a&b', size: 0 },
      ],
      isTruncated: true,
      nextContinuationToken: 'tok/+=&',
    });
  });

  it('reads a last page, an empty page, and flags placed before the contents', () => {
    expect(parseListObjectsV2(page(entry('k', 5), '<IsTruncated>false</IsTruncated>'))).toEqual({ objects: [{ key: 'k', size: 5 }], isTruncated: false });
    expect(parseListObjectsV2(page('', '<IsTruncated>false</IsTruncated><NextContinuationToken/>'))).toEqual({ objects: [], isTruncated: false });
    const flagsFirst =
      '<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t</NextContinuationToken>' + entry('k', 1) + '</ListBucketResult>';
    expect(parseListObjectsV2(flagsFirst)).toEqual({ objects: [{ key: 'k', size: 1 }], isTruncated: true, nextContinuationToken: 't' });
  });

  it('rejects documents that are not listings, and entries without a size', () => {
    expect(() => parseListObjectsV2('<Error><Code>NoSuchBucket</Code></Error>')).toThrow(SyntaxError);
    expect(() => parseListObjectsV2('<html>proxy login</html>')).toThrow(SyntaxError);
    expect(() => parseListObjectsV2(page('<Contents><Key>k</Key></Contents>', ''))).toThrow(/Size/);
    expect(() => parseListObjectsV2(page('<Contents><Key>k</Key><Size>-1</Size></Contents>', ''))).toThrow(/Size/);
  });
});

describe('parseS3Error', () => {
  it('reads code and message', () => {
    const xml =
      '<?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message><RequestId>1</RequestId></Error>';
    expect(parseS3Error(xml)).toEqual({ code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match' });
  });
  it('returns nothing for bodies that are not S3 errors', () => {
    expect(parseS3Error('')).toEqual({});
    expect(parseS3Error('<html><body>502 Bad Gateway</body></html>')).toEqual({});
    expect(parseS3Error('<Error><Code>NoSuchKey</Code></Error>')).toEqual({ code: 'NoSuchKey' });
  });
});
