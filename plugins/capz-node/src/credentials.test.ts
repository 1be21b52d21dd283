import { mockServices } from '@backstage/backend-test-utils';
import { ScmIntegrations } from '@backstage/integration';
import { credentialsFor } from './credentials';
import { repositoryWebUrl, urlWithoutCredentials } from './urls';

describe('credentialsFor', () => {
  const integrations = ScmIntegrations.fromConfig(
    mockServices.rootConfig({
      data: {
        integrations: {
          github: [{ host: 'github.com', token: 'ghp_x' }],
          gitlab: [
            {
              host: 'gitlab.example.com',
              apiBaseUrl: 'https://gitlab.example.com/api/v4',
              token: 'glpat',
            },
          ],
          gitea: [
            {
              host: 'gitea.example.com',
              username: 'bot',
              password: 'secret',
            },
          ],
        },
      },
    }),
  );

  it('uses the token of a hosted provider the way its Git HTTP endpoint expects', () => {
    expect(
      credentialsFor(integrations.byUrl('https://github.com/o/r.git')),
    ).toEqual({ username: 'x-access-token', password: 'ghp_x' });
    expect(
      credentialsFor(integrations.byUrl('https://gitlab.example.com/g/r.git')),
    ).toEqual({ username: 'oauth2', password: 'glpat' });
    expect(
      credentialsFor(integrations.byUrl('https://gitea.example.com/o/r.git')),
    ).toEqual({ username: 'bot', password: 'secret' });
    expect(
      credentialsFor(integrations.byUrl('http://127.0.0.1:9/r.git')),
    ).toBeUndefined();
  });
});

describe('repository URLs', () => {
  it('gives the web page and a loggable URL without the credentials', () => {
    expect(repositoryWebUrl('https://u:p@git.example.com/o/r.git')).toBe(
      'https://git.example.com/o/r',
    );
    expect(urlWithoutCredentials('https://u:p@git.example.com/o/r.git')).toBe(
      'https://git.example.com/o/r.git',
    );
    expect(urlWithoutCredentials('not a url')).toBe('(invalid URL)');
  });
});
