import type {
  JobState,
  JobStepStatus,
} from '@capz-backstage/plugin-capz-common';
import {
  canResume,
  decideRequest,
  fail,
  honourRequest,
  isFinal,
  refusalMessage,
  resumedSteps,
  start,
  stateEffects,
  succeed,
} from './transitions';

const STATES: JobState[] = [
  'queued',
  'running',
  'paused',
  'succeeded',
  'failed',
  'cancelled',
];

describe('job transitions', () => {
  it('frees the cluster only in a final state, and stamps the end of final and failed jobs', () => {
    expect(STATES.filter(isFinal)).toEqual(['succeeded', 'cancelled']);
    expect(Object.fromEntries(STATES.map(s => [s, stateEffects(s)]))).toEqual({
      queued: { releasesCluster: false, finished: false },
      running: { releasesCluster: false, finished: false },
      paused: { releasesCluster: false, finished: false },
      succeeded: { releasesCluster: true, finished: true },
      failed: { releasesCluster: false, finished: true },
      cancelled: { releasesCluster: true, finished: true },
    });
  });

  it.each([
    // state, leased, pause, cancel, cancel when it still writes (it resumes a Kustomization the job suspended)
    ['queued', false, 'now paused', 'now cancelled', 'requeue cancel'],
    ['queued', true, 'request pause', 'request cancel', 'request cancel'],
    ['running', true, 'request pause', 'request cancel', 'request cancel'],
    ['running', false, 'request pause', 'request cancel', 'request cancel'],
    ['paused', false, 'refused', 'now cancelled', 'requeue cancel'],
    ['failed', false, 'refused', 'now cancelled', 'requeue cancel'],
    ['succeeded', false, 'refused', 'refused', 'refused'],
    ['cancelled', false, 'refused', 'refused', 'refused'],
  ] as const)(
    'a %s job (leased: %p): pause is %p, cancel is %p, a cancel that writes is %p',
    (state, leased, pause, cancel, writingCancel) => {
      const words = (d: ReturnType<typeof decideRequest>) => {
        if (d.kind === 'now') return `now ${d.state}`;
        if (d.kind === 'request') return `request ${d.requested}`;
        if (d.kind === 'requeue') return `requeue ${d.requested}`;
        return 'refused';
      };
      expect(words(decideRequest({ state, leased }, 'pause'))).toBe(pause);
      expect(words(decideRequest({ state, leased }, 'cancel'))).toBe(cancel);
      expect(
        words(decideRequest({ state, leased, cancelWrites: true }, 'cancel')),
      ).toBe(writingCancel);
      expect(
        words(decideRequest({ state, leased, cancelWrites: true }, 'pause')),
      ).toBe(pause);
    },
  );

  it('resumes paused and failed jobs only; a failed or interrupted step starts over', () => {
    expect(STATES.filter(canResume)).toEqual(['paused', 'failed']);
    const step = (id: string, state: JobStepStatus['state']) => ({
      id,
      title: id,
      state,
      attempts: 1,
    });
    expect(
      resumedSteps([
        step('a', 'succeeded'),
        step('b', 'skipped'),
        step('c', 'failed'),
        step('d', 'running'),
        step('e', 'pending'),
      ]).map(s => s.state),
    ).toEqual(['succeeded', 'skipped', 'pending', 'pending', 'pending']);
  });

  it('says why an action is refused, naming the job and its state', () => {
    expect(refusalMessage('pause', { id: 'job-1', state: 'succeeded' })).toBe(
      'Cannot pause job job-1: it is succeeded',
    );
  });

  it('writes what a runner reports: start, success, failure', () => {
    expect(start()).toEqual({ state: 'running' });
    expect(succeed()).toEqual({
      state: 'succeeded',
      currentStep: null,
      requested: null,
    });
    expect(fail('why', 'what is left')).toEqual({
      state: 'failed',
      error: 'why',
      leftBehind: 'what is left',
    });
  });

  it('honours a pause (resumable) or a cancel (saying what it left) and clears the request', () => {
    const left = jest.fn(() => 'left');
    expect(honourRequest('pause', left)).toEqual({
      update: { state: 'paused', requested: null },
      log: {
        level: 'info',
        message: 'paused by request; resume to continue at the same step',
      },
    });
    expect(left).not.toHaveBeenCalled();
    expect(honourRequest('cancel', left)).toEqual({
      update: { state: 'cancelled', requested: null, leftBehind: 'left' },
      log: { level: 'warn', message: 'cancelled by request' },
    });
  });
});
