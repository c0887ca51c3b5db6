import { describe, expect, it } from 'vitest';
import { DEFAULT_OPFS, defaultLabel, describeLocation, isBucket, sameLocation, toEngine, toStored, validateS3 } from './locations';
import type { RepoLocation } from '../../workers/api';

const s3: RepoLocation = {
  kind: 's3',
  endpoint: 'https://s3.example.com',
  region: 'us-east-1',
  bucket: 'b',
  prefix: 'p/q',
  pathStyle: true,
  auth: { type: 'keys', accessKeyId: 'AK', secretAccessKey: 'SECRET' },
};

describe('locations', () => {
  it('stores a bucket without its secrets, and makes it whole with the remembered keys', () => {
    const stored = toStored(s3);
    expect(JSON.stringify(stored)).not.toContain('SECRET');
    expect(JSON.stringify(stored)).not.toContain('AK');
    expect(toEngine(stored)).toEqual({ ...s3, auth: { type: 'remembered' } });
    expect(toEngine(stored, s3.auth)).toEqual(s3);
  });

  it('labels and compares locations', () => {
    const stored = toStored(s3);
    expect(defaultLabel(stored)).toBe('b/p/q');
    expect(describeLocation(stored)).toBe('Bucket b/p/q at s3.example.com');
    expect(defaultLabel(DEFAULT_OPFS)).toBe('This browser');
    expect(sameLocation(stored, { ...stored, region: 'other' } as typeof stored)).toBe(true);
    expect(sameLocation(stored, { ...stored, prefix: 'p' } as typeof stored)).toBe(false);
    expect(sameLocation(DEFAULT_OPFS, { kind: 'opfs', name: 'default' })).toBe(true);
    expect([isBucket(stored), isBucket(DEFAULT_OPFS), isBucket(undefined)]).toEqual([true, false, false]);
  });

  it('validates bucket names and endpoints as S3 does', () => {
    expect(validateS3({ endpoint: 'https://x', bucket: 'ok-bucket.1', region: 'r' })).toEqual({});
    expect(Object.keys(validateS3({ endpoint: 'x', bucket: 'No_Caps', region: ' ' })).sort()).toEqual(['bucket', 'endpoint', 'region']);
  });
});
