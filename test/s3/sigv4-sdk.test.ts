// Our presigned URLs against @aws-sdk/s3-request-presigner's for the same inputs: same path,
// same query, same signature. The SDK adds `x-id=<Operation>` and
// `X-Amz-Content-Sha256=UNSIGNED-PAYLOAD` to its query; we pass both as ordinary parameters
// (S3 does not need them). Checksum defaults are turned off as the SDK allows, or it signs a
// CRC32 of an empty body into every PUT URL.

import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { localSigner, type LocalSignerConfig, type SignRequest } from '../../core/backend/s3';

const date = new Date('2024-03-09T17:05:42Z');
const expiresIn = 900;
const creds = { accessKeyId: 'AKIACAIRNTEST', secretAccessKey: 'cairn/secret+key=example0123456789abcdefg' };

interface Target {
  name: string;
  sdk: S3ClientConfig;
  ours: Omit<LocalSignerConfig, 'bucket'>;
  bucket: string;
}

const targets: Target[] = [
  {
    name: 'radosgw, path-style',
    bucket: 'cairn',
    sdk: { region: 'us-east-1', endpoint: 'http://127.0.0.1:7480', forcePathStyle: true },
    ours: { endpoint: 'http://127.0.0.1:7480', region: 'us-east-1', pathStyle: true, ...creds },
  },
  {
    name: 'AWS, virtual-hosted, with a session token',
    bucket: 'my-backups',
    sdk: { region: 'eu-central-1' },
    ours: {
      endpoint: 'https://s3.eu-central-1.amazonaws.com',
      region: 'eu-central-1',
      pathStyle: false,
      sessionToken: 'FwoGZXIvYXdzE/session+token==',
      ...creds,
    },
  },
  {
    name: 'B2, path-style',
    bucket: 'b2-bucket',
    sdk: { region: 'us-west-004', endpoint: 'https://s3.us-west-004.backblazeb2.com', forcePathStyle: true },
    ours: { endpoint: 'https://s3.us-west-004.backblazeb2.com', region: 'us-west-004', pathStyle: true, ...creds },
  },
];

const id = 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12';

type Presign = (client: S3Client, bucket: string) => Promise<string>;
const opts = { expiresIn, signingDate: date };

interface Case {
  name: string;
  sdk: Presign;
  /** The `x-id` the SDK adds for this operation, if any. */
  xid?: string;
  ours: SignRequest;
}

const cases: Case[] = [
  {
    name: 'GET config',
    xid: 'GetObject',
    sdk: (c, b) => getSignedUrl(c, new GetObjectCommand({ Bucket: b, Key: 'config' }), opts),
    ours: { method: 'GET', key: 'config' },
  },
  {
    name: 'GET a pack range under a prefix',
    xid: 'GetObject',
    sdk: (c, b) => getSignedUrl(c, new GetObjectCommand({ Bucket: b, Key: `repo/x/data/ab/${id}`, Range: 'bytes=1000-4095' }), opts),
    ours: { method: 'GET', key: `repo/x/data/ab/${id}`, headers: { range: 'bytes=1000-4095' } },
  },
  {
    name: 'GET a key that needs encoding',
    xid: 'GetObject',
    sdk: (c, b) => getSignedUrl(c, new GetObjectCommand({ Bucket: b, Key: "odd key/with spaces+plus&amp=eq'(ü)*~!.txt" }), opts),
    ours: { method: 'GET', key: "odd key/with spaces+plus&amp=eq'(ü)*~!.txt" },
  },
  {
    name: 'HEAD a key file',
    sdk: (c, b) => getSignedUrl(c, new HeadObjectCommand({ Bucket: b, Key: `keys/${id}` }), opts),
    ours: { method: 'HEAD', key: `keys/${id}` },
  },
  {
    name: 'PUT a pack with Content-MD5',
    xid: 'PutObject',
    sdk: (c, b) => getSignedUrl(c, new PutObjectCommand({ Bucket: b, Key: `p/data/ab/${id}`, ContentMD5: '1B2M2Y8AsgTpgAmY7PhCfg==' }), opts),
    ours: { method: 'PUT', key: `p/data/ab/${id}`, headers: { 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==' } },
  },
  {
    name: 'PUT with If-None-Match',
    xid: 'PutObject',
    sdk: (c, b) => getSignedUrl(c, new PutObjectCommand({ Bucket: b, Key: 'p/config', IfNoneMatch: '*' }), opts),
    ours: { method: 'PUT', key: 'p/config', headers: { 'if-none-match': '*' } },
  },
  {
    name: 'DELETE a lock',
    xid: 'DeleteObject',
    sdk: (c, b) => getSignedUrl(c, new DeleteObjectCommand({ Bucket: b, Key: `locks/${id}` }), opts),
    ours: { method: 'DELETE', key: `locks/${id}` },
  },
  {
    name: 'ListObjectsV2, first page',
    sdk: (c, b) => getSignedUrl(c, new ListObjectsV2Command({ Bucket: b, Prefix: 'repo/snapshots/', MaxKeys: 1000 }), opts),
    ours: { method: 'GET', key: '', query: { 'list-type': '2', prefix: 'repo/snapshots/', 'max-keys': '1000' } },
  },
  {
    name: 'ListObjectsV2, with a continuation token',
    sdk: (c, b) => getSignedUrl(c, new ListObjectsV2Command({ Bucket: b, Prefix: 'data/', ContinuationToken: '1/ab+cd=ef/gh' }), opts),
    ours: { method: 'GET', key: '', query: { 'list-type': '2', prefix: 'data/', 'continuation-token': '1/ab+cd=ef/gh' } },
  },
];

describe.each(targets)("presigned URLs equal the AWS SDK's: $name", (t) => {
  const client = new S3Client({
    ...t.sdk,
    credentials: { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey, sessionToken: t.ours.sessionToken },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const signer = localSigner({ ...t.ours, bucket: t.bucket, expiresSeconds: expiresIn, now: () => date });

  it.each(cases)('$name', async (c) => {
    const want = new URL(await c.sdk(client, t.bucket));
    const query = { ...c.ours.query, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD', ...(c.xid ? { 'x-id': c.xid } : {}) };
    const got = new URL((await signer.sign({ ...c.ours, query })).url);
    expect(got.origin).toBe(want.origin);
    expect(got.pathname).toBe(want.pathname);
    expect(Object.fromEntries(got.searchParams)).toEqual(Object.fromEntries(want.searchParams));
    expect(got.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });
});
