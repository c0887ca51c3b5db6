// The generic backend conformance suite against a real radosgw: once under a key prefix and
// once at the root of a bucket of its own. Each test gets an empty place to work in.

import { afterAll, beforeAll } from 'vitest';
import { backendConformanceSuite } from '../helpers/backend-conformance';
import { S3Backend } from '../../core/backend/s3';
import { createBucket, emptyBucket, serverSigner, startS3, type S3Server } from '../helpers/s3-server';

let server: S3Server;
beforeAll(async () => {
  server = await startS3();
});
afterAll(async () => {
  await server?.stop();
});

const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
let n = 0;

backendConformanceSuite('S3Backend under a prefix', async () => {
  const prefix = `conformance-${run}/${n++}/repo`;
  const backend = new S3Backend({ signer: serverSigner(server), prefix, location: `s3:${server.endpoint}/${server.bucket}/${prefix}` });
  return { backend, cleanup: () => emptyBucket(server, server.bucket, `${prefix}/`) };
});

backendConformanceSuite('S3Backend at a bucket root', async () => {
  const bucket = `root-${run}-${n++}`;
  await createBucket(server, bucket);
  const backend = new S3Backend({ signer: serverSigner(server, bucket), location: `s3:${server.endpoint}/${bucket}` });
  return { backend, cleanup: () => emptyBucket(server, bucket, '', true) };
});
