import { describe, expect, it } from 'vitest';
import { parseTemplateId } from './template.model.js';

describe('parseTemplateId', () => {
  it('splits <theme>//<slug>, decoding it and doubling a collapsed last slash', () => {
    expect(parseTemplateId('cornerstone//index')).toEqual({ theme: 'cornerstone', slug: 'index' });
    expect(parseTemplateId('cornerstone/index')).toEqual({ theme: 'cornerstone', slug: 'index' });
    expect(parseTemplateId('cornerstone%2F%2Fpage-no-title')).toEqual({ theme: 'cornerstone', slug: 'page-no-title' });
  });

  it('refuses ids naming a path or nothing', () => {
    for (const id of ['index', '//index', 'cornerstone//', 'cornerstone//../theme', 'cornerstone//%2E%2E%2Ftheme', '..//index', 'a/b//index', 'cornerstone//a/b', 'cornerstone//%E0%A4%A', 'cornerstone//.hidden']) {
      expect(parseTemplateId(id), id).toBeNull();
    }
  });
});
