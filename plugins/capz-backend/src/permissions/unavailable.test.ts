import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { ResponseError } from '@backstage/errors';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { capzClusterReadPermission } from '@capz-backstage/plugin-capz-common';
import {
  PermissionCheckUnavailableError,
  permissionsAnsweringWhenDown,
} from './unavailable';

const ask = { credentials: mockCredentials.user() };
const req = [{ permission: capzClusterReadPermission }];
const byRef = [
  { permission: capzClusterReadPermission, resourceRef: 'local:team-a:alpha' },
];

async function responseError(status: number) {
  return ResponseError.fromResponse(
    new Response(JSON.stringify({ error: { name: 'Error', message: 'x' } }), {
      status,
      statusText: status === 500 ? 'Internal Server Error' : 'Bad Request',
      headers: { 'content-type': 'application/json' },
    }) as any,
  );
}

describe('permissionsAnsweringWhenDown', () => {
  it('turns a 5xx of the permission backend into a 503 that says nothing was read or changed', async () => {
    const e = await responseError(500);
    const p = permissionsAnsweringWhenDown(
      mockServices.permissions.mock({
        authorizeConditional: async () => {
          throw e;
        },
      }),
    );
    const thrown = await p.authorizeConditional(req, ask).catch(x => x);
    expect(thrown).toBeInstanceOf(PermissionCheckUnavailableError);
    expect(thrown.message).toBe(
      'The permission check cannot be made right now (the permission backend answered 500). Nothing was read or changed; try again in a moment.',
    );
    expect(thrown.stack).toBeUndefined();
  });

  it('turns no answer into the same 503', async () => {
    const p = permissionsAnsweringWhenDown(
      mockServices.permissions.mock({
        authorize: async () => {
          throw Object.assign(new TypeError('fetch failed'), {
            cause: { code: 'ECONNREFUSED' },
          });
        },
      }),
    );
    await expect(p.authorize(byRef, ask)).rejects.toThrow(
      '(the permission backend did not answer)',
    );
  });

  it('passes decisions and every other error through', async () => {
    const p = permissionsAnsweringWhenDown(
      mockServices.permissions.mock({
        authorize: async () => [{ result: AuthorizeResult.DENY }],
        authorizeConditional: async () => {
          throw await responseError(400);
        },
      }),
    );
    expect(await p.authorize(byRef, ask)).toEqual([
      { result: AuthorizeResult.DENY },
    ]);
    await expect(p.authorizeConditional(req, ask)).rejects.toMatchObject({
      name: 'ResponseError',
    });
  });
});
