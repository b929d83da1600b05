import { describe, expect, it } from 'vitest';
import { updateInstance, WIDGET_TYPES, withDefaults } from './widget-type.registry.js';

const type = (id: string) => WIDGET_TYPES.find(id)!;

describe('updateInstance', () => {
  it('keeps HTML as sent for a user with unfiltered_html', () => {
    const instance = updateInstance(type('custom_html'), { title: 'T', content: '<script>alert(1)</script><p onclick="x()">Hi</p>' }, true);
    expect(instance).toEqual({ title: 'T', content: '<script>alert(1)</script><p onclick="x()">Hi</p>' });
  });

  it("filters the HTML of a user without unfiltered_html as post content is filtered, in every type's HTML field", () => {
    const hostile = '<script>alert(1)</script><p onclick="x()">Hi</p>';
    expect(updateInstance(type('custom_html'), { content: hostile }, false).content).toBe('alert(1)<p>Hi</p>');
    expect(updateInstance(type('text'), { text: hostile }, false).text).toBe('alert(1)<p>Hi</p>');
    expect(updateInstance(type('block'), { content: `<!-- wp:paragraph -->${hostile}<!-- /wp:paragraph -->` }, false).content).toBe(
      '<!-- wp:paragraph -->alert(1)<p>Hi</p><!-- /wp:paragraph -->',
    );
  });

  it('keeps only declared fields, each as its kind says, whatever the client sends', () => {
    const submitted = JSON.parse('{"__proto__":{"polluted":true},"title":{"$gt":""},"number":"0","show_date":"on","extra":1}');
    expect(updateInstance(type('recent-posts'), submitted, true)).toEqual({ title: '', number: 5, show_date: true });
    expect(updateInstance(type('recent-posts'), { title: ' <b>Latest</b>\n news ', number: 3.7 }, true)).toEqual({ title: 'Latest news', number: 3, show_date: false });
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('reads a stored instance with defaults for what it lacks', () => {
    expect(withDefaults(type('archives'), {})).toEqual({ title: '', count: false });
  });
});
