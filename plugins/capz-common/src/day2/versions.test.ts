import {
  compareKubernetesVersions,
  controlPlaneStepError,
  displayKubernetesVersion,
  nextControlPlaneVersions,
  parseKubernetesVersion,
} from './versions';

describe('Kubernetes versions', () => {
  it('parses with or without the leading v and refuses anything else', () => {
    expect(parseKubernetesVersion('v1.33.2')).toEqual([1, 33, 2]);
    expect(parseKubernetesVersion('1.33.2')).toEqual([1, 33, 2]);
    expect(parseKubernetesVersion('v1.33')).toBeUndefined();
    expect(parseKubernetesVersion('latest')).toBeUndefined();
  });

  it('compares numerically, not as text', () => {
    expect(compareKubernetesVersions('v1.33.10', 'v1.33.9')).toBeGreaterThan(0);
    expect(compareKubernetesVersions('1.9.0', 'v1.10.0')).toBeLessThan(0);
    expect(compareKubernetesVersions('v1.33.2', '1.33.2')).toBe(0);
  });

  it('refuses a downgrade and a skipped minor, allows a patch and the next minor', () => {
    expect(controlPlaneStepError('v1.33.2', 'v1.32.9')?.rule).toBe(
      'no-downgrade',
    );
    expect(controlPlaneStepError('v1.33.2', 'v1.33.1')?.rule).toBe(
      'no-downgrade',
    );
    expect(controlPlaneStepError('v1.33.2', 'v1.35.0')?.rule).toBe(
      'no-skipped-minor',
    );
    expect(controlPlaneStepError('v1.33.2', 'v2.0.0')?.rule).toBe(
      'no-skipped-minor',
    );
    expect(controlPlaneStepError('v1.33.2', 'v1.33.5')).toBeUndefined();
    expect(controlPlaneStepError('v1.33.2', 'v1.34.0')).toBeUndefined();
  });

  it('offers only newer versions of this or the next minor, newest first', () => {
    expect(
      nextControlPlaneVersions('v1.33.2', [
        '1.32.7',
        '1.33.2',
        '1.33.4',
        '1.34.1',
        '1.34.0',
        '1.35.0',
      ]),
    ).toEqual(['v1.34.1', 'v1.34.0', 'v1.33.4']);
  });

  it('shows every version in one form, with the v CAPI writes, whether read from CAPI or AKS', () => {
    expect(displayKubernetesVersion('1.32.6')).toBe('v1.32.6');
    expect(displayKubernetesVersion('v1.33.2')).toBe('v1.33.2');
    expect(displayKubernetesVersion(' 1.33.2 ')).toBe('v1.33.2');
    expect(displayKubernetesVersion('latest')).toBe('latest');
  });
});
