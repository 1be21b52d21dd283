/**
 * The repository's web page from its clone URL (no credentials, no `.git`).
 * @public
 */
export function repositoryWebUrl(repoUrl: string): string {
  const u = new URL(repoUrl);
  u.username = '';
  u.password = '';
  return u
    .toString()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}

/**
 * A URL without credentials, for logs and messages.
 * @public
 */
export function urlWithoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}
