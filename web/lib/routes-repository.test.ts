import { describe, expect, it } from 'vitest';
import { formatRoute, parseHash, REPO_SECTIONS } from './routes';

describe('repository tools routes', () => {
  it.each(REPO_SECTIONS)('#/repository/%s round-trips', (section) => {
    expect(parseHash(`#/repository/${section}`)).toEqual({ name: 'repository', section });
    expect(formatRoute({ name: 'repository', section })).toBe(`#/repository/${section}`);
  });

  it('an unknown or missing section opens the health section', () => {
    expect(parseHash('#/repository')).toEqual({ name: 'repository', section: 'health' });
    expect(parseHash('#/repository/nowhere')).toEqual({ name: 'repository', section: 'health' });
  });
});
