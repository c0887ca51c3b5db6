import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE, formatRoute, parseHash, type Route } from './routes';

describe('routes', () => {
  const cases: [string, Route][] = [
    ['#/backup', { name: 'backup' }],
    ['#/snapshots', { name: 'snapshots' }],
    ['#/snapshot/abcd1234', { name: 'snapshot', id: 'abcd1234', path: [] }],
    ['#/snapshot/abcd1234/home/u%20v/%E6%97%A5%2F%3F%23', { name: 'snapshot', id: 'abcd1234', path: ['home', 'u v', '日/?#'] }],
    ['#/search?q=a+b%26c', { name: 'search', q: 'a b&c' }],
    ['#/search', { name: 'search', q: '' }],
    ['#/versions/a/%25b', { name: 'versions', path: ['a', '%b'] }],
    ['#/diff/aaaa/bbbb', { name: 'diff', a: 'aaaa', b: 'bbbb' }],
  ];

  it.each(cases)('%s ⇄ %j', (hash, route) => {
    expect(parseHash(hash)).toEqual(route);
    expect(formatRoute(route)).toBe(hash);
    expect(parseHash(formatRoute(route))).toEqual(route);
  });

  it.each(['', '#', '#/', '#/nowhere', '#/snapshot/', '#/snapshot/%E0%A4%A/x'])('%j goes to the default view', (hash) => {
    expect(parseHash(hash)).toEqual(DEFAULT_ROUTE);
  });

  it('drops empty path components, so a trailing slash names the same folder', () => {
    expect(parseHash('#/snapshot/ab/x//y/')).toEqual({ name: 'snapshot', id: 'ab', path: ['x', 'y'] });
  });
});
