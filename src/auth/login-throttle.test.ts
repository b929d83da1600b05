import { describe, expect, it } from 'vitest';
import { accountOf, networkOf } from './login-throttle.js';

describe('networkOf', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0:0:0:9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::203.0.113.7', '64:ff9b:0:0::/64'],
  ])('counts %s under %s', (ip, network) => {
    expect(networkOf(ip)).toBe(network);
  });
});

describe('accountOf', () => {
  it('is the user when the login names one, the lowercased login (digested) when it names nobody', () => {
    expect(accountOf(7, 'Someone')).toBe('user:7');
    expect(accountOf(undefined, 'Nobody@Example.test')).toBe(accountOf(undefined, 'nobody@example.test'));
    expect(accountOf(undefined, 'x'.repeat(10_000))).toMatch(/^login:[\w-]{43}$/);
  });
});
