import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockServices } from '@backstage/backend-test-utils';
import { InputError, NotAllowedError } from '@backstage/errors';
import express from 'express';
import request from 'supertest';
import { auditRefusals } from './auditRefusals';

/** Routes that refuse, fail otherwise, or answer; the refusal audit after them, then Backstage's error handler. */
function app(auditor: ReturnType<typeof mockServices.auditor.mock>) {
  const logger = mockServices.logger.mock();
  return express()
    .get('/refused', () => {
      throw new NotAllowedError('Not allowed to scale cluster local/a/b');
    })
    .get('/bad', () => {
      throw new InputError('replicas: must be a number');
    })
    .get('/ok', (_req, res) => {
      res.json({ ok: true });
    })
    .use(auditRefusals(auditor, logger))
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
}

describe('auditRefusals', () => {
  it('audits a 403 as a failed capz-permission-denied event with the request, and answers it unchanged', async () => {
    const auditor = mockServices.auditor.mock();
    const res = await request(app(auditor)).get('/refused');
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      name: 'NotAllowedError',
      message: 'Not allowed to scale cluster local/a/b',
    });
    expect(auditor.createEvent).toHaveBeenCalledTimes(1);
    expect(auditor.createEvent).toHaveBeenCalledWith({
      eventId: 'capz-permission-denied',
      severityLevel: 'medium',
      request: expect.objectContaining({ originalUrl: '/refused' }),
    });
    const event = await (auditor.createEvent as jest.Mock).mock.results[0]
      .value;
    expect(event.fail).toHaveBeenCalledWith({
      error: expect.objectContaining({ name: 'NotAllowedError' }),
    });
  });

  it('leaves other errors and answers to their routes (nothing audited here)', async () => {
    const auditor = mockServices.auditor.mock();
    expect((await request(app(auditor)).get('/bad')).status).toBe(400);
    expect((await request(app(auditor)).get('/ok')).status).toBe(200);
    expect(auditor.createEvent).not.toHaveBeenCalled();
  });

  it('still answers the refusal when the audit fails', async () => {
    const auditor = mockServices.auditor.mock({
      createEvent: jest.fn(async () => {
        throw new Error('audit sink down');
      }),
    });
    expect((await request(app(auditor)).get('/refused')).status).toBe(403);
  });
});
