import { conditionOutcome, isNegativePolarity } from './health';

describe('condition polarity', () => {
  it.each([
    // CAPI v1beta2's negative-polarity conditions: False is their normal state.
    ['Deleting', 'False', 'good'],
    ['Deleting', 'True', 'bad'],
    ['Paused', 'False', 'good'],
    ['ScalingUp', 'False', 'good'],
    ['ScalingDown', 'True', 'bad'],
    ['Remediating', 'False', 'good'],
    ['RollingOut', 'False', 'good'],
    ['Updating', 'False', 'good'],
    // Positive ones: CAPI's Available, ASO's and CAPZ's Ready.
    ['Available', 'True', 'good'],
    ['Ready', 'False', 'bad'],
    ['ControlPlaneReady', 'True', 'good'],
    ['Deleting', 'Unknown', 'unknown'],
    ['Ready', 'Unknown', 'unknown'],
  ])('%s=%s is %s', (type, status, outcome) => {
    expect(conditionOutcome(type, status)).toBe(outcome);
  });

  it('knows the negative types by name only', () => {
    expect(isNegativePolarity('ScalingUp')).toBe(true);
    expect(isNegativePolarity('MachinesReady')).toBe(false);
    expect(isNegativePolarity('deleting')).toBe(false);
  });
});
