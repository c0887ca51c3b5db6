import { describe, expect, it } from 'vitest';
import { dropSecrets, emptyS3Form, impliedRegion, s3Auth, s3FormErrors, s3Location, type S3FormData } from './s3-form';

const form = (over: Partial<S3FormData> = {}): S3FormData => ({
  ...emptyS3Form(),
  endpoint: 'https://s3.us-west-004.backblazeb2.com/',
  bucket: 'my-bucket',
  prefix: '/cairn/laptop/',
  accessKeyId: ' KEYID ',
  secretAccessKey: 'secret',
  ...over,
});

describe('s3-form', () => {
  it('turns the form into an engine location: trimmed, region implied by the endpoint, path style by the provider', () => {
    expect(s3Location(form())).toEqual({
      kind: 's3',
      endpoint: 'https://s3.us-west-004.backblazeb2.com',
      region: 'us-west-004',
      bucket: 'my-bucket',
      prefix: 'cairn/laptop',
      pathStyle: expect.any(Boolean),
      auth: { type: 'keys', accessKeyId: 'KEYID', secretAccessKey: 'secret' },
    });
    expect(s3Location(form({ endpoint: 'http://127.0.0.1:7480', region: '' })).region).toBe('us-east-1');
    expect(s3Location(form({ pathStyle: true })).pathStyle).toBe(true);
  });

  it('implies a region only where the endpoint names one', () => {
    expect(impliedRegion('https://s3.eu-central-003.backblazeb2.com')).toBe('eu-central-003');
    expect(impliedRegion('not a url')).toBeUndefined();
  });

  it('names each missing or bad field', () => {
    expect(Object.keys(s3FormErrors(form({ region: 'x' }), true))).toEqual([]);
    expect(Object.keys(s3FormErrors(form({ endpoint: 'ftp://x', bucket: 'A', region: '', accessKeyId: ' ', secretAccessKey: '' }), true)).sort()).toEqual(
      ['accessKeyId', 'bucket', 'endpoint', 'region', 'secretAccessKey'].sort(),
    );
    expect(Object.keys(s3FormErrors(form({ authType: 'presign', presignUrl: 'javascript:alert(1)' }), false))).toEqual(['presignUrl']);
  });

  it('presign auth carries the URL and the device token (trimmed, a pasted "Bearer " dropped); a session token is kept when given', () => {
    expect(s3Auth(form({ authType: 'presign', presignUrl: ' https://sign.example/x ' }))).toEqual({ type: 'presign', url: 'https://sign.example/x' });
    expect(s3Auth(form({ authType: 'presign', presignUrl: 'https://sign.example/x', presignToken: ' Bearer cpt_abc ' }))).toEqual({
      type: 'presign',
      url: 'https://sign.example/x',
      token: 'cpt_abc',
    });
    expect(Object.keys(s3FormErrors(form({ authType: 'presign', presignUrl: 'https://sign.example/x', presignToken: 'two words' }), false))).toEqual([
      'presignToken',
    ]);
    expect(s3Auth(form({ sessionToken: ' tok ' }))).toMatchObject({ sessionToken: 'tok' });
  });

  it('dropSecrets blanks what must not outlive the hand-over', () => {
    const f = form({ sessionToken: 'tok', presignToken: 'cpt_abc' });
    dropSecrets(f);
    expect([f.secretAccessKey, f.sessionToken, f.presignToken]).toEqual(['', '', '']);
  });
});
