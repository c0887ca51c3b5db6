import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../errors';
import { cleanPath, formatS3Location, parseS3Location, regionFromEndpoint, s3SignerConfigFromEnv } from './location';

describe('parseS3Location (restic spellings)', () => {
  it.each([
    ['s3:http://127.0.0.1:7480/bucket', { endpoint: 'http://127.0.0.1:7480', bucket: 'bucket', prefix: '' }],
    ['s3:http://127.0.0.1:7480/bucket/', { endpoint: 'http://127.0.0.1:7480', bucket: 'bucket', prefix: '' }],
    ['s3:http://127.0.0.1:7480/bucket/prefix', { endpoint: 'http://127.0.0.1:7480', bucket: 'bucket', prefix: 'prefix' }],
    ['s3:https://minio.example:9000/bucket/a/b/', { endpoint: 'https://minio.example:9000', bucket: 'bucket', prefix: 'a/b' }],
    ['s3:https://host/bucket/a//./b/../c', { endpoint: 'https://host', bucket: 'bucket', prefix: 'a/c' }],
    ['s3:https://host:443/bucket/x', { endpoint: 'https://host', bucket: 'bucket', prefix: 'x' }],
    ['s3:s3.amazonaws.com/bucket/prefix', { endpoint: 'https://s3.amazonaws.com', bucket: 'bucket', prefix: 'prefix' }],
    ['s3:s3.amazonaws.com/bucket', { endpoint: 'https://s3.amazonaws.com', bucket: 'bucket', prefix: '' }],
    ['s3://s3.us-west-004.backblazeb2.com/b2b/restic/repo', { endpoint: 'https://s3.us-west-004.backblazeb2.com', bucket: 'b2b', prefix: 'restic/repo' }],
    ['s3:http://h/bucket/with%20space', { endpoint: 'http://h', bucket: 'bucket', prefix: 'with space' }],
  ])('%s', (input, want) => expect(parseS3Location(input)).toEqual(want));

  it.each(['s3:http://host', 's3:http://host/', 's3:s3.amazonaws.com', 's3:s3.amazonaws.com/', 'b2:bucket/x', 's3:ftp://host/b', 's3:host/b/../../up'])(
    'rejects %s with USAGE',
    (input) => {
      let err: unknown;
      try {
        parseS3Location(input);
      } catch (e) {
        err = e;
      }
      expect(isCairnError(err, 'USAGE'), String(err)).toBe(true);
    },
  );

  it("formats back to restic's spelling", () => {
    for (const s of ['s3:http://127.0.0.1:7480/bucket/prefix', 's3:https://s3.amazonaws.com/bucket']) expect(formatS3Location(parseS3Location(s))).toBe(s);
  });
});

describe('cleanPath (Go path.Clean)', () => {
  it.each([
    ['a/b', 'a/b'],
    ['a//b/', 'a/b'],
    ['./a/./b', 'a/b'],
    ['a/../b', 'b'],
    ['../a', '../a'],
    ['/../a', '/a'],
    ['', '.'],
    ['/', '/'],
  ])('%j -> %j', (input, want) => expect(cleanPath(input)).toBe(want));
});

describe('regions and credentials', () => {
  it.each([
    ['https://s3.eu-central-1.amazonaws.com', 'eu-central-1'],
    ['https://s3-us-west-2.amazonaws.com', 'us-west-2'],
    ['https://s3.dualstack.ap-south-1.amazonaws.com', 'ap-south-1'],
    ['https://s3.us-gov-west-1.amazonaws.com', 'us-gov-west-1'],
    ['https://s3.us-west-004.backblazeb2.com', 'us-west-004'],
    ['https://s3.amazonaws.com', undefined],
    ['http://127.0.0.1:7480', undefined],
  ])('region of %s is %s', (endpoint, want) => expect(regionFromEndpoint(endpoint)).toBe(want));

  const loc = parseS3Location('s3:https://s3.eu-west-3.amazonaws.com/bucket/repo');

  it('reads the AWS_* variables restic reads', () => {
    expect(
      s3SignerConfigFromEnv(loc, { AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK', AWS_SESSION_TOKEN: 'T', AWS_DEFAULT_REGION: 'eu-west-1' }),
    ).toEqual({
      endpoint: 'https://s3.eu-west-3.amazonaws.com',
      bucket: 'bucket',
      region: 'eu-west-1',
      accessKeyId: 'AK',
      secretAccessKey: 'SK',
      sessionToken: 'T',
    });
    expect(s3SignerConfigFromEnv(loc, { AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' }).region).toBe('eu-west-3');
    expect(s3SignerConfigFromEnv(loc, { AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK', AWS_REGION: 'x-1' }).region).toBe('x-1');
    const local = parseS3Location('s3:http://127.0.0.1:7480/b');
    const cfg = s3SignerConfigFromEnv(local, { AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK', AWS_SESSION_TOKEN: '' });
    expect(cfg.region).toBe('us-east-1');
    expect(cfg).not.toHaveProperty('sessionToken');
  });

  it('names the missing variable', () => {
    expect(() => s3SignerConfigFromEnv(loc, { AWS_SECRET_ACCESS_KEY: 'SK' })).toThrow(/AWS_ACCESS_KEY_ID/);
    expect(() => s3SignerConfigFromEnv(loc, { AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: ' ' })).toThrow(/AWS_SECRET_ACCESS_KEY/);
  });
});
