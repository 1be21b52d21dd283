import {
  normalizeKubernetesName,
  validateDnsLabel,
  validateDnsSubdomain,
} from './names';

describe('names', () => {
  it('accepts valid DNS-1123 labels and subdomains', () => {
    for (const v of ['a', 'team-x', '0abc9', 'x'.repeat(63)])
      expect(validateDnsLabel(v)).toBeUndefined();
    for (const v of ['rg-prod', 'a.b-c.d', 'x'.repeat(253)])
      expect(validateDnsSubdomain(v)).toBeUndefined();
  });

  it('says what is wrong with a label', () => {
    expect(validateDnsLabel('', 'namespace')).toBe(
      'namespace must not be empty',
    );
    expect(validateDnsLabel('x'.repeat(64), 'namespace')).toBe(
      `namespace "${'x'.repeat(
        64,
      )}" is 64 characters long; at most 63 are allowed`,
    );
    expect(validateDnsLabel('Team_X', 'namespace')).toBe(
      `namespace "Team_X" contains "T", "_", "X": only lowercase letters, digits, '-' are allowed (no uppercase)`,
    );
    expect(validateDnsLabel('a.b', 'namespace')).toMatch(/contains "\."/);
    expect(validateDnsLabel('-team', 'namespace')).toBe(
      'namespace "-team" must start and end with a lowercase letter or digit',
    );
    expect(validateDnsLabel('team-', 'namespace')).toMatch(
      /must start and end/,
    );
  });

  it('says what is wrong with a subdomain', () => {
    expect(validateDnsSubdomain('x'.repeat(254), 'name')).toMatch(
      /254 characters long; at most 253/,
    );
    expect(validateDnsSubdomain('a..b', 'name')).toMatch(
      /empty parts between dots/,
    );
    expect(validateDnsSubdomain('a.-b', 'name')).toMatch(/around each '\.'/);
    expect(validateDnsSubdomain('rg_prod', 'ResourceGroup object name')).toBe(
      `ResourceGroup object name "rg_prod" contains "_": only lowercase letters, digits, '-' and '.' are allowed`,
    );
  });

  it("normalises like CAPZ's GetNormalizedKubernetesName", () => {
    expect(normalizeKubernetesName('RG_Prod.1')).toBe('rg-prod-1');
    expect(normalizeKubernetesName('_MyCluster_')).toBe('mycluster');
    expect(normalizeKubernetesName('a__b')).toBe('a--b');
    expect(normalizeKubernetesName('already-ok')).toBe('already-ok');
  });
});
