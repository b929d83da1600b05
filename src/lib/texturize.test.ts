import { describe, expect, it } from 'vitest';
import { theTitle, wptexturize } from './texturize.js';

// Cases from WordPress's tests/phpunit/tests/formatting/wpTexturize.php, each with WordPress's expected output.
const NBSP = '\u00A0';

const cases: Record<string, [string, string][]> = {
  'dashes (test_dashes, data_smart_dashes, test_spaces_around_hyphens, test_hyphens_at_start_and_end)': [
    ['Hey -- boo?', 'Hey &#8212; boo?'],
    ['<a href="http://xx--xx">Hey -- boo?</a>', '<a href="http://xx--xx">Hey &#8212; boo?</a>'],
    ['word --- word', 'word &#8212; word'],
    ['word---word', 'word&#8212;word'],
    ['word -- word', 'word &#8212; word'],
    ['word--word', 'word&#8211;word'],
    ['word - word', 'word &#8211; word'],
    ['word-word', 'word-word'],
    ['wordxn--word', 'wordxn--word'],
    [' - ', ' &#8211; '],
    ['&nbsp;-&nbsp;', '&nbsp;&#8211;&nbsp;'],
    [`${NBSP}-${NBSP}`, `${NBSP}&#8211;${NBSP}`],
    [' --&nbsp;', ' &#8212;&nbsp;'],
    ['- -', '&#8211; &#8211;'],
    ['-- --', '&#8212; &#8212;'],
  ],
  'quotes (test_basic_quotes, test_bracketed_quotes_1418, test_quotes, data_opening_quote, data_closing_quote)': [
    ["test's", 'test&#8217;s'],
    ["'quoted'", '&#8216;quoted&#8217;'],
    ['"quoted"', '&#8220;quoted&#8221;'],
    ["space before 'quoted' space after", 'space before &#8216;quoted&#8217; space after'],
    ['{"quoted"}', '{&#8220;quoted&#8221;}'],
    [" 'test's quoted' ", ' &#8216;test&#8217;s quoted&#8217; '],
    [' "test\'s quoted" ', ' &#8220;test&#8217;s quoted&#8221; '],
    ['("test")', '(&#8220;test&#8221;)'],
    ["('twas)", '(&#8217;twas)'],
    ['A test with a number, "like 62", is nice to have.', 'A test with a number, &#8220;like 62&#8221;, is nice to have.'],
    ['Here is "<a href="http://example.com">a test with a link</a>" and a space.', 'Here is &#8220;<a href="http://example.com">a test with a link</a>&#8221; and a space.'],
    ['word -"word word', 'word -&#8220;word word'],
    ['word <"word word', 'word <"word word'],
    ['word &lt;"word word', 'word &lt;&#8220;word word'],
    ['word"word"word', 'word&#8221;word&#8221;word'],
    ['test sentence.&quot; word', 'test sentence.&quot; word'],
    ['&nbsp;"Testing"', '&nbsp;&#8220;Testing&#8221;'],
    [`stop. ${NBSP}"A quote after 2 spaces."`, `stop. ${NBSP}&#8220;A quote after 2 spaces.&#8221;`],
  ],
  'apostrophes, years and primes (test_quotes_before_numbers, data_year_abbr, test_minutes_seconds, data_single_prime, data_contractions)': [
    ["Class of '99", 'Class of &#8217;99'],
    ["'Class of '99's'", '&#8216;Class of &#8217;99&#8217;s&#8217;'],
    ['}"Class of \'99"{', '}&#8221;Class of &#8217;99&#8243;{'],
    ["word '999 word", 'word &#8216;999 word'],
    ["word '99% word", 'word &#8216;99% word'],
    ["word '99.' word", 'word &#8217;99.&#8217; word'],
    ["in '4 years, 3 months,' Obama cut the deficit", 'in &#8216;4 years, 3 months,&#8217; Obama cut the deficit'],
    ["testing's '4' through 'quotes'", 'testing&#8217;s &#8216;4&#8217; through &#8216;quotes&#8217;'],
    ["9'", '9&#8242;'],
    ['9"', '9&#8243;'],
    ['"a 9\' b"', '&#8220;a 9&#8242; b&#8221;'],
    ["'a 9\" b'", '&#8216;a 9&#8243; b&#8217;'],
    ['"a 9\' plus a \'9\', maybe a 9\' \'9\'"', '&#8220;a 9&#8242; plus a &#8216;9&#8217;, maybe a 9&#8242; &#8216;9&#8217;&#8221;'],
    ["according to our source, '33 students scored less than 50' on the test.", 'according to our source, &#8217;33 students scored less than 50&#8242; on the test.'],
    ["word 99'word", 'word 99&#8217;word'],
    ["word'[ word", "word'[ word"],
    ["word'< word", 'word&#8217;< word'],
    ["WordPress 3.5's release date", 'WordPress 3.5&#8217;s release date'],
    ["That means every moment you're working on something without it being in the public it's actually dying.", 'That means every moment you&#8217;re working on something without it being in the public it&#8217;s actually dying.'],
    ["word 'tain't word", 'word &#8217;tain&#8217;t word'],
    ["word 'cause word", 'word &#8217;cause word'],
    ['<p>\'99<br />\'123\'<br />\'tis<br />\'s\'</p>', '<p>&#8217;99<br />&#8216;123&#8217;<br />&#8217;tis<br />&#8216;s&#8217;</p>'],
  ],
  'ellipses, (tm), times and ampersands (data_misc_static_replacements, data_multiplication, data_ampersand)': [
    ['word ... word', 'word &#8230; word'],
    ['word `` word', 'word &#8220; word'],
    ["word '' word", 'word &#8221; word'],
    ['word (tm) word', 'word &#8482; word'],
    ['word(tm) word', 'word(tm) word'],
    ['14x24', '14&#215;24'],
    ['-123x1=-123', '-123&#215;1=-123'],
    ['-123x-1', '-123x-1'],
    ['0.675x1=0.675', '0.675&#215;1=0.675'],
    ['0x70', '0x70'],
    ['3x2x1x0', '3x2x1x0'],
    ['word & word', 'word &#038; word'],
    ['word &nbsp; word', 'word &nbsp; word'],
    ['word &#xabc; word', 'word &#xabc; word'],
    ['word &# word', 'word &#038;# word'],
    ['word &&amp; word', 'word &#038;&amp; word'],
    ['word &', 'word &#038;'],
  ],
  'elements, comments and shortcodes left alone (test_disable, test_wptexturize_html_comments, data_tag_avoidance)': [
    ['<pre>---&</pre>', '<pre>---&</pre>'],
    ['<pre><code></code>--&</pre>', '<pre><code></code>--&</pre>'],
    ['<code>href="baba"</code> "baba"', '<code>href="baba"</code> &#8220;baba&#8221;'],
    ['<pre>"baba"<code>"baba"<pre></pre></code>"baba"</pre>', '<pre>"baba"<code>"baba"<pre></pre></code>"baba"</pre>'],
    ['<pre></code>"baba"</pre>', '<pre></code>"baba"</pre>'],
    ['& <script>&&</script>', '&#038; <script>&&</script>'],
    ['<!--[if !IE]>"a 9\' plus a \'9\', maybe a 9\' \'9\' "<![endif]-->', '<!--[if !IE]>"a 9\' plus a \'9\', maybe a 9\' \'9\' "<![endif]-->'],
    ['a<!-- <!-- c --> -->b<!-- close -->', 'a<!-- <!-- c --> &#8211;>b<!-- close -->'],
    ['[ photos by <a href="http://example.com/?a[]=1&a[]=2"> this guy & that guy </a> ]', '[ photos by <a href="http://example.com/?a[]=1&#038;a[]=2"> this guy &#038; that guy </a> ]'],
    ['[caption - is it wise to <a title="allow user content ] here? hmm"> maybe </a> ]', '[caption &#8211; is it wise to <a title="allow user content ] here? hmm"> maybe </a> ]'],
    ['[gallery ...]', '[gallery ...]'],
    ['[gallery ...', '[gallery &#8230;'],
    ['[[gallery]]...[[/gallery]]', '[[gallery]]&#8230;[[/gallery]]'],
    ['[gallery <br ... /> ...]', '[gallery <br ... /> ...]'],
    ['<br [gallery ...] ... />', '<br [gallery ...] ... />'],
    ['[gallery ...]...<!-- ... -->...<br ... />', '[gallery ...]&#8230;<!-- ... -->&#8230;<br ... />'],
    ['word <img src="http://example.com/wp-content/uploads/2014/06/image-300x216.gif" /> word', 'word <img src="http://example.com/wp-content/uploads/2014/06/image-300x216.gif" /> word'],
    ['[ do texturize "[quote]" here ]', '[ do texturize &#8220;[quote]&#8221; here ]'],
    ['[Let\'s get crazy<input>[caption code="<a href=\'?a[]=100\'>hello</a>"]</input>world]', '[Let&#8217;s get crazy<input>[caption code=&#8221;<a href=\'?a[]=100\'>hello</a>&#8220;]</input>world]'],
    ['<> ... < ... > ... <>', '<> &#8230; < ... > &#8230; <>'],
  ],
};

describe('wptexturize, as WordPress 6.x', () => {
  for (const [group, pairs] of Object.entries(cases)) {
    it(group, () => {
      for (const [input, expected] of pairs) expect(wptexturize(input), input).toBe(expected);
    });
  }
});

describe('theTitle (the_title filters)', () => {
  it('texturizes and escapes the ampersand, as WordPress\'s test_get_item_escapes_title expects of a menu item', () => {
    expect(theTitle('<strong>Foo</strong> & bar')).toBe('<strong>Foo</strong> &#038; bar');
  });

  it('trims, and corrects the capital P', () => {
    expect(theTitle("  Wordpress's -- \"best\" ...\n")).toBe('WordPress&#8217;s &#8212; &#8220;best&#8221; &#8230;');
  });
});
